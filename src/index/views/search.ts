import { isDirectory } from "../../core/fs.js";
import { join } from "node:path";
import type { Db } from "../../core/sqlite.js";
import { kebab } from "../../core/kebab.js";
import { normalizeRefPath } from "../../wiki/file-refs.js";
import { descendantsOf } from "./topic-graph.js";
import { excerpter, queryTokens } from "./query.js";
import { SECTION_SLOTS } from "../layout.js";
import { trace } from "../../core/trace.js";

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
  repositoryRoot: string;
}

interface Row {
  slug: string;
  title: string;
  summary: string | null;
  rel_path: string;
  updated_at: number;
  topics_json: string;
  sid?: number;
  heading?: string;
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
  const bodies = tokens.length > 0 ? sectionBodies(db, rows) : new Map<number, string>();
  const excerpt = tokens.length > 0 ? excerpter(tokens) : null;
  const hits = rows.map((row) => ({
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    file_path: join(ctx.almanacPath, row.rel_path),
    updated_at: row.updated_at,
    topics: JSON.parse(row.topics_json) as string[],
    matched_heading: row.heading ?? null,
    excerpt: row.sid !== undefined && excerpt ? excerpt(bodies.get(row.sid) ?? "") : null,
  }));
  return { hits, total };
}

/**
 * Text mode. FTS5 scores every matching section (BM25: title 5, heading 3, body 1);
 * the best section of each page represents it. Section rowids encode their page, so the
 * grouping needs no join, and page rows are read only for the pages that are returned.
 */
function rankedPages(ctx: SearchContext, tokens: string[], filter: Filter, limit: number): { rows: Row[]; total: number } {
  const { db } = ctx;
  const match = tokens.map((t) => `"${t.replace(/"/g, '""')}"*`).join(" OR ");
  const hits = db
    .prepare("SELECT rowid, bm25(sections_fts, 5.0, 3.0, 1.0) FROM sections_fts WHERE sections_fts MATCH ?")
    .raw()
    .all(match) as [number, number][];
  trace(`search: ${hits.length} section hits`);
  // Best section per page: lower score wins, then the earlier section.
  const bestRow = new Map<number, number>();
  const bestScore = new Map<number, number>();
  for (const [rowid, score] of hits) {
    const page = Math.floor(rowid / SECTION_SLOTS);
    const seen = bestScore.get(page);
    if (seen === undefined || score < seen || (score === seen && rowid < bestRow.get(page)!)) {
      bestScore.set(page, score);
      bestRow.set(page, rowid);
    }
  }
  let candidates = [...bestScore.keys()];
  if (filter.active) {
    const allowed = new Set(
      db.prepare(`SELECT p.id FROM pages p WHERE ${filter.sql}`).pluck().all(...filter.params) as number[],
    );
    candidates = candidates.filter((page) => allowed.has(page));
  }
  const total = candidates.length;
  // Only the best `limit` pages need their rows; ties at the cut are kept, because recency
  // and slug break them below.
  if (total > limit) {
    const scores = Float64Array.from(candidates, (page) => bestScore.get(page)!).sort();
    const cut = limit === 0 ? -Infinity : scores[limit - 1]!;
    candidates = candidates.filter((page) => bestScore.get(page)! <= cut);
  }
  const ranked = candidates.map((page) => ({ page, rowid: bestRow.get(page)!, score: bestScore.get(page)! }));
  trace(`search: ${ranked.length} pages ranked`);
  const pages = new Map(
    (
      db
        .prepare(
          "SELECT id, slug, title, summary, rel_path, updated_at, topics_json FROM pages WHERE id IN (SELECT value FROM json_each(?))",
        )
        .all(JSON.stringify(ranked.map((r) => r.page))) as (Row & { id: number })[]
    ).map((p) => [p.id, p]),
  );
  const headings = new Map(
    (
      db
        .prepare("SELECT id, heading FROM sections WHERE id IN (SELECT value FROM json_each(?))")
        .raw()
        .all(JSON.stringify(ranked.map((r) => r.rowid))) as [number, string][]
    ).map(([id, heading]) => [id, heading]),
  );
  const rows = ranked
    .map((r) => ({ r, page: pages.get(r.page) }))
    .filter((x): x is { r: (typeof ranked)[number]; page: Row & { id: number } } => x.page !== undefined)
    .sort(
      (a, b) =>
        a.r.score - b.r.score ||
        b.page.updated_at - a.page.updated_at ||
        (a.page.slug < b.page.slug ? -1 : a.page.slug > b.page.slug ? 1 : 0),
    )
    .map(({ r, page }) => ({ ...page, sid: r.rowid, heading: headings.get(r.rowid) ?? "" }));
  return { rows: Number.isFinite(limit) ? rows.slice(0, limit) : rows, total };
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
      if (!isDir && isDirectory(join(ctx.repositoryRoot, shape))) {
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

function sectionBodies(db: Db, rows: Row[]): Map<number, string> {
  const ids = rows.map((r) => r.sid).filter((id): id is number => id !== undefined);
  if (ids.length === 0) return new Map();
  const found = db
    .prepare("SELECT id, body FROM sections WHERE id IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(ids)) as { id: number; body: string }[];
  return new Map(found.map((r) => [r.id, r.body]));
}
