/**
 * A state database as the Python CodeAlmanac 0.4 leaves it in `~/.codealmanac/codealmanac.db`,
 * built from its documented tables: no schema version, ISO-8601 text times, each run's full
 * record as JSON, WAL mode. Tests write one and check that our CLI moves it aside.
 */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS repositories (
    repository_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    root_path TEXT NOT NULL UNIQUE,
    almanac_root TEXT NOT NULL,
    registered_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    repository_id TEXT NOT NULL REFERENCES repositories(repository_id),
    kind TEXT NOT NULL,
    status TEXT NOT NULL,
    title TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    record_json TEXT NOT NULL,
    spec_json TEXT
  );
  CREATE INDEX IF NOT EXISTS runs_repository_created_idx ON runs (repository_id, created_at);
  CREATE INDEX IF NOT EXISTS runs_status_created_idx ON runs (status, created_at);
  CREATE TABLE IF NOT EXISTS run_events (
    run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    sequence INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    event_json TEXT NOT NULL,
    PRIMARY KEY (run_id, sequence)
  );
  CREATE TABLE IF NOT EXISTS worker_locks (name TEXT PRIMARY KEY, owner_json TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS sync_state (name TEXT PRIMARY KEY, last_completed_at TEXT);
  -- Its telemetry tables are not documented; one stands for them.
  CREATE TABLE IF NOT EXISTS telemetry_events (id INTEGER PRIMARY KEY, payload TEXT);
`;

export interface PythonRepository {
  name: string;
  root: string;
  description?: string;
}

export interface PythonRun {
  runId: string;
  repository: string;
  kind: "build" | "ingest" | "garden";
  status: "queued" | "running" | "done" | "failed" | "cancelled";
  title?: string;
  summary?: string;
  error?: string;
  category?: string;
  events?: { kind: string; message: string }[];
}

/** `repo_` and 16 hex of SHA-256 of the root, as both products derive it. */
export function pythonRepositoryId(root: string): string {
  return "repo_" + createHash("sha256").update(root).digest("hex").slice(0, 16);
}

const iso = (minute: number) => `2026-07-11T12:${String(minute).padStart(2, "0")}:00.123456+00:00`;

/**
 * Writes the database and returns it still open (the caller closes it), so a test can also
 * leave its WAL unfolded, as a Python process that was killed would.
 */
export function writePythonLedger(file: string, repositories: PythonRepository[], runs: PythonRun[]): Database.Database {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.exec(SCHEMA);
  const ids = new Map<string, string>();
  for (const [i, repo] of repositories.entries()) {
    const id = pythonRepositoryId(repo.root);
    ids.set(repo.name, id);
    db.prepare("INSERT INTO repositories VALUES (?, ?, ?, ?, 'almanac', ?)").run(id, repo.name, repo.description ?? "", repo.root, iso(i));
  }
  for (const [i, run] of runs.entries()) {
    const repositoryId = ids.get(run.repository) ?? run.repository;
    const terminal = ["done", "failed", "cancelled"].includes(run.status);
    const record = {
      run_id: run.runId,
      repository_id: repositoryId,
      kind: run.kind,
      status: run.status,
      title: run.title ?? null,
      summary: run.summary ?? null,
      error: run.error ?? null,
      failure_category: run.category ?? null,
      created_at: iso(10 + i),
      updated_at: iso(11 + i),
      started_at: run.status === "queued" ? null : iso(10 + i),
      finished_at: terminal ? iso(11 + i) : null,
      page_changes: null,
      harness_transcript: null,
      execution: null,
      cancellation_requested_at: null,
    };
    const spec = { version: 1, kind: run.kind, harness: "codex", model: "gpt-5.5", inputs: [], title: run.title ?? null, guidance: null, auto_commit: true };
    db.prepare("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)").run(
      run.runId, repositoryId, run.kind, run.status, run.title ?? null, iso(10 + i), iso(11 + i), JSON.stringify(record), JSON.stringify(spec),
    );
    for (const [seq, event] of (run.events ?? []).entries()) {
      const body = { run_id: run.runId, sequence: seq + 1, timestamp: iso(10 + i), kind: event.kind, message: event.message };
      db.prepare("INSERT INTO run_events VALUES (?, ?, ?, ?)").run(run.runId, seq + 1, iso(10 + i), JSON.stringify(body));
    }
  }
  db.prepare("INSERT INTO sync_state VALUES ('sync', ?)").run(iso(30));
  return db;
}
