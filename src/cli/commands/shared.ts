import type { App } from "../../app.js";
import { trace } from "../../core/trace.js";
import type { WikiIndex } from "../../index/service.js";
import { invalid } from "../../core/errors.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";

/** Selects the wiki (walking up from the cwd, or --wiki) and opens its index. */
export function openIndex(ctx: CliContext, app: App, opts: Opts): WikiIndex {
  const repository = app.repositories.select(ctx.cwd, opts.wiki as string | undefined);
  trace("repository selected");
  const index = app.index.open(repository);
  trace("index opened");
  return index;
}

export function nonNegative(value: unknown, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = value as number;
  if (n < 0) throw invalid(`invalid ${flag} ${n}: must be zero or more`);
  if (!Number.isSafeInteger(n)) throw invalid(`invalid ${flag} ${n}: must be at most ${Number.MAX_SAFE_INTEGER}`);
  return n;
}
