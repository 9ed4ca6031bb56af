import type { Db } from "../../core/sqlite.js";
import { resolveSlug } from "./pages.js";

/** A page's `type: file` sources, as drift compares them. */
export interface PageEvidence {
  slug: string;
  /** The page file, relative to almanac/. */
  rel_path: string;
  sources: { source_id: string; target: string; lines: string | null; fingerprint: string | null; verified_at: string | null }[];
}

/**
 * Every page (or the named ones) with its file sources in written order; pages without any
 * come with none. Named pages are read by key, so a reader asking about one page (`show`,
 * MCP's read_page) or a page of search results does not read the whole wiki's sources.
 */
export function pageEvidence(db: Db, slugs: readonly string[] = []): PageEvidence[] {
  const wanted = slugs.length > 0 ? JSON.stringify([...new Set(slugs.map((slug) => resolveSlug(db, slug)))]) : null;
  const only = (column: string) => (wanted === null ? "" : `AND ${column} IN (SELECT value FROM json_each(?))`);
  const args = wanted === null ? [] : [wanted];
  const pages = db.prepare(`SELECT slug, rel_path FROM pages WHERE 1 ${only("slug")} ORDER BY slug`).all(...args) as { slug: string; rel_path: string }[];
  const bySlug = new Map<string, PageEvidence>();
  for (const page of pages) bySlug.set(page.slug, { ...page, sources: [] });
  const rows = db
    .prepare(
      `SELECT page_slug, source_id, target, lines, fingerprint, verified_at FROM page_sources
       WHERE source_type = 'file' AND target IS NOT NULL ${only("page_slug")} ORDER BY page_slug, ordinal`,
    )
    .all(...args) as ({ page_slug: string } & PageEvidence["sources"][number])[];
  for (const { page_slug, ...source } of rows) bySlug.get(page_slug)?.sources.push(source);
  return [...bySlug.values()];
}
