import { isDirectoryWithin } from "../../core/fs.js";
import { join } from "node:path";
import type { Db } from "../../core/sqlite.js";
import { kebab } from "../../core/kebab.js";
import { normalizeRefPath } from "../../wiki/file-refs.js";
import { descendantsOf } from "./topic-graph.js";
import { excerpter, queryTokens } from "./query.js";
import { SECTION_SLOTS } from "../layout.js";
import { trace } from "../../core/trace.js";
import { sectionText, type SectionRef } from "./section-text.js";
import type { PageRow } from "./viewer.js";

export interface SearchRequest {
  query?: string;
  topics?: string[];
  mentions?: string;
  limit?: number;
}

export interface SearchHit {
  slug: string;
  title: string | null;
  summary: string | null;
  file_path: string;
  updated_at: number;
  topics: string[];
  matched_heading: string | null;
  excerpt: string | null;
}

export interface SearchResult {
  hits: SearchHit[];
  /** Pages that matched before the limit was applied. */
  total: number;
}

export interface SearchContext {
  db: Db;
  almanacPath: string;
  /** almanac/'s real path: excerpts are read only from files really inside it. */
  wikiRoot: string;
  repositoryRoot: string;
}

/** The page columns every list reads, plus the section that matched. */
interface Row extends PageRow {
  sid?: number;
  heading?: string;
  /** Where the matched section's text lies in the page file, and the file's stat as indexed. */
  body_start?: number | null;
  body_end?: number | null;
  size?: number | null;
  mtime_ms?: number | null;
}

export function searchPages(ctx: SearchContext, request: SearchRequest): SearchResult {
  const { db } = ctx;
  const filter = pageFilter(ctx, request);
  const limit = request.limit ?? Infinity;
  const tokens = queryTokens(request.query ?? "");
  let rows: Row[];
  let total: number;
  if (tokens.length === 0) {
    rows = db
      .prepare(
        `SELECT p.slug, p.title, p.summary, p.rel_path, p.updated_at, p.topics_json FROM pages p
         WHERE ${filter.sql} ORDER BY p.updated_at DESC, p.slug LIMIT ?`,
      )
      .all(...filter.params, Number.isFinite(limit) ? limit : -1) as Row[];
    total = rows.length < limit ? rows.length : (db.prepare(`SELECT COUNT(*) FROM pages p WHERE ${filter.sql}`).pluck().get(...filter.params) as number);
  } else {
    ({ rows, total } = rankedPages(ctx, tokens, filter, limit));
  }
  trace("search: rows");
  const excerpt = tokens.length > 0 ? excerpter(tokens) : null;
  const hits = rows.map((row) => ({
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    file_path: join(ctx.almanacPath, row.rel_path),
    updated_at: row.updated_at,
    topics: JSON.parse(row.topics_json) as string[],
    matched_heading: row.heading ?? null,
    excerpt: row.sid !== undefined && excerpt ? excerpt(sectionText(ctx.almanacPath, ctx.wikiRoot, row as SectionRef)) : null,
  }));
  return { hits, total };
}

/**
 * Text mode, in one statement. FTS5 scores every matching section (BM25: title 5,
 * heading 3, body 1), and the best section of each page represents it (ties: the earlier
 * section). Section rowids encode their page, so grouping needs no join; page and heading
 * rows are read only for pages that can make the cut (ties at the cut included, because
 * recency and slug break them).
 */
function rankedPages(ctx: SearchContext, tokens: string[], filter: Filter, limit: number): { rows: Row[]; total: number } {
  const match = tokens.map((t) => `"${t.replace(/"/g, '""')}"*`).join(" OR ");
  const bounded = Number.isFinite(limit);
  const take = bounded ? Math.max(limit, 1) : -1;
  const rows = ctx.db
    .prepare(
      `WITH hits AS MATERIALIZED (
         SELECT rowid AS sid, bm25(sections_fts, 5.0, 3.0, 1.0) AS score FROM sections_fts WHERE sections_fts MATCH ?
       ),
       best AS MATERIALIZED (
         SELECT page, sid, score, count(*) OVER () AS total FROM (
           SELECT sid / ${SECTION_SLOTS} AS page, sid, score,
                  row_number() OVER (PARTITION BY sid / ${SECTION_SLOTS} ORDER BY score, sid) AS rn
           FROM hits
         )
         WHERE rn = 1 ${filter.active ? `AND page IN (SELECT p.id FROM pages p WHERE ${filter.sql})` : ""}
       )
       SELECT p.slug, p.title, p.summary, p.rel_path, p.updated_at, p.topics_json, b.sid, coalesce(s.heading, '') AS heading,
              s.body_start, s.body_end, f.size, f.mtime_ms, b.total
       FROM best b JOIN pages p ON p.id = b.page LEFT JOIN sections s ON s.id = b.sid LEFT JOIN files f ON f.rel_path = p.rel_path
       ${bounded ? "WHERE b.score <= coalesce((SELECT score FROM best ORDER BY score LIMIT 1 OFFSET ?), 1e308)" : ""}
       ORDER BY b.score, p.updated_at DESC, p.slug
       LIMIT ?`,
    )
    .all(match, ...(filter.active ? filter.params : []), ...(bounded ? [take - 1] : []), take) as (Row & { total: number })[];
  trace(`search: ${rows.length} pages ranked`);
  const total = rows[0]?.total ?? 0;
  return { rows: limit === 0 ? [] : rows, total };
}

interface Filter {
  sql: string;
  params: unknown[];
  /** False when no filter was asked for. */
  active: boolean;
}

function pageFilter(ctx: SearchContext, request: SearchRequest): Filter {
  const clauses: string[] = ["1 = 1"];
  const params: unknown[] = [];
  const wantedTopics = [...new Set((request.topics ?? []).map(kebab).filter((t) => t !== ""))];
  for (const topic of wantedTopics) {
    // A page tagged with a narrower topic belongs to its broader ancestors too.
    const family = [topic, ...descendantsOf(ctx.db, topic)];
    clauses.push(`p.slug IN (SELECT page_slug FROM page_topics WHERE topic IN (SELECT value FROM json_each(?)))`);
    params.push(JSON.stringify(family));
  }
  const mention = request.mentions?.trim();
  if (mention) {
    const normalized = normalizeRefPath(mention);
    if (!normalized) {
      clauses.push("0");
    } else {
      let { shape, isDir } = normalized;
      if (!isDir && isDirectoryWithin(join(ctx.repositoryRoot, shape), ctx.repositoryRoot)) {
        isDir = true;
        shape = `${shape}/`;
      }
      const path = shape.toLowerCase();
      if (isDir) {
        clauses.push(
          `EXISTS (SELECT 1 FROM file_refs f WHERE f.page_slug = p.slug AND (f.path = ? OR substr(f.path, 1, ?) = ?))`,
        );
        params.push(path, path.length, path);
      } else {
        const ancestors = ancestorDirs(path);
        clauses.push(
          `EXISTS (SELECT 1 FROM file_refs f WHERE f.page_slug = p.slug AND ((f.path = ? AND f.is_dir = 0) OR (f.is_dir = 1 AND f.path IN (SELECT value FROM json_each(?)))))`,
        );
        params.push(path, JSON.stringify(ancestors));
      }
    }
  }
  return { sql: clauses.join(" AND "), params, active: clauses.length > 1 };
}

function ancestorDirs(path: string): string[] {
  const parts = path.split("/");
  const dirs: string[] = [];
  for (let i = 1; i < parts.length; i++) dirs.push(parts.slice(0, i).join("/") + "/");
  return dirs;
}

export function topicsFor(db: Db, slugs: string[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  if (slugs.length === 0) return map;
  const rows = db
    .prepare(
      `SELECT page_slug, topic FROM page_topics WHERE page_slug IN (SELECT value FROM json_each(?)) ORDER BY page_slug, topic`,
    )
    .all(JSON.stringify(slugs)) as { page_slug: string; topic: string }[];
  for (const row of rows) {
    const list = map.get(row.page_slug);
    if (list) list.push(row.topic);
    else map.set(row.page_slug, [row.topic]);
  }
  return map;
}

