import type { Db, Migration } from "../core/sqlite.js";

/**
 * The per-repository index is derived and disposable. Sections feed an external-content
 * FTS5 table kept in step by triggers, so deleting a page (and its sections, by cascade)
 * removes its search rows without a table scan. Section rowids follow layout.ts.
 */

const SCHEMA = `
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

        CREATE TABLE file_problems (
          rel_path TEXT NOT NULL,
          ordinal INTEGER NOT NULL,
          category TEXT NOT NULL,
          message TEXT NOT NULL,
          line INTEGER,
          PRIMARY KEY (rel_path, ordinal)
        ) WITHOUT ROWID;

        CREATE TABLE pages (
          id INTEGER PRIMARY KEY,
          slug TEXT NOT NULL UNIQUE,
          rel_path TEXT NOT NULL,
          title TEXT NOT NULL,
          summary TEXT,
          updated_at INTEGER NOT NULL,
          empty_body INTEGER NOT NULL,
          truncated INTEGER NOT NULL DEFAULT 0,
          topics_json TEXT NOT NULL DEFAULT '[]'
        );

        CREATE TABLE page_topics (
          page_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          topic TEXT NOT NULL,
          PRIMARY KEY (page_slug, topic)
        ) WITHOUT ROWID;
        CREATE INDEX page_topics_topic ON page_topics(topic, page_slug);

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

        CREATE TABLE file_refs (
          page_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          path TEXT NOT NULL,
          original_path TEXT NOT NULL,
          is_dir INTEGER NOT NULL,
          PRIMARY KEY (page_slug, path, is_dir)
        ) WITHOUT ROWID;
        CREATE INDEX file_refs_path ON file_refs(path);

        CREATE TABLE page_sources (
          page_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          ordinal INTEGER NOT NULL,
          source_id TEXT NOT NULL,
          source_type TEXT NOT NULL,
          target TEXT,
          title TEXT,
          retrieved_at TEXT,
          note TEXT,
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
        CREATE INDEX page_links_target ON page_links(target_slug, source_slug);

        CREATE TABLE sections (
          id INTEGER PRIMARY KEY,
          page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
          ordinal INTEGER NOT NULL,
          page_title TEXT NOT NULL,
          heading TEXT NOT NULL,
          body TEXT NOT NULL
        );
        CREATE INDEX sections_page ON sections(page_id);

        CREATE VIRTUAL TABLE sections_fts USING fts5(
          page_title, heading, body,
          content='sections', content_rowid='id',
          tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER sections_ai AFTER INSERT ON sections BEGIN
          INSERT INTO sections_fts(rowid, page_title, heading, body)
          VALUES (new.id, new.page_title, new.heading, new.body);
        END;
        CREATE TRIGGER sections_ad AFTER DELETE ON sections BEGIN
          INSERT INTO sections_fts(sections_fts, rowid, page_title, heading, body)
          VALUES ('delete', old.id, old.page_title, old.heading, old.body);
        END;

        CREATE TABLE meta (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) WITHOUT ROWID;
      `;

/** Every version so far: drop whatever an older build left and create the current schema. */
function recreate(db: Db): void {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sections_fts_%'")
    .pluck()
    .all() as string[];
  db.exec("DROP TRIGGER IF EXISTS sections_ai; DROP TRIGGER IF EXISTS sections_ad;");
  for (const table of tables) db.exec(`DROP TABLE IF EXISTS "${table}"`);
  db.exec(SCHEMA);
}

export const indexMigrations: Migration[] = [
  { version: 3, name: "index v3 (page ids in section rowids; bodies read from pages)", up: recreate },
  {
    version: 4,
    name: "freshness from a scan snapshot (the digest and folder listings it replaces are dropped)",
    up: (db) => db.exec("DELETE FROM meta WHERE key IN ('stat_signature', 'folder_listings')"),
  },
];
