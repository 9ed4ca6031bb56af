import * as z from "zod/mini";
import { pagesBySlug } from "../../index/views/viewer.js";
import { pageLine } from "../shapes.js";
import type { OpenWiki } from "../wikis.js";
import { count, countField, wikiArgument, wikiField } from "./common.js";
import type { ToolContext } from "./context.js";
import { defineTool } from "./tool.js";

const INPUT = z.strictObject({
  topic: z.optional(
    z.string().check(z.minLength(1), z.describe("A topic's slug or name. Leave it out for the whole topic graph.")),
  ),
  descendants: z.optional(z.boolean().check(z.describe("With topic: also list pages of its narrower topics (default false)."))),
  wiki: wikiArgument,
});

const TopicSchema = z.object({
  slug: z.string(),
  title: z.string().check(z.describe("for an undeclared topic, made from its slug")),
  declared: z.boolean().check(z.describe("false when pages use the topic but topics.yaml does not declare it")),
  description: z.nullable(z.string()),
  parents: z.array(z.string()),
  children: z.array(z.string()),
  page_count: countField(),
});

const TopicDetailSchema = z.object({
  slug: z.string(),
  title: z.string().check(z.describe("for an undeclared topic, made from its slug")),
  declared: z.boolean().check(z.describe("false when pages use the topic but topics.yaml does not declare it")),
  description: z.nullable(z.string()),
  parents: z.array(z.string()),
  children: z.array(z.string()),
  includes_descendants: z.boolean(),
  pages: z.array(z.object({ slug: z.string(), title: z.nullable(z.string()), summary: z.nullable(z.string()) })),
});

const OUTPUT = z.object({
  wiki: wikiField,
  topics: z.optional(z.array(TopicSchema).check(z.describe("every topic, when no topic was asked for"))),
  topic: z.optional(TopicDetailSchema.check(z.describe("the topic asked for, with its pages"))),
});
type TopicsOutput = z.output<typeof OUTPUT>;

export const topicsTool = (context: ToolContext) =>
  defineTool({
    name: "topics",
    title: "Wiki topics",
    description:
      "Browse the wiki by subject. Without arguments: every topic with its parents, children (topics form a graph, broad to narrow) and page count. With topic: that topic's description and the pages filed under it. Use it to get an overview of an area before reading pages, or to pick topics for search.",
    input: INPUT,
    output: OUTPUT,
    run: async (args) => {
      const wiki = await context.wikis.open(args.wiki);
      const name = wiki.repository.name;
      if (args.topic === undefined) {
        const data: TopicsOutput = { wiki: name, topics: await wiki.index.topics() };
        return { data, text: graphText(data) };
      }
      await knownTopics(wiki, [args.topic]);
      const detail = await wiki.index.topic(args.topic, args.descendants === true);
      const rows = await wiki.index.read((db) => pagesBySlug(db, detail.pages));
      const pages = detail.pages.map((slug) => ({ slug, title: rows.get(slug)?.title ?? null, summary: rows.get(slug)?.summary ?? null }));
      const data: TopicsOutput = { wiki: name, topic: { ...detail, pages } };
      return { data, text: topicText(data) };
    },
  });

/** The topics' slugs, when the wiki has every one: else an error naming the unknown one, with close matches. */
export async function knownTopics(wiki: OpenWiki, inputs: readonly string[]): Promise<string[]> {
  return wiki.index.knownTopics(inputs, "the topics tool lists them");
}

function graphText(data: TopicsOutput): string {
  const topics = data.topics ?? [];
  if (topics.length === 0) return `Wiki ${data.wiki} has no topics yet.`;
  const lines = [`${count(topics.length, "topic")} in wiki ${data.wiki} (slug — title, pages, parents):`];
  for (const t of topics) {
    const parents = t.parents.length > 0 ? ` · under ${t.parents.join(", ")}` : "";
    const title = t.declared ? t.title : "(not declared in topics.yaml)";
    lines.push(`- ${t.slug} — ${title} (${count(t.page_count, "page")})${parents}${t.description ? `: ${t.description}` : ""}`);
  }
  return lines.join("\n");
}

function topicText(data: TopicsOutput): string {
  const t = data.topic!;
  const lines = [`# Topic ${t.title} (${t.slug}) in wiki ${data.wiki}`];
  if (t.description) lines.push(t.description);
  lines.push(`parents: ${t.parents.join(", ") || "none"} · children: ${t.children.join(", ") || "none"}`);
  const scope = t.includes_descendants ? " (with narrower topics)" : "";
  lines.push(t.pages.length === 0 ? `No pages${scope}.` : `${count(t.pages.length, "page")}${scope}:`);
  for (const page of t.pages) lines.push(`- ${pageLine(page)}`);
  return lines.join("\n");
}
