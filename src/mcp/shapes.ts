import { relative } from "node:path";
import * as z from "zod/mini";
import { isoTime } from "../core/time.js";
import type { PageFreshness } from "../evidence/freshness.js";
import { PAGE_STATUSES } from "../evidence/types.js";

/** The scheme of page resources: `almanac://<wiki>/<slug>`. */
export const URI_SCHEME = "almanac:";

export function pageUri(wiki: string, slug: string): string {
  return `almanac://${encodeURIComponent(wiki)}/${slug.split("/").map(encodeURIComponent).join("/")}`;
}

/** Index timestamps are Unix seconds. */
export function isoSeconds(seconds: number): string {
  return isoTime(seconds * 1000)!;
}

/** A page's freshness: whether the code it cites changed since the page was verified (see `ca drift`). */
export const FreshnessSchema = z
  .object({
    status: z.enum(PAGE_STATUSES).check(
      z.describe(
        "fresh: its cited code is as verified; moved: the cited lines moved but did not change; stale: cited code changed or is gone since the page was verified, so check that code before relying on the page; unknown: it cannot be judged here (not a git repository, say)",
      ),
    ),
    reason: z.nullable(z.string()).check(z.describe("one line saying why the page is not fresh (for stale, which cited file changed and how); null when fresh")),
    verified_at: z.nullable(z.string()).check(z.describe("the commit its evidence was verified at, null when unknown")),
  });

/** `stale: <reason>` for text results, or null for a page readers may trust as it is. */
export function freshnessLine(freshness: PageFreshness): string | null {
  if (freshness.status !== "stale") return null;
  return `stale: ${freshness.reason ?? "its cited code changed since it was verified"}. Check that code before relying on this page.`;
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
