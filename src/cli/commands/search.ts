import type { App } from "../../app.js";
import { Option } from "@commander-js/extra-typings";
import type { CliContext } from "../context.js";
import { collect, integer, type JsonOption, type RegisterCommands, type WikiOption } from "../kit.js";
import { nonNegative, openIndex } from "./shared.js";
import { invalid } from "../../core/errors.js";

const DEFAULT_LIMIT = 50;
import { renderSearch } from "../render/pages.js";

export const registerSearchCommands: RegisterCommands = (program, { act, json, wiki }) => {
  act(
    program
      .command("search")
      .description("search pages (ranked by title, heading, then body)")
      .argument("[query...]", "words to search for; none lists pages")
      .addOption(new Option("--topic <topic>", "only pages with this topic or a narrower one (repeatable; an unknown topic is an error)").argParser(collect).default<string[]>([]))
      .option("--mentions <path>", "only pages citing this file or folder")
      .addOption(new Option("--limit <n>", "at most n pages (default 50)").argParser(integer))
      .option("--all", "every matching page")
      .option("--slugs", "print slugs only")
      .addOption(json())
      .addOption(wiki()),
    search,
  );
};

interface SearchOptions extends JsonOption, WikiOption {
  topic: string[];
  mentions?: string;
  limit?: number;
  all?: true;
  slugs?: true;
}

export async function search(ctx: CliContext, app: App, [words]: [string[]], opts: SearchOptions): Promise<void> {
  if (opts.all && opts.limit !== undefined) throw invalid("--limit and --all cannot be combined");
  // Agents read results into a context window: the best 50 by default, all with --all.
  const limit = opts.all ? undefined : (nonNegative(opts.limit, "--limit") ?? DEFAULT_LIMIT);
  const index = openIndex(ctx, app, opts);
  const request = {
    query: words.join(" "),
    topics: await index.knownTopics(opts.topic, "`codealmanac topics` lists them"),
    ...(opts.mentions !== undefined ? { mentions: opts.mentions } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
  // JSON is the hits alone (almanac/decisions/search-returns-the-best-50.md), so nothing is counted for it.
  if (opts.json) return ctx.json(await index.searchHits(request));
  const { hits, total } = await index.search(request);
  renderSearch(ctx, hits, { slugsOnly: opts.slugs === true, total, explicitLimit: opts.limit !== undefined });
}
