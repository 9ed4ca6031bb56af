import { join } from "node:path";
import * as z from "zod/mini";
import { invalid } from "../../core/errors.js";
import { isDirectoryWithin } from "../../core/fs.js";
import type { SearchHit } from "../../index/views/search.js";
import { queryTokens } from "../../index/views/query.js";
import { repositoryPath } from "../paths.js";
import { readDrift, type PagesDrift } from "../../evidence/freshness.js";
import { almanacRelative, FreshnessSchema, freshnessLine, pageLine, pageSummary, PageSummarySchema } from "../shapes.js";
import type { OpenWiki } from "../wikis.js";
import { withToolLinks } from "../page-body.js";
import { count, countField, wikiArgument, wikiField } from "./common.js";
import type { ToolContext } from "./context.js";
import { defineTool } from "./tool.js";
import { knownTopics } from "./topics.js";

const MAX_LIMIT = 100;

const limitArgument = (fallback: number) =>
  z.optional(
    z.int().check(z.minimum(1), z.maximum(MAX_LIMIT), z.describe(`How many pages to return at most, 1 to ${MAX_LIMIT} (default ${fallback}).`)),
  );

const HitSchema = z.extend(PageSummarySchema, {
  matched_heading: z.nullable(z.string()).check(z.describe("the heading of the best-matching section ('' for the page's lead)")),
  excerpt: z.nullable(z.string()).check(z.describe("words around the first match in that section")),
  freshness: FreshnessSchema,
});

const SEARCH_INPUT = z.strictObject({
  query: z.optional(
    z.string().check(
      z.describe(
        "Words to look for, in plain language (e.g. 'worker shutdown'). Every word is matched as a prefix in titles, headings and text; there is no query syntax. Leave it out to list pages newest first.",
      ),
    ),
  ),
  topics: z.optional(
    z.array(z.string()).check(z.describe("Only pages with each of these topics (or a narrower one). See the topics tool for the graph.")),
  ),
  mentions: z.optional(
    z.string().check(
      z.describe("Only pages citing this repository file or folder (relative to the repository root, or absolute inside it)."),
    ),
  ),
  limit: limitArgument(10),
  wiki: wikiArgument,
});

const SEARCH_OUTPUT = z.object({
  wiki: wikiField,
  query: z.nullable(z.string()),
  total: countField("pages that matched, before the limit"),
  pages: z.array(HitSchema),
});

export const searchTool = (context: ToolContext) =>
  defineTool({
    name: "search",
    title: "Search the wiki",
    description:
      "Search this repository's CodeAlmanac wiki: Markdown pages that explain how the code works, why it was built that way, and what to watch out for. Call it before changing code you do not know, to find the pages worth reading. Returns pages best first, each with its summary, the best-matching heading, an excerpt and its freshness (a stale page cites code that changed since it was verified: check that code before relying on it); open one with read_page. Filter by topics or by a file or folder the pages cite.",
    input: SEARCH_INPUT,
    output: SEARCH_OUTPUT,
    run: async (args) => {
      const query = args.query?.trim() ?? "";
      if (query !== "" && queryTokens(query).length === 0) {
        throw invalid(`the query has no words to search for: ${JSON.stringify(args.query)} (use plain words, e.g. "queue worker")`);
      }
      const wiki = await context.wikis.open(args.wiki);
      const mentions = args.mentions === undefined ? undefined : repositoryPath(args.mentions, wiki.repository.rootPath);
      const limit = args.limit ?? 10;
      const { hits, total } = await wiki.index.search({
        query,
        topics: await knownTopics(wiki, args.topics ?? []),
        limit,
        ...(mentions !== undefined ? { mentions } : {}),
      });
      // One drift report for the pages shown, whatever their number.
      const drift = await readDrift(await context.drift(), wiki.index, hits.map((hit) => hit.slug));
      const data = { wiki: wiki.repository.name, query: query === "" ? null : query, total, pages: hits.map((hit) => searchHit(wiki, hit, drift)) };
      return { data, text: searchText(data) };
    },
  });

const FILE_INPUT = z.strictObject({
  path: z.string().check(
    z.minLength(1),
    z.describe("A repository file or folder: relative to the repository root (e.g. 'src/queue/worker.ts' or 'src/queue/'), or absolute inside it."),
  ),
  limit: limitArgument(50),
  wiki: wikiArgument,
});

const FILE_OUTPUT = z.object({
  wiki: wikiField,
  path: z.string().check(z.describe("the path as pages cite it, relative to the repository root (folders end in /)")),
  kind: z.enum(["file", "directory"]),
  total: countField("pages citing the path, before the limit"),
  pages: z.array(PageSummarySchema),
});

export const pagesForFileTool = (context: ToolContext) =>
  defineTool({
    name: "pages_for_file",
    title: "Wiki pages about a file",
    description:
      "List the wiki pages that cite a repository file or folder (a page citing a folder counts for every file in it). Call it just before you edit or review a file: these pages record how that code is meant to work, and may need updating after your change. Returns an empty list when no page cites the path.",
    input: FILE_INPUT,
    output: FILE_OUTPUT,
    run: async (args) => {
      const wiki = await context.wikis.open(args.wiki);
      const path = repositoryPath(args.path, wiki.repository.rootPath);
      // The same test search's `mentions` applies: a folder is one that exists inside the repository, or is written with a slash.
      const directory = path.endsWith("/") || isDirectoryWithin(join(wiki.repository.rootPath, path), wiki.repository.rootPath);
      const { hits, total } = await wiki.index.search({ mentions: path, limit: args.limit ?? 50 });
      const data = {
        wiki: wiki.repository.name,
        path: directory && !path.endsWith("/") ? `${path}/` : path,
        kind: directory ? ("directory" as const) : ("file" as const),
        total,
        pages: hits.map((hit) => pageSummary(wiki.repository.name, hitRow(wiki, hit))),
      };
      const head =
        total === 0
          ? `No page in wiki ${data.wiki} cites ${data.path}.`
          : `${count(total, "page")} in wiki ${data.wiki} cite${total === 1 ? "s" : ""} ${data.path}${shownOf(data.pages.length, total)}:`;
      return { data, text: [head, ...data.pages.map((p) => `- ${pageLine(p)}`)].join("\n") };
    },
  });

function hitRow(wiki: OpenWiki, hit: SearchHit) {
  return { ...hit, path: almanacRelative(wiki.index.almanacPath, hit.file_path) };
}

function searchHit(wiki: OpenWiki, hit: SearchHit, drift: PagesDrift): z.output<typeof HitSchema> {
  const row = hitRow(wiki, hit);
  // Links in the names the other tools take, as read_page gives them.
  const excerpt = hit.excerpt === null ? null : withToolLinks(hit.excerpt, { slug: hit.slug, title: hit.title, path: row.path });
  return { ...pageSummary(wiki.repository.name, row), matched_heading: hit.matched_heading, excerpt, freshness: drift.freshness(hit.slug) };
}

function shownOf(shown: number, total: number): string {
  return shown < total ? ` (showing ${shown}; raise limit for more)` : "";
}

function searchText(data: z.output<typeof SEARCH_OUTPUT>): string {
  const what = data.query === null ? "Pages" : `Pages matching ${JSON.stringify(data.query)}`;
  if (data.total === 0) return `${what} in wiki ${data.wiki}: none. Try other words, fewer filters, or the topics tool.`;
  const lines = [`${what} in wiki ${data.wiki}: ${data.total}${shownOf(data.pages.length, data.total)}. Open one with read_page.`];
  data.pages.forEach((page, i) => {
    lines.push(`${i + 1}. ${pageLine(page)}`);
    if (page.excerpt) lines.push(`   ${page.matched_heading ? `§ ${page.matched_heading}: ` : ""}${page.excerpt}`);
    const stale = freshnessLine(page.freshness);
    if (stale !== null) lines.push(`   ${stale}`);
  });
  return lines.join("\n");
}
