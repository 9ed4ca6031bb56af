import type { Resource } from "@modelcontextprotocol/sdk/types.js";
import { isProductError } from "../core/errors.js";
import type { TopicSummary } from "../index/views/topics.js";
import type { PageRow } from "../index/views/viewer.js";
import { readableBody } from "./page-body.js";
import { almanacRelative } from "./shapes.js";
import type { OpenWiki } from "./wikis.js";

/** Lines of pages and of topics an overview lists at most; the rest are counted, for search and topics to find. */
export const OVERVIEW_LIST_LIMIT = 300;

const LANDING = "README";

export const OVERVIEW_TEMPLATE = {
  uriTemplate: "almanac://{wiki}",
  name: "overview",
  title: "Wiki overview",
  description:
    "Where to start in a CodeAlmanac wiki, as Markdown: its landing page, its topics, and every page's slug, title and summary (e.g. almanac://my-repo).",
  mimeType: "text/markdown",
};

export function overviewUri(wiki: string): string {
  return `almanac://${encodeURIComponent(wiki)}`;
}

export function overviewResource(wiki: string, pages: number): Resource {
  return {
    uri: overviewUri(wiki),
    name: wiki,
    title: `${wiki}: wiki overview`,
    description: `Start here: the landing page, the topics and all ${pages} page${pages === 1 ? "" : "s"} of the wiki ${wiki}, each with its slug and summary.`,
    mimeType: "text/markdown",
  };
}

/**
 * What a model needs to find its way in a wiki it has not read: what the wiki is, its
 * landing page (links given as slugs), the topic graph and every page with its summary,
 * and how to open a page. `rows` are the wiki's pages in file-path order.
 */
export async function overviewText(wiki: OpenWiki, rows: readonly PageRow[]): Promise<string> {
  const name = wiki.repository.name;
  const [landing, topics] = await Promise.all([landingBody(wiki), wiki.index.topics()]);
  const lines = [`# The CodeAlmanac wiki ${name}`, ""];
  if (wiki.repository.description.trim() !== "") lines.push(wiki.repository.description.trim(), "");
  lines.push(
    `Pages explain how this repository's code works, why it is built that way and what to watch out for. Open a page with the read_page tool or as the resource ${overviewUri(name)}/<slug>; find pages with search (words, topics, or a file the pages cite) and pages_for_file.`,
    "",
  );
  if (landing !== null) lines.push(`## Landing page (${LANDING})`, "", landing.trim(), "");
  lines.push(...topicLines(topics), "", ...pageLines(rows));
  return `${lines.join("\n").trimEnd()}\n`;
}

async function landingBody(wiki: OpenWiki): Promise<string | null> {
  try {
    const view = await wiki.index.show(LANDING);
    const body = readableBody(view.body, { slug: view.slug, title: view.title, path: almanacRelative(wiki.index.almanacPath, view.file_path) });
    return body.trim() === "" ? null : body;
  } catch (error) {
    if (isProductError(error) && error.code === "not_found") return null;
    throw error;
  }
}

function topicLines(topics: readonly TopicSummary[]): string[] {
  if (topics.length === 0) return ["## Topics", "", "No topics yet."];
  const lines = [`## Topics (${topics.length}; slug — title, pages, parents)`, ""];
  for (const topic of topics.slice(0, OVERVIEW_LIST_LIMIT)) {
    const parents = topic.parents.length > 0 ? `, under ${topic.parents.join(", ")}` : "";
    const about = topic.description ? `: ${topic.description}` : "";
    lines.push(`- ${topic.slug} — ${topic.title}, ${topic.page_count} page${topic.page_count === 1 ? "" : "s"}${parents}${about}`);
  }
  return [...lines, ...more(topics.length, "topic", "the topics tool lists them all")];
}

function pageLines(rows: readonly PageRow[]): string[] {
  if (rows.length === 0) return ["## Pages", "", "No pages yet."];
  const lines = [`## Pages (${rows.length}; slug — title: summary)`, ""];
  for (const row of rows.slice(0, OVERVIEW_LIST_LIMIT)) lines.push(`- ${row.slug} — ${row.title}${row.summary ? `: ${row.summary}` : ""}`);
  return [...lines, ...more(rows.length, "page", "search or resources/list finds the others")];
}

function more(total: number, what: string, where: string): string[] {
  const left = total - OVERVIEW_LIST_LIMIT;
  return left > 0 ? ["", `…and ${left} more ${what}${left === 1 ? "" : "s"}; ${where}.`] : [];
}
