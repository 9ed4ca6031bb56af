import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { ProductError } from "./errors.js";

export type Db = Database.Database;

export interface Migration {
  version: number;
  name: string;
  up: (db: Db) => void;
}

export interface OpenOptions {
  migrations: readonly Migration[];
  /** What to do when the file was written by a newer schema than we know. */
  onNewerSchema: "refuse" | "recreate";
  busyTimeoutMs?: number;
}

/**
 * Opens a SQLite file in WAL mode with a busy timeout and brings its schema up to
 * date. Migrations run inside BEGIN IMMEDIATE and re-read user_version there, so two
 * processes opening a fresh file at once never interleave their DDL.
 */
export function openDatabase(file: string, options: OpenOptions): Db {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, nativeBinding());
  configure(db, options.busyTimeoutMs ?? 10_000);
  const latest = options.migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current === latest) return db;
  if (current > latest) {
    if (options.onNewerSchema === "refuse") {
      db.close();
      throw new ProductError(
        "conflict",
        `${file} was written by a newer codealmanac (schema ${current}, this build knows ${latest}); upgrade codealmanac`,
      );
    }
    recreate(db);
  }
  migrate(db, options.migrations);
  return db;
}

let binding: { nativeBinding?: string } | undefined;

/**
 * The addon's path, given to better-sqlite3 directly: its own lookup (the `bindings`
 * package) probes many candidate paths on every start.
 */
function nativeBinding(): { nativeBinding?: string } {
  if (binding) return binding;
  try {
    binding = { nativeBinding: createRequire(import.meta.url).resolve("better-sqlite3/build/Release/better_sqlite3.node") };
  } catch {
    binding = {};
  }
  return binding;
}

function configure(db: Db, busyTimeoutMs: number): void {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // Processes switching a brand-new file to WAL at the same moment can deadlock on its
  // locks; SQLite then answers SQLITE_BUSY at once instead of calling the busy handler.
  retryWhileBusy(() => db.pragma("journal_mode = WAL"), busyTimeoutMs);
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
}

function migrate(db: Db, migrations: readonly Migration[]): void {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  db.transaction(() => {
    const current = db.pragma("user_version", { simple: true }) as number;
    for (const migration of ordered) {
      if (migration.version <= current) continue;
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    }
  }).immediate();
}

function recreate(db: Db): Db {
  // Only derived, disposable databases take this path: drop everything and start over.
  db.pragma("foreign_keys = OFF");
  db.transaction(() => {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[];
    for (const t of tables) {
      // FTS shadow tables vanish with their virtual table, so check before each drop.
      const still = db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(t.name);
      if (still) db.exec(`DROP TABLE IF EXISTS "${t.name.replace(/"/g, '""')}"`);
    }
    db.pragma("user_version = 0");
  }).immediate();
  db.pragma("foreign_keys = ON");
  return db;
}

/**
 * Runs `attempt` again while it fails with SQLITE_BUSY, for the few places where SQLite
 * reports contention without waiting on the busy timeout itself.
 */
export function retryWhileBusy<T>(attempt: () => T, timeoutMs: number, now: () => number = Date.now): T {
  const deadline = now() + timeoutMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      return attempt();
    } catch (error) {
      if (!isBusy(error) || now() >= deadline) throw error;
      sleepSync(pause);
    }
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

let sleeper: Int32Array | undefined;

function sleepSync(ms: number): void {
  Atomics.wait((sleeper ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, ms);
}
