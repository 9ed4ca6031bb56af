import type { App } from "../../app.js";
import { trace } from "../../core/trace.js";
import type { WikiIndex } from "../../index/service.js";
import { invalid } from "../../core/errors.js";
import type { CliContext } from "../context.js";
import type { WikiOption } from "../kit.js";

/** Selects the wiki (walking up from the cwd, or --wiki) and opens its index. */
export function openIndex(ctx: CliContext, app: App, opts: WikiOption): WikiIndex {
  const repository = app.repositories.select(ctx.cwd, opts.wiki);
  trace("repository selected");
  const index = app.index.open(repository);
  trace("index opened");
  return index;
}

export function nonNegative(n: number | undefined, flag: string): number | undefined {
  if (n === undefined) return undefined;
  if (n < 0) throw invalid(`invalid ${flag} ${n}: must be zero or more`);
  if (!Number.isSafeInteger(n)) throw invalid(`invalid ${flag} ${n}: must be at most ${Number.MAX_SAFE_INTEGER}`);
  return n;
}
