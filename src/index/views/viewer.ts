import type { Db } from "../../core/sqlite.js";

/**
 * Read-only queries over a wiki's index for the viewer's lists and graph, which the
 * other views here do not answer: summaries of many pages at once, every page in path
 * order, and the whole link and topic graph. Nothing here writes.
 */

export interface PageRow {
  slug: string;
  title: string;
  summary: string | null;
  rel_path: string;
  updated_at: number;
  topics_json: string;
}

const COLUMNS = "slug, title, summary, rel_path, updated_at, topics_json";

export function pagesBySlug(db: Db, slugs: readonly string[]): Map<string, PageRow> {
  if (slugs.length === 0) return new Map();
  const rows = db
    .prepare(`SELECT ${COLUMNS} FROM pages WHERE slug IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(slugs)) as PageRow[];
  return new Map(rows.map((row) => [row.slug, row]));
}

/** Every page, by its file path (folders group together, as in a file tree). */
export function pagesByPath(db: Db): PageRow[] {
  return db.prepare(`SELECT ${COLUMNS} FROM pages ORDER BY rel_path`).all() as PageRow[];
}

export function recentPages(db: Db, limit: number): PageRow[] {
  return db.prepare(`SELECT ${COLUMNS} FROM pages ORDER BY updated_at DESC, slug LIMIT ?`).all(limit) as PageRow[];
}

export interface GraphRows {
  pages: { slug: string; title: string }[];
  topics: { slug: string; title: string }[];
  links: { source: string; target: string }[];
  pageTopics: { page: string; topic: string }[];
  parents: { child: string; parent: string }[];
}

/** Links to pages that do not exist are left out: the graph shows what can be opened. */
export function graphRows(db: Db): GraphRows {
  return {
    pages: db.prepare("SELECT slug, title FROM pages ORDER BY slug").all() as GraphRows["pages"],
    topics: db.prepare("SELECT slug, title FROM topics ORDER BY slug").all() as GraphRows["topics"],
    links: db
      .prepare(
        `SELECT l.source_slug AS source, l.target_slug AS target FROM page_links l
         WHERE EXISTS (SELECT 1 FROM pages p WHERE p.slug = l.target_slug) ORDER BY source, target`,
      )
      .all() as GraphRows["links"],
    pageTopics: db.prepare("SELECT page_slug AS page, topic FROM page_topics ORDER BY page, topic").all() as GraphRows["pageTopics"],
    parents: db.prepare("SELECT child, parent FROM topic_parents ORDER BY child, parent").all() as GraphRows["parents"],
  };
}
