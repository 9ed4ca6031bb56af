import { join } from "node:path";
import { splitFrontmatter } from "../../wiki/frontmatter.js";
import { readPageHead, truncationNote } from "../page-file.js";
import { cachedStatement, type Db } from "../../core/sqlite.js";
import { ProductError, invalid } from "../../core/errors.js";
import { topicsFor } from "./search.js";
import { closestSlugs } from "./slug-suggestions.js";

export interface PageSourceView {
  source_id: string;
  source_type: string;
  target: string | null;
  title: string | null;
  retrieved_at: string | null;
  note: string | null;
  /** A file source's cited lines (`40-88`), or null. */
  lines: string | null;
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
  /** The page file is over 2 MB and `body` comes from its first 2 MB only. */
  truncated: boolean;
  /** The page file's size in bytes, as read. */
  file_size: number;
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
  const found = lookupSlug(db, input);
  if ("missing" in found) throw found.missing;
  return found.slug;
}

/**
 * An unknown slug: the error to report, and every slug the answer depends on (the ones
 * tried, letter-case matches, suggestions), so a caller can check those pages' files are
 * as indexed before answering from the index without a refresh (src/index/miss.ts).
 */
export interface MissingSlug {
  missing: ProductError;
  involved: string[];
}

export function lookupSlug(db: Db, input: string): { slug: string } | MissingSlug {
  const raw = input.trim();
  if (raw === "") throw invalid("page slug must not be empty");
  const exists = cachedStatement(db, "SELECT 1 FROM pages WHERE slug = ?").pluck();
  if (exists.get(raw)) return { slug: raw };
  let cleaned = raw.replace(/\\/g, "/").replace(/^\.\//, "").replace(/^almanac\//, "").replace(/\/+$/, "");
  cleaned = cleaned.replace(/\/README\.md$/, "").replace(/\.md$/, "");
  if (cleaned === "" || cleaned === "README.md") cleaned = "README";
  if (exists.get(cleaned)) return { slug: cleaned };
  const folded = cachedStatement(db, "SELECT slug FROM pages WHERE slug = ? COLLATE NOCASE").pluck().all(cleaned) as string[];
  if (folded.length === 1) return { slug: folded[0]! };
  const suggestions = suggestSlugs(db, cleaned);
  return {
    missing: new PageNotFound(raw, suggestions),
    involved: [...new Set([raw, cleaned, ...folded, ...suggestions])],
  };
}

/** An unknown page slug; the message names the nearest slugs, which a viewer also links. */
export class PageNotFound extends ProductError {
  constructor(
    readonly slug: string,
    readonly suggestions: readonly string[],
  ) {
    super("not_found", `page not found: ${slug}${suggestions.length > 0 ? ` (did you mean ${suggestions.join(", ")}?)` : ""}`);
  }
}

function suggestSlugs(db: Db, wanted: string): string[] {
  return closestSlugs(cachedStatement(db, "SELECT slug FROM pages").pluck().all() as string[], wanted);
}

/** `wikiRoot` is almanac/'s real path: the page file is read only when it really lies inside it. */
export function showPage(db: Db, almanacPath: string, wikiRoot: string, input: string): PageView {
  const slug = resolveSlug(db, input);
  const row = db
    .prepare("SELECT slug, title, summary, rel_path, updated_at FROM pages WHERE slug = ?")
    .get(slug) as PageRow;
  const sources = db
    .prepare(
      "SELECT source_id, source_type, target, title, retrieved_at, note, lines FROM page_sources WHERE page_slug = ? ORDER BY ordinal",
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
  const body = readBody(join(almanacPath, row.rel_path), wikiRoot);
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
    ...body,
  };
}

/** The first paragraph of the body, skipping a leading heading (the reference returned the H1). */
export function leadOf(body: string): string {
  const blocks = body.split(/\n\s*\n/).map((b) => b.trim()).filter((b) => b !== "");
  const lead = blocks.find((b) => !/^#{1,6}\s/.test(b) && !/^(```|~~~)/.test(b));
  return lead ?? blocks[0] ?? "";
}

/** What a reader is told when a page's body was cut at 2 MB, or null when it is whole. */
export function truncationOf(view: Pick<PageView, "truncated" | "file_size">): string | null {
  return view.truncated ? truncationNote(view.file_size) : null;
}

const decoder = new TextDecoder("utf-8");

/**
 * The body is read from the page itself (the index keeps only its sections), right
 * after the refresh that found the file unchanged: no further than the 2 MB the parser
 * indexed, decoded the same way, and never through a link that leads out of the wiki.
 */
function readBody(path: string, wikiRoot: string): Pick<PageView, "body" | "truncated" | "file_size"> {
  try {
    const head = readPageHead(path, wikiRoot);
    return { body: splitFrontmatter(decoder.decode(head.bytes)).body.trim(), truncated: head.truncated, file_size: head.size };
  } catch {
    return { body: "", truncated: false, file_size: 0 };
  }
}

/** Each indexed page's content hash, by slug: compared before and after a run to tell what it changed. */
export function pageFingerprints(db: Db): Map<string, string> {
  const rows = db
    .prepare("SELECT p.slug, f.content_hash FROM pages p JOIN files f ON f.rel_path = p.rel_path")
    .all() as { slug: string; content_hash: string }[];
  return new Map(rows.map((row) => [row.slug, row.content_hash]));
}

/** The file of each named page that is indexed, relative to almanac/, by slug. */
export function pageFiles(db: Db, slugs: readonly string[]): Map<string, string> {
  if (slugs.length === 0) return new Map();
  const rows = db
    .prepare("SELECT slug, rel_path FROM pages WHERE slug IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(slugs)) as { slug: string; rel_path: string }[];
  return new Map(rows.map((row) => [row.slug, row.rel_path]));
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
