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
  /** How the pages were ranked (for tests and traces): the answer is the same either way. */
  ranking: Ranking;
}

/** recency: no query words; any-word: every matching section scored; all-words and rarest-word: see rankedPages. */
type Ranking = "recency" | "any-word" | "all-words" | "rarest-word";

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

/** The hits alone, for a caller that shows no total: a bounded answer may then skip counting. */
export function searchHits(ctx: SearchContext, request: SearchRequest): SearchHit[] {
  return search(ctx, request, false).hits;
}

export function searchPages(ctx: SearchContext, request: SearchRequest): SearchResult {
  return search(ctx, request, true) as SearchResult;
}

function search(ctx: SearchContext, request: SearchRequest, countTotal: boolean): Omit<SearchResult, "total"> & { total: number | null } {
  const { db } = ctx;
  const filter = pageFilter(ctx, request);
  const limit = request.limit ?? Infinity;
  const tokens = queryTokens(request.query ?? "");
  let rows: Row[];
  let total: number | null;
  let ranking: Ranking = "recency";
  if (tokens.length === 0) {
    rows = db
      .prepare(
        `SELECT p.slug, p.title, p.summary, p.rel_path, p.updated_at, p.topics_json FROM pages p
         WHERE ${filter.sql} ORDER BY p.updated_at DESC, p.slug LIMIT ?`,
      )
      .all(...filter.params, Number.isFinite(limit) ? limit : -1) as Row[];
    total = rows.length < limit ? rows.length : (db.prepare(`SELECT COUNT(*) FROM pages p WHERE ${filter.sql}`).pluck().get(...filter.params) as number);
  } else {
    ({ rows, total, ranking } = rankedPages(ctx, tokens, filter, limit, countTotal));
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
  return { hits, total, ranking };
}

/**
 * Text mode. A query matches any of its words, as prefixes; FTS5 scores every matching
 * section (BM25: title 5, heading 3, body 1), and the best section of each page
 * represents it (ties: the earlier section). Scoring is most of a broad query's cost, so
 * a bounded query of several words first ranks only some of the sections, each scored
 * exactly as the full ranking scores it: those holding every word, then those holding its
 * rarest word. When the page at the cut scores better than any section left out can (see
 * `shareBounds`), no other section can change the answer, and the full ranking is
 * skipped. The answer is the same either way; see almanac/decisions/search-returns-the-best-50.md.
 */
function rankedPages(
  ctx: SearchContext,
  tokens: string[],
  filter: Filter,
  limit: number,
  countTotal: boolean,
): { rows: Row[]; total: number | null; ranking: Ranking } {
  const phrases = tokens.map((t) => `"${t.replace(/"/g, '""')}"*`);
  const anyWord = phrases.join(" OR ");
  if (Number.isFinite(limit) && limit > 0 && phrases.length > 1) {
    const shares = phraseShares(ctx.db, phrases);
    const total = () => (countTotal ? matchingPages(ctx.db, anyWord, filter) : null);
    // A section lacking one of the words scores less than the other words' shares can add up to.
    // Its phrases are the any-word query's, in the same order, so it scores each section the same.
    const best = rankedSections(ctx.db, phrases.join(" AND "), filter, limit);
    if (clearsBound(best, limit, shares.sum - shares.least)) {
      trace(`search: ${best.length} pages ranked by their sections holding every word`);
      return { rows: best, total: total(), ranking: "all-words" };
    }
    // A section lacking the rarest word scores less than the other words' shares can add up to.
    // Tried only when it scores at most about half the sections the full ranking would, so a
    // query it cannot settle costs at most half as much again.
    const rarest = shares.rows[shares.rarest]! * 2 <= shares.rows.reduce((a, b) => a + b, 0) ? rankedSections(ctx.db, anyWord, filter, limit, phrases[shares.rarest]!) : [];
    if (clearsBound(rarest, limit, shares.sum - shares.most)) {
      trace(`search: ${rarest.length} pages ranked by their sections holding the rarest word`);
      return { rows: rarest, total: total(), ranking: "rarest-word" };
    }
  }
  const rows = rankedSections(ctx.db, anyWord, filter, limit);
  trace(`search: ${rows.length} pages ranked`);
  return { rows: limit === 0 ? [] : rows, total: rows[0]?.total ?? 0, ranking: "any-word" };
}

/** A full page of rows whose cut scores better than `bound` (scores are negated BM25). A margin covers rounding. */
function clearsBound(rows: RankedRow[], limit: number, bound: number): boolean {
  const cut = rows.at(-1);
  return rows.length === limit && cut !== undefined && -cut.score > bound * (1 + 1e-9) + 1e-12;
}

/**
 * One statement: scores every section matching `match` and keeps each page's best score
 * (a grouping, far cheaper than a window over every hit), keeps the pages that can make
 * the cut (ties at the cut included, because recency and slug break them), and only for
 * those finds the best section (ties: the earlier one), among the few hits scoring as
 * well as the cut, and joins page and heading rows.
 * Section rowids encode their page, so grouping needs no join.
 */
function rankedSections(db: Db, match: string, filter: Filter, limit: number, within?: string): RankedRow[] {
  const bounded = Number.isFinite(limit);
  const take = bounded ? Math.max(limit, 1) : -1;
  // Only the sections `within` matches are scored, and each as `match` scores it.
  // `+rowid`: a filter on the matches, never a lookup FTS5 would run the whole query for per rowid.
  const only = within === undefined ? "" : "AND +rowid IN (SELECT rowid FROM sections_fts WHERE sections_fts MATCH ?)";
  return db
    .prepare(
      `WITH hits AS MATERIALIZED (
         SELECT rowid AS sid, bm25(sections_fts, ${BM25_WEIGHTS.join(", ")}) AS score FROM sections_fts WHERE sections_fts MATCH ? ${only}
       ),
       best AS MATERIALIZED (
         SELECT sid / ${SECTION_SLOTS} AS page, min(score) AS score FROM hits GROUP BY 1
         ${filter.active ? `HAVING page IN (SELECT p.id FROM pages p WHERE ${filter.sql})` : ""}
       ),
       top AS MATERIALIZED (
         SELECT page, score FROM best
         ${bounded ? "WHERE score <= coalesce((SELECT score FROM best ORDER BY score LIMIT 1 OFFSET ?), 1e308)" : ""}
       ),
       near AS MATERIALIZED (SELECT sid, score FROM hits WHERE score <= (SELECT max(score) FROM top)),
       pick AS MATERIALIZED (
         SELECT t.page, t.score, min(n.sid) AS sid FROM top t JOIN near n ON n.sid / ${SECTION_SLOTS} = t.page AND n.score = t.score
         GROUP BY t.page
       )
       SELECT p.slug, p.title, p.summary, p.rel_path, p.updated_at, p.topics_json, b.sid, coalesce(s.heading, '') AS heading,
              s.body_start, s.body_end, f.size, f.mtime_ms, b.score, (SELECT count(*) FROM best) AS total
       FROM pick b JOIN pages p ON p.id = b.page LEFT JOIN sections s ON s.id = b.sid LEFT JOIN files f ON f.rel_path = p.rel_path
       ORDER BY b.score, p.updated_at DESC, p.slug
       LIMIT ?`,
    )
    .all(match, ...(within === undefined ? [] : [within]), ...(filter.active ? filter.params : []), ...(bounded ? [take - 1] : []), take) as RankedRow[];
}

type RankedRow = Row & { score: number; total: number };

/** Pages with a section matching `match` (the total a bounded answer reports). */
function matchingPages(db: Db, match: string, filter: Filter): number {
  return db
    .prepare(
      `SELECT count(*) FROM (SELECT DISTINCT rowid / ${SECTION_SLOTS} AS page FROM sections_fts WHERE sections_fts MATCH ?)
       ${filter.active ? `WHERE page IN (SELECT p.id FROM pages p WHERE ${filter.sql})` : ""}`,
    )
    .pluck()
    .get(match, ...(filter.active ? filter.params : [])) as number;
}

/** Page title, heading and body weights of the search score. */
const BM25_WEIGHTS = [5.0, 3.0, 1.0];
/** FTS5's BM25 constants (fts5_aux.c): k1 = 1.2, b = 0.75. */
const BM25_K1 = 1.2;

/**
 * Each phrase's most, and their sum: FTS5's BM25 adds, for each phrase a section holds,
 * idf × f × (k1 + 1) / (f + k1 × (1 − b + b × length / average)), where f is the phrase's
 * weighted count in the section; the fraction is below 1 however large f is, so a phrase
 * adds less than its share, idf × (k1 + 1). A section lacking a phrase scores less than
 * the sum of the other shares. idf is FTS5's own: ln((N − n + 0.5) / (n + 0.5)) over N
 * search rows, n of them holding the phrase, and 1e-6 where that is not positive.
 * `rarest` is the index of the phrase with the largest share; `rows` how many search rows
 * hold each phrase.
 */
function phraseShares(db: Db, phrases: string[]): { sum: number; least: number; most: number; rarest: number; rows: number[] } {
  const total = db.prepare("SELECT count(*) FROM sections").pluck().get() as number;
  const count = db.prepare("SELECT count(*) FROM sections_fts WHERE sections_fts MATCH ?").pluck();
  const rows = phrases.map((phrase) => count.get(phrase) as number);
  const shares = rows.map((n) => {
    const idf = Math.log((total - n + 0.5) / (n + 0.5));
    return (idf > 0 ? idf : 1e-6) * (BM25_K1 + 1);
  });
  const most = Math.max(...shares);
  return { sum: shares.reduce((a, b) => a + b, 0), least: Math.min(...shares), most, rarest: shares.indexOf(most), rows };
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

