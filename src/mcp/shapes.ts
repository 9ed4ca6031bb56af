import { relative } from "node:path";
import * as z from "zod/mini";
import { isoTime } from "../core/time.js";

/** The scheme of page resources: `almanac://<wiki>/<slug>`. */
export const URI_SCHEME = "almanac:";

export function pageUri(wiki: string, slug: string): string {
  return `almanac://${encodeURIComponent(wiki)}/${slug.split("/").map(encodeURIComponent).join("/")}`;
}

/** Index timestamps are Unix seconds. */
export function isoSeconds(seconds: number): string {
  return isoTime(seconds * 1000)!;
}

/** A page's file, relative to almanac/ and with forward slashes. */
export function almanacRelative(almanacPath: string, filePath: string): string {
  return relative(almanacPath, filePath).split("\\").join("/");
}

const text = (description: string) => z.string().check(z.describe(description));
const nullableText = (description: string) => z.nullable(z.string()).check(z.describe(description));

/** How every tool names a page in its results. */
export const PageSummarySchema = z.object({
  slug: text("the page's slug: pass it to read_page"),
  title: nullableText("the page title"),
  summary: nullableText("the page's one-line summary"),
  path: text("the page file, relative to almanac/"),
  topics: z.array(z.string()),
  updated_at: text("when the page file last changed (ISO 8601)"),
  uri: text("the page as an MCP resource"),
});
export type PageSummary = z.infer<typeof PageSummarySchema>;

export interface PageRowLike {
  slug: string;
  title: string | null;
  summary: string | null;
  path: string;
  topics: string[];
  updated_at: number;
}

export function pageSummary(wiki: string, row: PageRowLike): PageSummary {
  return {
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    path: row.path,
    topics: row.topics,
    updated_at: isoSeconds(row.updated_at),
    uri: pageUri(wiki, row.slug),
  };
}

/** `slug — Title: summary`, the one line a page gets in text results. */
export function pageLine(page: { slug: string; title: string | null; summary: string | null }): string {
  const title = page.title && page.title !== page.slug ? ` — ${page.title}` : "";
  const summary = page.summary ? `: ${page.summary}` : "";
  return `${page.slug}${title}${summary}`;
}
