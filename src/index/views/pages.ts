import { readFileSync } from "node:fs";
import { join } from "node:path";
import { splitFrontmatter } from "../../wiki/frontmatter.js";
import { MAX_INDEXED_CHARS } from "../layout.js";
import type { Db } from "../../core/sqlite.js";
import { ProductError, invalid } from "../../core/errors.js";
import { topicsFor } from "./search.js";
import { similarityAtLeast } from "../../core/similarity.js";

export interface PageSourceView {
  source_id: string;
  source_type: string;
  target: string | null;
  title: string | null;
  retrieved_at: string | null;
  note: string | null;
}

export interface PageView {
  slug: string;
  title: string | null;
  summary: string | null;
  file_path: string;
  updated_at: number;
  topics: string[];
  sources: PageSourceView[];
  file_refs: { path: string; is_dir: boolean }[];
  page_links_out: string[];
  page_links_in: string[];
  cross_wiki_links: { wiki: string; target: string }[];
  body: string;
}

interface PageRow {
  slug: string;
  title: string;
  summary: string | null;
  rel_path: string;
  updated_at: number;
}

/**
 * Finds a page by slug, forgiving the usual slips: a `.md` suffix, an `almanac/`
 * prefix, a trailing slash or different letter case. Unknown slugs suggest neighbours.
 */
export function resolveSlug(db: Db, input: string): string {
  const raw = input.trim();
  if (raw === "") throw invalid("page slug must not be empty");
  const exists = db.prepare("SELECT 1 FROM pages WHERE slug = ?").pluck();
  if (exists.get(raw)) return raw;
  let cleaned = raw.replace(/\\/g, "/").replace(/^\.\//, "").replace(/^almanac\//, "").replace(/\/+$/, "");
  cleaned = cleaned.replace(/\/README\.md$/, "").replace(/\.md$/, "");
  if (cleaned === "" || cleaned === "README.md") cleaned = "README";
  if (exists.get(cleaned)) return cleaned;
  const folded = db.prepare("SELECT slug FROM pages WHERE slug = ? COLLATE NOCASE").pluck().all(cleaned) as string[];
  if (folded.length === 1) return folded[0]!;
  const suggestions = suggestSlugs(db, cleaned);
  const hint = suggestions.length > 0 ? ` (did you mean ${suggestions.join(", ")}?)` : "";
  throw new ProductError("not_found", `page not found: ${raw}${hint}`);
}

const SUGGESTION_MIN = 0.6;

function suggestSlugs(db: Db, wanted: string): string[] {
  const whole = wanted.toLowerCase();
  const last = whole.slice(whole.lastIndexOf("/") + 1);
  const slugs = db.prepare("SELECT slug FROM pages").pluck().all() as string[];
  const scored: { slug: string; score: number }[] = [];
  for (const slug of slugs) {
    const lower = slug.toLowerCase();
    const tail = lower.slice(lower.lastIndexOf("/") + 1);
    let score = Math.max(similarityAtLeast(last, tail, SUGGESTION_MIN), similarityAtLeast(whole, lower, SUGGESTION_MIN));
    if (tail.includes(last) && last.length >= 3) score = Math.max(score, 0.8);
    if (score >= SUGGESTION_MIN) scored.push({ slug, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.slug < b.slug ? -1 : 1));
  return scored.slice(0, 3).map((s) => s.slug);
}

export function showPage(db: Db, almanacPath: string, input: string): PageView {
  const slug = resolveSlug(db, input);
  const row = db
    .prepare("SELECT slug, title, summary, rel_path, updated_at FROM pages WHERE slug = ?")
    .get(slug) as PageRow;
  const sources = db
    .prepare(
      "SELECT source_id, source_type, target, title, retrieved_at, note FROM page_sources WHERE page_slug = ? ORDER BY ordinal",
    )
    .all(slug) as PageSourceView[];
  const refs = db
    .prepare("SELECT original_path AS path, is_dir FROM file_refs WHERE page_slug = ? ORDER BY original_path, is_dir")
    .all(slug) as { path: string; is_dir: number }[];
  const out = db.prepare("SELECT target_slug FROM page_links WHERE source_slug = ? ORDER BY target_slug").pluck().all(slug) as string[];
  const inbound = db
    .prepare("SELECT source_slug FROM page_links WHERE target_slug = ? ORDER BY source_slug")
    .pluck()
    .all(slug) as string[];
  return {
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    file_path: join(almanacPath, row.rel_path),
    updated_at: row.updated_at,
    topics: topicsFor(db, [slug]).get(slug) ?? [],
    sources,
    file_refs: refs.map((r) => ({ path: r.path, is_dir: r.is_dir === 1 })),
    page_links_out: out,
    page_links_in: inbound,
    cross_wiki_links: [],
    body: readBody(join(almanacPath, row.rel_path)),
  };
}

/** The first paragraph of the body, skipping a leading heading (the reference returned the H1). */
export function leadOf(body: string): string {
  const blocks = body.split(/\n\s*\n/).map((b) => b.trim()).filter((b) => b !== "");
  const lead = blocks.find((b) => !/^#{1,6}\s/.test(b) && !/^(```|~~~)/.test(b));
  return lead ?? blocks[0] ?? "";
}

/**
 * The body is read from the page itself (the index keeps only its sections), right
 * after the refresh that found the file unchanged.
 */
function readBody(path: string): string {
  try {
    const text = readFileSync(path, "utf8").slice(0, MAX_INDEXED_CHARS);
    return splitFrontmatter(text).body.trim();
  } catch {
    return "";
  }
}

/** Each indexed page's content hash, by slug: compared before and after a run to tell what it changed. */
export function pageFingerprints(db: Db): Map<string, string> {
  const rows = db
    .prepare("SELECT p.slug, f.content_hash FROM pages p JOIN files f ON f.rel_path = p.rel_path")
    .all() as { slug: string; content_hash: string }[];
  return new Map(rows.map((row) => [row.slug, row.content_hash]));
}

/** Pages created, updated (content changed) and deleted between two fingerprint sets, each sorted. */
export function diffPages(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): { created: string[]; updated: string[]; deleted: string[] } {
  const created: string[] = [];
  const updated: string[] = [];
  const deleted: string[] = [];
  for (const [slug, hash] of after) {
    const previous = before.get(slug);
    if (previous === undefined) created.push(slug);
    else if (previous !== hash) updated.push(slug);
  }
  for (const slug of before.keys()) if (!after.has(slug)) deleted.push(slug);
  return { created: created.sort(), updated: updated.sort(), deleted: deleted.sort() };
}
