import type { Db } from "../../core/sqlite.js";
import { resolveSlug } from "./pages.js";

/** A page's `type: file` sources, as drift compares them. */
export interface PageEvidence {
  slug: string;
  /** The page file, relative to almanac/. */
  rel_path: string;
  sources: { source_id: string; target: string; lines: string | null; fingerprint: string | null; verified_at: string | null }[];
}

/** Every page (or the named ones) with its file sources in written order; pages without any come with none. */
export function pageEvidence(db: Db, slugs: readonly string[] = []): PageEvidence[] {
  const pages = db.prepare("SELECT slug, rel_path FROM pages ORDER BY slug").all() as { slug: string; rel_path: string }[];
  const wanted = slugs.length > 0 ? new Set(slugs.map((slug) => resolveSlug(db, slug))) : null;
  const bySlug = new Map<string, PageEvidence>();
  for (const page of pages) if (!wanted || wanted.has(page.slug)) bySlug.set(page.slug, { ...page, sources: [] });
  const rows = db
    .prepare(
      `SELECT page_slug, source_id, target, lines, fingerprint, verified_at FROM page_sources
       WHERE source_type = 'file' AND target IS NOT NULL ORDER BY page_slug, ordinal`,
    )
    .all() as ({ page_slug: string } & PageEvidence["sources"][number])[];
  for (const { page_slug, ...source } of rows) bySlug.get(page_slug)?.sources.push(source);
  return [...bySlug.values()];
}
