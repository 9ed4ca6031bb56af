import type { Migration } from "../core/sqlite.js";

/**
 * Sync state: one cursor per transcript file, never one global watermark. A cursor
 * says how far the wiki has absorbed a transcript (`ingested_offset`, a byte offset at
 * a line start) and which queued run is absorbing the next part (`pending_*`). The
 * pending part becomes ingested only when that run ends `done`; when it fails or is
 * cancelled, the next sync offers the same bytes again.
 *
 * Version 5 adds a fingerprint of the bytes just before each offset (`*_print`), so a
 * transcript rewritten since it was read is told from one that was only appended to.
 */
export const syncMigrations: Migration[] = [
  {
    version: 4,
    name: "sync cursors",
    up: (db) =>
      db.exec(`
        CREATE TABLE sync_cursors (
          path_key TEXT PRIMARY KEY,
          app TEXT NOT NULL,
          path TEXT NOT NULL,
          session_id TEXT NOT NULL,
          repository_id TEXT NOT NULL,
          ingested_offset INTEGER NOT NULL,
          ingested_activity INTEGER,
          seen_size INTEGER NOT NULL,
          seen_mtime INTEGER NOT NULL,
          pending_run_id TEXT,
          pending_offset INTEGER,
          pending_activity INTEGER,
          updated_at INTEGER NOT NULL
        );
        CREATE TABLE sync_scans (
          app TEXT PRIMARY KEY,
          scanned_at INTEGER NOT NULL
        );
      `),
  },
  {
    version: 6,
    name: "sync cursor fingerprints",
    up: (db) =>
      db.exec(`
        ALTER TABLE sync_cursors ADD COLUMN ingested_print TEXT;
        ALTER TABLE sync_cursors ADD COLUMN pending_print TEXT;
      `),
  },
];
