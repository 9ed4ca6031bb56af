import type { Db, Migration } from "../core/sqlite.js";

/**
 * The per-repository index is derived and disposable. Page text is stored nowhere in it:
 * search keeps postings (terms and their counts, src/index/postings.ts), and `sections`
 * keeps each section's heading, its length in terms and where its body lies in the page
 * file, for excerpts. Deleting a page deletes its sections by cascade; the writer drops
 * its postings. Section rowids follow layout.ts.
 */

/** Files seen, topics and meta: kept across a full rebuild. */
const BASE_TABLES = `
        CREATE TABLE files (
          rel_path TEXT PRIMARY KEY,
          size INTEGER NOT NULL,
          mtime_ms REAL NOT NULL,
          checked_at INTEGER NOT NULL,
          content_hash TEXT NOT NULL,
          slug TEXT,
          state TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX files_slug ON files(slug);
        -- The few files that are not pages, which an unknown-page answer checks (src/index/miss.ts).
        CREATE INDEX files_not_page ON files(state) WHERE state != 'page';

        CREATE TABLE file_problems (
          rel_path TEXT NOT NULL,
          ordinal INTEGER NOT NULL,
          category TEXT NOT NULL,
          message TEXT NOT NULL,
          line INTEGER,
          PRIMARY KEY (rel_path, ordinal)
        ) WITHOUT ROWID;

        CREATE TABLE topics (
          slug TEXT PRIMARY KEY,
          title TEXT NOT NULL,
          description TEXT,
          declared INTEGER NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE topic_parents (
          child TEXT NOT NULL,
          parent TEXT NOT NULL,
          PRIMARY KEY (child, parent)
        ) WITHOUT ROWID;
        CREATE INDEX topic_parents_parent ON topic_parents(parent, child);

        CREATE TABLE meta (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) WITHOUT ROWID;
`;

/** Everything derived from pages: dropped and created again by a full rebuild. */
const PAGE_TABLES = `
        CREATE TABLE pages (
          id INTEGER PRIMARY KEY,
          slug TEXT NOT NULL UNIQUE,
          rel_path TEXT NOT NULL,
          title TEXT NOT NULL,
          summary TEXT,
          updated_at INTEGER NOT NULL,
          empty_body INTEGER NOT NULL,
          truncated INTEGER NOT NULL DEFAULT 0,
          topics_json TEXT NOT NULL DEFAULT '[]',
          evidence_digest TEXT NOT NULL DEFAULT ''
        );

        CREATE TABLE page_topics (
          page_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          topic TEXT NOT NULL,
          PRIMARY KEY (page_slug, topic)
        ) WITHOUT ROWID;

        CREATE TABLE file_refs (
          page_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          path TEXT NOT NULL,
          original_path TEXT NOT NULL,
          is_dir INTEGER NOT NULL,
          PRIMARY KEY (page_slug, path, is_dir)
        ) WITHOUT ROWID;

        CREATE TABLE page_sources (
          page_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          ordinal INTEGER NOT NULL,
          source_id TEXT NOT NULL,
          source_type TEXT NOT NULL,
          target TEXT,
          title TEXT,
          retrieved_at TEXT,
          note TEXT,
          lines TEXT,
          fingerprint TEXT,
          verified_at TEXT,
          PRIMARY KEY (page_slug, ordinal)
        ) WITHOUT ROWID;

        CREATE TABLE page_citations (
          page_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          source_id TEXT NOT NULL,
          PRIMARY KEY (page_slug, source_id)
        ) WITHOUT ROWID;

        CREATE TABLE page_links (
          source_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          target_slug TEXT NOT NULL,
          PRIMARY KEY (source_slug, target_slug)
        ) WITHOUT ROWID;

        CREATE TABLE sections (
          id INTEGER PRIMARY KEY,
          page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
          heading TEXT NOT NULL,
          body_start INTEGER NOT NULL,
          body_end INTEGER NOT NULL,
          length INTEGER NOT NULL
        );

        CREATE TABLE postings (
          term TEXT NOT NULL,
          segment INTEGER NOT NULL,
          data BLOB NOT NULL,
          PRIMARY KEY (segment, term)
        ) WITHOUT ROWID;
`;

/** Secondary indexes of the page tables: a full rebuild creates them after its bulk insert. */
const PAGE_INDEXES = `
        CREATE INDEX page_topics_topic ON page_topics(topic, page_slug);
        CREATE INDEX file_refs_path ON file_refs(path);
        CREATE INDEX page_links_target ON page_links(target_slug, source_slug);
        CREATE INDEX sections_page ON sections(page_id);
`;

/** The tables a full rebuild replaces, children (and the search table) first. */
const PAGE_TABLE_NAMES = ["postings", "sections", "page_topics", "file_refs", "page_sources", "page_citations", "page_links", "pages"];

/**
 * Empties every page table for a full rebuild by dropping and creating them (much faster
 * than deleting rows one by one through foreign keys and the search table), without their
 * secondary indexes: the caller creates those with createPageIndexes after inserting.
 */
export function recreatePageTables(db: Db): void {
  for (const table of PAGE_TABLE_NAMES) db.exec(`DROP TABLE IF EXISTS ${table}`);
  db.exec(PAGE_TABLES);
}

export function createPageIndexes(db: Db): void {
  db.exec(PAGE_INDEXES);
}

/** Every version so far: drop whatever an older build left and create the current schema. */
function recreate(db: Db): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sections_fts_%'")
    .pluck()
    .all() as string[];
  db.exec("DROP TRIGGER IF EXISTS sections_ai; DROP TRIGGER IF EXISTS sections_ad;");
  // Children before their parents, so no drop deletes rows through foreign keys.
  const ordered = [...PAGE_TABLE_NAMES.filter((t) => tables.includes(t)), ...tables.filter((t) => !PAGE_TABLE_NAMES.includes(t))];
  for (const table of ordered) db.exec(`DROP TABLE IF EXISTS "${table}"`);
  db.exec(BASE_TABLES);
  db.exec(PAGE_TABLES);
  db.exec(PAGE_INDEXES);
}

export const indexMigrations: Migration[] = [
  { version: 3, name: "index v3 (page ids in section rowids; bodies read from pages)", up: recreate },
  {
    version: 4,
    name: "freshness from a scan snapshot (the digest and folder listings it replaces are dropped)",
    up: (db) => db.exec("DELETE FROM meta WHERE key IN ('stat_signature', 'folder_listings')"),
  },
  { version: 5, name: "contentless search table; sections keep spans into the page file, not its text", up: recreate },
  { version: 6, name: "file sources keep their cited lines and evidence stamp", up: recreate },
  { version: 7, name: "search keeps its own postings and scores them (no FTS5 table)", up: recreate },
];
