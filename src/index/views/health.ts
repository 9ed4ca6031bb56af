import { statSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../core/sqlite.js";

export interface HealthReport {
  orphans: { slug: string }[];
  dead_refs: { slug: string; path: string }[];
  broken_links: { source_slug: string; target_slug: string }[];
  broken_xwiki: { source_slug: string; target_wiki: string; target_slug: string }[];
  empty_topics: { slug: string }[];
  empty_pages: { slug: string }[];
  missing_source_citations: { slug: string; source_id: string }[];
  unused_sources: { slug: string; source_id: string }[];
  duplicate_sources: { slug: string; source_id: string }[];
}

export function healthReport(db: Db, repositoryRoot: string): HealthReport {
  return {
    orphans: db
      .prepare("SELECT slug FROM pages p WHERE NOT EXISTS (SELECT 1 FROM page_topics t WHERE t.page_slug = p.slug) ORDER BY slug")
      .all() as { slug: string }[],
    dead_refs: deadRefs(db, repositoryRoot),
    broken_links: db
      .prepare(
        `SELECT source_slug, target_slug FROM page_links l
         WHERE NOT EXISTS (SELECT 1 FROM pages p WHERE p.slug = l.target_slug)
         ORDER BY source_slug, target_slug`,
      )
      .all() as { source_slug: string; target_slug: string }[],
    broken_xwiki: [],
    empty_topics: emptyTopics(db).map((slug) => ({ slug })),
    empty_pages: db.prepare("SELECT slug FROM pages WHERE empty_body = 1 ORDER BY slug").all() as { slug: string }[],
    missing_source_citations: db
      .prepare(
        `SELECT c.page_slug AS slug, c.source_id FROM page_citations c
         WHERE NOT EXISTS (SELECT 1 FROM page_sources s WHERE s.page_slug = c.page_slug AND s.source_id = c.source_id)
         ORDER BY c.page_slug, c.source_id`,
      )
      .all() as { slug: string; source_id: string }[],
    unused_sources: db
      .prepare(
        `SELECT DISTINCT s.page_slug AS slug, s.source_id FROM page_sources s
         WHERE NOT EXISTS (SELECT 1 FROM page_citations c WHERE c.page_slug = s.page_slug AND c.source_id = s.source_id)
         ORDER BY s.page_slug, s.source_id`,
      )
      .all() as { slug: string; source_id: string }[],
    duplicate_sources: db
      .prepare(
        `SELECT page_slug AS slug, source_id FROM page_sources GROUP BY page_slug, source_id HAVING COUNT(*) > 1
         ORDER BY page_slug, source_id`,
      )
      .all() as { slug: string; source_id: string }[],
  };
}

function deadRefs(db: Db, root: string): { slug: string; path: string }[] {
  const refs = db
    .prepare("SELECT page_slug AS slug, original_path AS path, is_dir FROM file_refs ORDER BY page_slug, original_path")
    .all() as { slug: string; path: string; is_dir: number }[];
  const cache = new Map<string, "file" | "dir" | "none">();
  const kind = (path: string) => {
    let k = cache.get(path);
    if (!k) {
      try {
        const s = statSync(join(root, path));
        k = s.isDirectory() ? "dir" : s.isFile() ? "file" : "none";
      } catch {
        k = "none";
      }
      cache.set(path, k);
    }
    return k;
  };
  return refs
    .filter((r) => kind(r.is_dir ? r.path.replace(/\/$/, "") : r.path) !== (r.is_dir ? "dir" : "file"))
    .map((r) => ({ slug: r.slug, path: r.path }));
}

/** A topic is empty only when neither it nor any topic below it has pages. */
function emptyTopics(db: Db): string[] {
  const all = db.prepare("SELECT slug FROM topics ORDER BY slug").pluck().all() as string[];
  const withPages = new Set(db.prepare("SELECT DISTINCT topic FROM page_topics").pluck().all() as string[]);
  const parents = db.prepare("SELECT child, parent FROM topic_parents").all() as { child: string; parent: string }[];
  const up = new Map<string, string[]>();
  for (const { child, parent } of parents) {
    const list = up.get(child);
    if (list) list.push(parent);
    else up.set(child, [parent]);
  }
  const nonEmpty = new Set<string>();
  const stack = [...withPages];
  while (stack.length > 0) {
    const slug = stack.pop()!;
    if (nonEmpty.has(slug)) continue;
    nonEmpty.add(slug);
    for (const parent of up.get(slug) ?? []) stack.push(parent);
  }
  return all.filter((slug) => !nonEmpty.has(slug));
}
