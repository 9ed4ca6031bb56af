import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { nonNegative, openIndex } from "./shared.js";
import { invalid } from "../../core/errors.js";

const DEFAULT_LIMIT = 50;
import { renderSearch } from "../render/pages.js";

export async function search(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const words = (args[0] as string[] | undefined) ?? [];
  if (opts.all && opts.limit !== undefined) throw invalid("--limit and --all cannot be combined");
  // Agents read results into a context window: the best 50 by default, all with --all.
  const limit = opts.all ? undefined : (nonNegative(opts.limit, "--limit") ?? DEFAULT_LIMIT);
  const index = openIndex(ctx, app, opts);
  const { hits, total } = await index.search({
    query: words.join(" "),
    topics: opts.topic as string[],
    ...(opts.mentions !== undefined ? { mentions: opts.mentions as string } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  if (opts.json) return ctx.json(hits);
  renderSearch(ctx, hits, { slugsOnly: opts.slugs === true, total, explicitLimit: opts.limit !== undefined });
}
