import { statSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../core/sqlite.js";
import { kebab } from "../../core/kebab.js";
import { normalizeRefPath } from "../../wiki/file-refs.js";
import { descendantsOf } from "./topic-graph.js";
import { excerptFor, queryTokens } from "./query.js";

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
  sid?: number;
  heading?: string;
}

export function searchPages(ctx: SearchContext, request: SearchRequest): SearchHit[] {
  const { db } = ctx;
  const filter = pageFilter(ctx, request);
  const limit = request.limit ?? -1;
  const tokens = queryTokens(request.query ?? "");
  let rows: Row[];
  if (tokens.length === 0) {
    rows = db
      .prepare(
        `SELECT p.slug, p.title, p.summary, p.rel_path, p.updated_at FROM pages p
         WHERE ${filter.sql} ORDER BY p.updated_at DESC, p.slug LIMIT ?`,
      )
      .all(...filter.params, limit) as Row[];
  } else {
    const match = tokens.map((t) => `"${t.replace(/"/g, '""')}"*`).join(" OR ");
    rows = db
      .prepare(
        `WITH hits AS (
           SELECT s.page_slug AS slug, s.id AS sid, s.ordinal AS ordinal, s.heading AS heading,
                  bm25(sections_fts, 5.0, 3.0, 1.0) AS score
           FROM sections_fts JOIN sections s ON s.id = sections_fts.rowid
           WHERE sections_fts MATCH ?
         ), best AS (
           SELECT slug, sid, heading, score,
                  ROW_NUMBER() OVER (PARTITION BY slug ORDER BY score, ordinal) AS rn
           FROM hits
         )
         SELECT p.slug, p.title, p.summary, p.rel_path, p.updated_at, best.sid, best.heading
         FROM best JOIN pages p ON p.slug = best.slug
         WHERE best.rn = 1 AND ${filter.sql}
         ORDER BY best.score, p.updated_at DESC, p.slug
         LIMIT ?`,
      )
      .all(match, ...filter.params, limit) as Row[];
  }
  const topics = topicsFor(db, rows.map((r) => r.slug));
  const bodies = tokens.length > 0 ? sectionBodies(db, rows) : new Map<number, string>();
  return rows.map((row) => ({
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    file_path: join(ctx.almanacPath, row.rel_path),
    updated_at: row.updated_at,
    topics: topics.get(row.slug) ?? [],
    matched_heading: row.heading ?? null,
    excerpt: row.sid !== undefined ? excerptFor(bodies.get(row.sid) ?? "", tokens) : null,
  }));
}

interface Filter {
  sql: string;
  params: unknown[];
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
  return { sql: clauses.join(" AND "), params };
}

function ancestorDirs(path: string): string[] {
  const parts = path.split("/");
  const dirs: string[] = [];
  for (let i = 1; i < parts.length; i++) dirs.push(parts.slice(0, i).join("/") + "/");
  return dirs;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
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
