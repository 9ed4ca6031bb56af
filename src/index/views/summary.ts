import type { Db } from "../../core/sqlite.js";
import { bounded, type Bounded } from "../../core/bounded.js";

/**
 * A bounded overview of the wiki graph: its size, its largest topics, its hubs, the
 * pages nothing links to or that have no topic, what changed last, and where links are
 * broken. Every list is cut to a limit and says how much it left out. Each query walks
 * covering indexes in order (merging them where two sets are compared) and keeps only the
 * top rows it returns, so the summary stays cheap on a 10,000-page wiki; no page body or
 * page file is read.
 */

export interface SummaryLimits {
  largestTopics: number;
  mostLinkedPages: number;
  pagesWithoutInboundLinks: number;
  pagesWithoutTopics: number;
  recentlyChanged: number;
  pagesWithBrokenLinks: number;
}

export const DEFAULT_SUMMARY_LIMITS: SummaryLimits = {
  largestTopics: 20,
  mostLinkedPages: 15,
  pagesWithoutInboundLinks: 20,
  pagesWithoutTopics: 20,
  recentlyChanged: 15,
  pagesWithBrokenLinks: 10,
};

export interface PageRef {
  slug: string;
  title: string;
}

export interface TopicSize {
  slug: string;
  title: string;
  /** Pages tagged with this topic itself (not its descendants). */
  pages: number;
}

export interface LinkedPage extends PageRef {
  inbound_links: number;
  outbound_links: number;
}

export interface ChangedPage extends PageRef {
  /** The page file's modification time, ISO 8601. */
  modified_at: string;
}

export interface BrokenLinkSource extends PageRef {
  broken_links: number;
}

export interface WikiSummary {
  pages: number;
  topics: number;
  largest_topics: Bounded<TopicSize>;
  /** Hubs: pages ranked by how many other pages link to them; `total` counts every page linked at least once. */
  most_linked_pages: Bounded<LinkedPage>;
  /** Pages no other page links to; the root landing page is left out, being the way in. */
  pages_without_inbound_links: Bounded<PageRef>;
  pages_without_topics: Bounded<PageRef>;
  recently_changed: Bounded<ChangedPage>;
  pages_with_broken_links: Bounded<BrokenLinkSource>;
}

const ROOT_LANDING_SLUG = "README";
const MAX_ROWS = 1_000_000;

type Counted<T> = T & { total: number };

export function wikiSummary(db: Db, limits: Partial<SummaryLimits> = {}): WikiSummary {
  const limit = { ...DEFAULT_SUMMARY_LIMITS, ...limits };
  const pages = db.prepare("SELECT COUNT(*) FROM pages").pluck().get() as number;
  const topics = db.prepare("SELECT COUNT(*) FROM topics").pluck().get() as number;
  return {
    pages,
    topics,
    largest_topics: bounded(largestTopics(db, limit.largestTopics), topics),
    most_linked_pages: mostLinkedPages(db, limit.mostLinkedPages),
    pages_without_inbound_links: pagesWithoutInboundLinks(db, limit.pagesWithoutInboundLinks),
    pages_without_topics: pagesWithoutTopics(db, limit.pagesWithoutTopics),
    recently_changed: bounded(recentlyChanged(db, limit.recentlyChanged), pages),
    pages_with_broken_links: pagesWithBrokenLinks(db, limit.pagesWithBrokenLinks),
  };
}

function largestTopics(db: Db, limit: number): TopicSize[] {
  return db
    .prepare(
      `SELECT t.slug, t.title, (SELECT COUNT(*) FROM page_topics pt WHERE pt.topic = t.slug) AS pages
       FROM topics t ORDER BY pages DESC, t.slug LIMIT ?`,
    )
    .all(rowLimit(limit)) as TopicSize[];
}

/**
 * Links are counted on the covering target index first; page rows are read only for the
 * hubs returned. A page's links to itself do not make it a hub.
 */
function mostLinkedPages(db: Db, limit: number): Bounded<LinkedPage> {
  const rows = db
    .prepare(
      `WITH inbound AS (
         SELECT target_slug AS slug, COUNT(*) AS inbound_links FROM page_links
         WHERE source_slug != target_slug GROUP BY target_slug)
       SELECT i.slug, i.inbound_links, COUNT(*) OVER () AS total FROM inbound i
       WHERE EXISTS (SELECT 1 FROM pages p WHERE p.slug = i.slug)
       ORDER BY i.inbound_links DESC, i.slug LIMIT ?`,
    )
    .all(queryLimit(limit)) as Counted<{ slug: string; inbound_links: number }>[];
  const details = db.prepare(
    `SELECT title, (SELECT COUNT(*) FROM page_links WHERE source_slug = @slug AND target_slug != @slug) AS outbound_links
     FROM pages WHERE slug = @slug`,
  );
  const items = rows.map(({ slug, inbound_links }) => {
    const { title, outbound_links } = details.get({ slug }) as { title: string; outbound_links: number };
    return { slug, title, inbound_links, outbound_links };
  });
  return bounded(items, totalOf(rows), rowLimit(limit));
}

/** A merge of two sorted covering indexes (pages by slug, links by target) finds them without a per-page lookup. */
function pagesWithoutInboundLinks(db: Db, limit: number): Bounded<PageRef> {
  const rows = db
    .prepare(
      `WITH unlinked AS (
         SELECT slug FROM pages EXCEPT SELECT target_slug FROM page_links WHERE source_slug != target_slug)
       SELECT u.slug, p.title, COUNT(*) OVER () AS total FROM unlinked u JOIN pages p ON p.slug = u.slug
       WHERE u.slug != ? ORDER BY u.slug LIMIT ?`,
    )
    .all(ROOT_LANDING_SLUG, queryLimit(limit)) as Counted<PageRef>[];
  return countedList(rows, limit);
}

function pagesWithoutTopics(db: Db, limit: number): Bounded<PageRef> {
  const rows = db
    .prepare(
      `WITH untagged AS (SELECT slug FROM pages EXCEPT SELECT page_slug FROM page_topics)
       SELECT u.slug, p.title, COUNT(*) OVER () AS total FROM untagged u JOIN pages p ON p.slug = u.slug
       ORDER BY u.slug LIMIT ?`,
    )
    .all(queryLimit(limit)) as Counted<PageRef>[];
  return countedList(rows, limit);
}

/**
 * Ordered by the manifest's millisecond mtime: `pages.updated_at` holds the same time cut
 * to whole seconds, which ties pages changed in the same second.
 */
function recentlyChanged(db: Db, limit: number): ChangedPage[] {
  const rows = db
    .prepare(
      `SELECT p.slug, p.title, f.mtime_ms FROM pages p JOIN files f ON f.rel_path = p.rel_path
       ORDER BY f.mtime_ms DESC, p.slug LIMIT ?`,
    )
    .all(rowLimit(limit)) as (PageRef & { mtime_ms: number })[];
  return rows.map(({ mtime_ms, ...page }) => ({ ...page, modified_at: new Date(mtime_ms).toISOString() }));
}

/**
 * Missing targets come from a merge of the link and page indexes, and only their links
 * are read, so a healthy wiki costs one pass over each index and no lookups. CROSS JOIN
 * keeps SQLite from turning the join around into a lookup per link.
 */
function pagesWithBrokenLinks(db: Db, limit: number): Bounded<BrokenLinkSource> {
  const rows = db
    .prepare(
      `WITH missing AS (SELECT target_slug AS slug FROM page_links EXCEPT SELECT slug FROM pages),
       sources AS (
         SELECT l.source_slug AS slug, COUNT(*) AS broken_links
         FROM missing m CROSS JOIN page_links l ON l.target_slug = m.slug GROUP BY l.source_slug)
       SELECT s.slug, p.title, s.broken_links, COUNT(*) OVER () AS total
       FROM sources s JOIN pages p ON p.slug = s.slug
       ORDER BY s.broken_links DESC, s.slug LIMIT ?`,
    )
    .all(queryLimit(limit)) as Counted<BrokenLinkSource>[];
  return countedList(rows, limit);
}

/** Rows carry their list's full count, so at least one row is fetched even for a zero limit. */
function queryLimit(limit: number): number {
  return Math.max(1, rowLimit(limit));
}

/** A whole, non-negative limit; Infinity stands for "all" and is capped rather than passed to SQL. */
function rowLimit(limit: number): number {
  if (Number.isNaN(limit)) return 0;
  return Math.max(0, Math.min(Math.floor(limit), MAX_ROWS));
}

function totalOf(rows: { total: number }[]): number {
  return rows[0]?.total ?? 0;
}

function countedList<T>(rows: Counted<T>[], limit: number): Bounded<T> {
  const items = rows.map(({ total: _total, ...item }) => item as T);
  return bounded(items, totalOf(rows), rowLimit(limit));
}
