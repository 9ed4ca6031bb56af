import { cachedStatement, type Db } from "../../core/sqlite.js";
import { resolveSlug } from "./pages.js";

/** A page's `type: file` sources, as drift compares them. */
export interface PageEvidence {
  slug: string;
  /** The page file, relative to almanac/. */
  rel_path: string;
  sources: { source_id: string; target: string; lines: string | null; fingerprint: string | null; verified_at: string | null }[];
}

const SOURCES_SQL = `SELECT page_slug, source_id, target, lines, fingerprint, verified_at FROM page_sources
  WHERE source_type = 'file' AND target IS NOT NULL`;

type SourceRow = [string, string, string, string | null, string | null, string | null];

/** Below this many named pages, their sources are read page by page rather than in one pass over all. */
const FEW_PAGES = 200;

/** Every page (or the named ones) with its file sources in written order; pages without any come with none. */
export function pageEvidence(db: Db, slugs: readonly string[] = []): PageEvidence[] {
  const wanted = slugs.length > 0 ? new Set(slugs.map((slug) => resolveSlug(db, slug))) : null;
  const bySlug = new Map<string, PageEvidence>();
  if (wanted && wanted.size < FEW_PAGES) {
    const page = cachedStatement(db, "SELECT rel_path FROM pages WHERE slug = ?").pluck();
    const sources = cachedStatement(db, `${SOURCES_SQL} AND page_slug = ? ORDER BY ordinal`).raw();
    for (const slug of [...wanted].sort()) {
      bySlug.set(slug, { slug, rel_path: page.get(slug) as string, sources: [] });
      addSources(bySlug, sources.all(slug) as SourceRow[]);
    }
    return [...bySlug.values()];
  }
  const pages = db.prepare("SELECT slug, rel_path FROM pages ORDER BY slug").raw().all() as [string, string][];
  for (const [slug, rel_path] of pages) if (!wanted || wanted.has(slug)) bySlug.set(slug, { slug, rel_path, sources: [] });
  addSources(bySlug, db.prepare(`${SOURCES_SQL} ORDER BY page_slug, ordinal`).raw().all() as SourceRow[]);
  return [...bySlug.values()];
}

function addSources(bySlug: Map<string, PageEvidence>, rows: SourceRow[]): void {
  for (const [slug, source_id, target, lines, fingerprint, verified_at] of rows) {
    bySlug.get(slug)?.sources.push({ source_id, target, lines, fingerprint, verified_at });
  }
}

/** Each page's evidence digest (see wiki/evidence.ts), without reading its sources: what the drift cache is checked against. */
export function evidenceDigests(db: Db, slugs: readonly string[] = []): Map<string, string> {
  if (slugs.length > 0) {
    const one = cachedStatement(db, "SELECT evidence_digest FROM pages WHERE slug = ?").pluck();
    return new Map(slugs.map((input) => resolveSlug(db, input)).map((slug) => [slug, one.get(slug) as string]));
  }
  return new Map(db.prepare("SELECT slug, evidence_digest FROM pages ORDER BY slug").raw().all() as [string, string][]);
}
