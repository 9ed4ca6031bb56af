import type { Migration } from "../core/sqlite.js";

/**
 * The run ledger. Times are integer epoch milliseconds. Queue order is `seq`, which
 * AUTOINCREMENT assigns inside the producer's BEGIN IMMEDIATE, so it is a total order
 * of commits. Events live in their own table and never rewrite the run row.
 */
export const runMigrations: Migration[] = [
  {
    version: 2,
    name: "runs",
    up: (db) =>
      db.exec(`
        CREATE TABLE runs (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          run_id TEXT NOT NULL UNIQUE,
          repository_id TEXT NOT NULL,
          repository_name TEXT NOT NULL,
          repository_root TEXT NOT NULL,
          kind TEXT NOT NULL,
          status TEXT NOT NULL,
          title TEXT,
          summary TEXT,
          error TEXT,
          failure_category TEXT,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          started_at INTEGER,
          finished_at INTEGER,
          cancel_requested_at INTEGER,
          spec_version INTEGER NOT NULL,
          spec_json TEXT NOT NULL,
          execution_id TEXT,
          executor_pid INTEGER,
          executor_start_time TEXT,
          executor_pgid INTEGER,
          worker_token TEXT,
          claim_seq INTEGER,
          harness_kind TEXT,
          harness_session_id TEXT,
          transcript_path TEXT,
          page_changes_json TEXT,
          log_path TEXT NOT NULL,
          retry_of TEXT
        );
        CREATE INDEX runs_status_seq ON runs(status, seq);
        CREATE INDEX runs_repository_seq ON runs(repository_id, seq);

        CREATE TABLE run_events (
          run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
          seq INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          kind TEXT NOT NULL,
          message TEXT NOT NULL,
          payload_json TEXT,
          PRIMARY KEY (run_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE worker_lock (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          token TEXT NOT NULL,
          pid INTEGER NOT NULL,
          start_time TEXT NOT NULL,
          acquired_at INTEGER NOT NULL,
          heartbeat_at INTEGER NOT NULL
        );
      `),
  },
  {
    version: 3,
    name: "run changes (commits and files outside almanac/ from git snapshots)",
    up: (db) => db.exec("ALTER TABLE runs ADD COLUMN changes_json TEXT"),
  },
  {
    version: 5,
    name: "the product's commit of a run's wiki changes",
    up: (db) => db.exec("ALTER TABLE runs ADD COLUMN wiki_commit_json TEXT"),
  },
  {
    version: 8,
    name: "what a garden --stale run did with its stale pages",
    up: (db) => db.exec("ALTER TABLE runs ADD COLUMN stale_pages_json TEXT"),
  },
  {
    version: 9,
    name: "where the secret gate found secrets in a run's pages (file, line, kind; never the secret)",
    up: (db) => db.exec("ALTER TABLE runs ADD COLUMN secret_findings_json TEXT"),
  },
];
