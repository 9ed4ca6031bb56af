import type { App } from "../../app.js";
import type { CliContext } from "../context.js";
import type { Opts } from "../context.js";
import { nonNegative, openIndex } from "./shared.js";
import { renderSearch } from "../render/pages.js";

export async function search(ctx: CliContext, app: App, args: unknown[], opts: Opts): Promise<void> {
  const words = (args[0] as string[] | undefined) ?? [];
  const limit = nonNegative(opts.limit, "--limit");
  const index = openIndex(ctx, app, opts);
  const hits = await index.search({
    query: words.join(" "),
    topics: opts.topic as string[],
    ...(opts.mentions !== undefined ? { mentions: opts.mentions as string } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  if (opts.json) return ctx.json(hits);
  renderSearch(ctx, hits, { slugsOnly: opts.slugs === true, limited: limit !== undefined });
}
