import * as z from "zod/mini";
import { leadOf, truncationOf, type PageView } from "../../index/views/pages.js";
import { pagesBySlug } from "../../index/views/viewer.js";
import { readDrift } from "../../evidence/freshness.js";
import { readableBody } from "../page-body.js";
import { almanacRelative, FreshnessSchema, freshnessLine, pageSummary, PageSummarySchema } from "../shapes.js";
import type { OpenWiki } from "../wikis.js";
import { wikiArgument, wikiField } from "./common.js";
import type { ToolContext } from "./context.js";
import { defineTool } from "./tool.js";

export const PAGE_PARTS = ["lead", "body", "links", "backlinks", "files", "sources"] as const;
type Part = (typeof PAGE_PARTS)[number];

const INPUT = z.strictObject({
  slug: z.string().check(
    z.minLength(1),
    z.describe("The page's slug, as search returns it (e.g. 'architecture/run-queue'); a path like 'almanac/x.md' works too."),
  ),
  part: z.optional(
    z.enum(PAGE_PARTS).check(
      z.describe(
        "Only this part: lead (first paragraph), body (the Markdown), links (pages it links to), backlinks (pages linking to it), files (repository files and folders it cites), sources (its cited sources). Leave it out for the whole page.",
      ),
    ),
  ),
  wiki: wikiArgument,
});

const LinkSchema = z.object({ slug: z.string(), title: z.nullable(z.string()), exists: z.boolean() });
const SourceSchema = z.object({
  source_id: z.string(),
  source_type: z.string(),
  target: z.nullable(z.string()),
  title: z.nullable(z.string()),
  retrieved_at: z.nullable(z.string()),
  note: z.nullable(z.string()),
  lines: z.nullable(z.string()).check(z.describe("a file source's cited lines, as 40-88 or 40")),
});

const OUTPUT = z.extend(PageSummarySchema, {
  wiki: wikiField,
  part: z.nullable(z.enum(PAGE_PARTS)).check(z.describe("the part asked for, or null for the whole page")),
  truncated: z.boolean().check(z.describe("the page file is over 2 MB: lead and body come from its first 2 MB only")),
  freshness: FreshnessSchema,
  lead: z.optional(z.string()),
  body: z.optional(
    z.string().check(
      z.describe(
        "the page's Markdown, without front matter and without a first heading that repeats the title; links to pages are slugs (for read_page), links to repository files are paths from the repository root (for pages_for_file)",
      ),
    ),
  ),
  links: z.optional(z.array(LinkSchema)),
  backlinks: z.optional(z.array(LinkSchema)),
  files: z.optional(z.array(z.object({ path: z.string(), is_dir: z.boolean() }))),
  sources: z.optional(z.array(SourceSchema)),
});
type PageOutput = z.output<typeof OUTPUT>;

export const readPageTool = (context: ToolContext) =>
  defineTool({
    name: "read_page",
    title: "Read a wiki page",
    description:
      "Read one page of this repository's CodeAlmanac wiki by its slug (from search, pages_for_file or topics). Returns the page's Markdown (its links to other pages given as slugs to pass back to read_page, its links to repository files as paths from the repository root) with its title, summary and topics, the pages it links to and from, the repository files it cites, and its sources; pass part to get only one of these. Its freshness says whether the code it cites changed since the page was verified: when it is stale, check that code before relying on the page. An unknown slug gets an error that suggests close matches.",
    input: INPUT,
    output: OUTPUT,
    run: async (args) => {
      const wiki = await context.wikis.open(args.wiki);
      const view = await wiki.index.show(args.slug);
      const freshness = (await readDrift(await context.drift(), wiki.index, [view.slug])).freshness(view.slug);
      const data = { ...(await pageOutput(wiki, view, args.part ?? null)), freshness };
      return { data, text: pageText(data, truncationOf(view)) };
    },
  });

async function pageOutput(wiki: OpenWiki, view: PageView, part: Part | null): Promise<Omit<PageOutput, "freshness">> {
  const name = wiki.repository.name;
  const base = {
    ...pageSummary(name, { ...view, path: almanacRelative(wiki.index.almanacPath, view.file_path) }),
    wiki: name,
    part,
    truncated: view.truncated,
  };
  const wants = (p: Part) => part === null || part === p;
  const body = wants("body") || part === "lead" ? readableBody(view.body, { slug: view.slug, title: view.title, path: base.path }) : "";
  const linked = wants("links") || wants("backlinks") ? await wiki.index.read((db) => pagesBySlug(db, [...view.page_links_out, ...view.page_links_in])) : new Map();
  const link = (slug: string) => ({ slug, title: linked.get(slug)?.title ?? null, exists: linked.has(slug) });
  return {
    ...base,
    ...(part === "lead" ? { lead: leadOf(body) } : {}),
    ...(wants("body") ? { body } : {}),
    ...(wants("links") ? { links: view.page_links_out.map(link) } : {}),
    ...(wants("backlinks") ? { backlinks: view.page_links_in.map(link) } : {}),
    ...(wants("files") ? { files: view.file_refs } : {}),
    ...(wants("sources") ? { sources: view.sources } : {}),
  };
}

function pageText(page: PageOutput, truncated: string | null): string {
  const stale = freshnessLine(page.freshness);
  const head = [
    `# ${page.title ?? page.slug}`,
    `slug: ${page.slug} · wiki: ${page.wiki} · file: almanac/${page.path} · updated: ${page.updated_at}`,
    ...(page.topics.length > 0 ? [`topics: ${page.topics.join(", ")}`] : []),
    ...(page.summary ? [`summary: ${page.summary}`] : []),
    ...(truncated !== null ? [`truncated: ${truncated}`] : []),
    ...(stale !== null ? [stale] : []),
  ];
  const blocks = [head.join("\n")];
  if (page.lead !== undefined) blocks.push(page.lead || "(no lead paragraph)");
  if (page.body !== undefined) blocks.push(page.body || "(empty page)");
  if (page.links !== undefined) blocks.push(list("Links to", page.links.map((l) => (l.exists ? l.slug : `${l.slug} (no such page)`))));
  if (page.backlinks !== undefined) blocks.push(list("Linked from", page.backlinks.map((l) => l.slug)));
  if (page.files !== undefined) blocks.push(list("Cites repository paths", page.files.map((f) => f.path)));
  if (page.sources !== undefined) {
    blocks.push(list("Sources", page.sources.map((s) => `[${s.source_id}] ${s.source_type}${s.target ? ` ${s.target}` : ""}${s.title ? ` — ${s.title}` : ""}`)));
  }
  return blocks.join("\n\n");
}

function list(title: string, items: string[]): string {
  return items.length === 0 ? `${title}: none` : [`${title}:`, ...items.map((item) => `- ${item}`)].join("\n");
}
