import { isDirectoryWithin } from "../../core/fs.js";
import { join } from "node:path";
import { cachedStatement, type Db } from "../../core/sqlite.js";
import { kebab } from "../../core/kebab.js";
import { normalizeRefPath } from "../../wiki/file-refs.js";
import { descendantsOf } from "./topic-graph.js";
import { excerpter, queryTokens } from "./query.js";
import { SECTION_SLOTS } from "../layout.js";
import { postingsWithPrefix, readSearchTotals, type WordPostings } from "../postings.js";
import { walkSections, type BestSections } from "../postings-decoder.js";
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

/** The hits alone, for a caller that shows no total. */
export function searchHits(ctx: SearchContext, request: SearchRequest): SearchHit[] {
  return searchPages(ctx, request).hits;
}

export function searchPages(ctx: SearchContext, request: SearchRequest): SearchResult {
  const { db } = ctx;
  trace("search: start");
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
 * Text mode. A query matches any of its words, as prefixes; every matching section is
 * scored by BM25 over its weighted counts (title 5, heading 3, body 1; see `bm25`), and
 * the best section of each page represents it (ties: the earlier section). Pages rank by
 * score, then recency, then slug. The postings (src/index/postings.ts) are scored here in
 * one pass in rowid order, which is page order, so no section is visited twice.
 * See almanac/decisions/search-returns-the-best-50.md.
 */
function rankedPages(
  ctx: SearchContext,
  tokens: string[],
  filter: Filter,
  limit: number,
): { rows: Row[]; total: number } {
  const phrases = tokens.map((token) => postingsWithPrefix(ctx.db, token));
  const allowed = filter.active ? allowedPages(ctx.db, filter) : null;
  const best = bestSections(phrases, bm25(ctx.db, phrases), allowed);
  trace(`search: ${best.pages.length} pages scored`);
  const total = best.pages.length;
  if (total === 0 || limit === 0) return { rows: [], total };
  // The pages that can make the cut: ties at the cut too, because recency and slug break them.
  const cut = Number.isFinite(limit) && total > limit ? smallest(best.scores, limit) : Infinity;
  const picked: [page: number, score: number, section: number][] = [];
  for (let i = 0; i < total; i++) if (best.scores[i]! <= cut) picked.push([best.pages[i]!, best.scores[i]!, best.sections[i]!]);
  // Scores go to SQL as ranks (equal scores, equal rank): integers survive JSON exactly.
  picked.sort((x, y) => x[1] - y[1]);
  let rank = 0;
  const ranked = picked.map(([page, score, section], i) => [page, i > 0 && score !== picked[i - 1]![1] ? ++rank : rank, section]);
  const rows = cachedStatement(
    ctx.db,
    `WITH pick(page, score, sid) AS MATERIALIZED (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?))
       SELECT p.slug, p.title, p.summary, p.rel_path, p.updated_at, p.topics_json, b.sid, coalesce(s.heading, '') AS heading,
              s.body_start, s.body_end, f.size, f.mtime_ms
       FROM pick b JOIN pages p ON p.id = b.page LEFT JOIN sections s ON s.id = b.sid LEFT JOIN files f ON f.rel_path = p.rel_path
       ORDER BY b.score, p.updated_at DESC, p.slug
       LIMIT ?`,
  ).all(JSON.stringify(ranked), Number.isFinite(limit) ? limit : -1) as Row[];
  trace(`search: ${rows.length} pages ranked`);
  return { rows, total };
}

/**
 * FTS5's BM25, which ranked search before the index kept its own postings, computed the
 * same way so rankings stayed the same: a section scores, for each word it holds,
 * idf × f × (k1 + 1) / (f + k1 × (1 − b + b × length / average length)), summed in the
 * query's word order and negated (lower is better), with k1 = 1.2, b = 0.75, f the word's
 * weighted count and idf = ln((N − n + 0.5) / (n + 0.5)) over N sections, n of them
 * holding the word (1e-6 where that is not positive). The logarithms come from SQLite, as
 * FTS5's did, so they agree to the last bit.
 */
function bm25(db: Db, phrases: WordPostings[]): { idf: number[]; average: number } {
  const totals = readSearchTotals(db);
  const n = totals.sections;
  const ln = cachedStatement(db, "SELECT ln((? - ? + 0.5) / (? + 0.5))").pluck();
  const idf = phrases.map((p) => {
    const value = ln.get(n, p.count, p.count) as number | null;
    return value !== null && value > 0 ? value : 1e-6;
  });
  return { idf, average: totals.terms / n };
}

const K1 = 1.2;
const B = 0.75;

/**
 * Each page's best section and its score, in page order, over the allowed pages: the
 * words' postings walked together in rowid order, each section scored once (see `bm25`).
 * The walk runs in WebAssembly (src/index/postings.wat), because a CLI search runs it
 * once, in code that never warms up. Skipping a page's sections or dropping the page
 * afterwards comes to the same, so the filter applies to what the walk returns.
 */
function bestSections(phrases: WordPostings[], { idf, average }: { idf: number[]; average: number }, allowed: Set<number> | null): BestSections {
  const best = walkSections(phrases, { idf, average, k1: K1, b: B, slots: SECTION_SLOTS });
  if (!allowed) return best;
  const keep: number[] = [];
  for (let i = 0; i < best.pages.length; i++) if (allowed.has(best.pages[i]!)) keep.push(i);
  return {
    pages: Int32Array.from(keep, (i) => best.pages[i]!),
    scores: Float64Array.from(keep, (i) => best.scores[i]!),
    sections: Float64Array.from(keep, (i) => best.sections[i]!),
  };
}

/** The `k`-th smallest of `values` (k ≥ 1, at most their number): a max-heap of the k smallest, not a sort of all. */
function smallest(values: Float64Array, k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  const down = (from: number) => {
    for (let i = from; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < size && heap[l]! > heap[top]!) top = l;
      if (r < size && heap[r]! > heap[top]!) top = r;
      if (top === i) return;
      [heap[i], heap[top]] = [heap[top]!, heap[i]!];
      i = top;
    }
  };
  for (const value of values) {
    if (size < k) {
      let i = size++;
      heap[i] = value;
      while (i > 0 && heap[(i - 1) >> 1]! < heap[i]!) {
        const parent = (i - 1) >> 1;
        [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
        i = parent;
      }
    } else if (value < heap[0]!) {
      heap[0] = value;
      down(0);
    }
  }
  return heap[0]!;
}

function allowedPages(db: Db, filter: Filter): Set<number> {
  return new Set(cachedStatement(db, `SELECT p.id FROM pages p WHERE ${filter.sql}`).pluck().all(...filter.params) as number[]);
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

