import type { Migration } from "../core/sqlite.js";

/**
 * The per-repository index is derived and disposable. Sections feed an external-content
 * FTS5 table kept in step by triggers, so deleting a page (and its sections, by cascade)
 * removes its search rows without a table scan.
 */
export const indexMigrations: Migration[] = [
  {
    version: 1,
    name: "index",
    up: (db) =>
      db.exec(`
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
          slug TEXT PRIMARY KEY,
          rel_path TEXT NOT NULL,
          title TEXT NOT NULL,
          summary TEXT,
          updated_at INTEGER NOT NULL,
          body TEXT NOT NULL,
          empty_body INTEGER NOT NULL,
          truncated INTEGER NOT NULL DEFAULT 0
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
          page_slug TEXT NOT NULL REFERENCES pages(slug) ON DELETE CASCADE,
          ordinal INTEGER NOT NULL,
          page_title TEXT NOT NULL,
          heading TEXT NOT NULL,
          body TEXT NOT NULL
        );
        CREATE INDEX sections_page ON sections(page_slug);

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
      `),
  },
];
