import Database from "better-sqlite3";
import { closeSync, mkdirSync, openSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { ProductError, StorageError, oneLine } from "./errors.js";

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
  /**
   * Whether a file with no schema version of ours holds tables another program made. Such
   * a file is closed untouched (not even switched to WAL) and ForeignDatabaseError thrown,
   * for the caller to move it aside; without the option it is migrated like an empty file.
   */
  isForeign?: (db: Db) => boolean;
  /**
   * `incremental`: a new file is created with `auto_vacuum = INCREMENTAL`, so its free pages
   * can be handed back to the file system later (`PRAGMA incremental_vacuum`). SQLite fixes
   * the mode when the first table is created; an existing file keeps the mode it has.
   */
  autoVacuum?: "incremental";
}

/** The file at `file` was written by another program; nothing in it was changed. */
export class ForeignDatabaseError extends Error {
  constructor(readonly file: string) {
    super(`${file} was written by another program`);
  }
}

/**
 * Opens a SQLite file in WAL mode with a busy timeout and brings its schema up to
 * date. Migrations run inside BEGIN IMMEDIATE and re-read user_version there, so two
 * processes opening a fresh file at once never interleave their DDL. The version is read
 * before the switch to WAL, so a foreign file (see `isForeign`) is left in its journal mode
 * and never gets side files of ours.
 */
export function openDatabase(file: string, options: OpenOptions): Db {
  requireDistinctVersions(options.migrations);
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, nativeBinding());
  const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  if (options.autoVacuum === "incremental" && db.pragma("page_count", { simple: true }) === 0) db.pragma("auto_vacuum = INCREMENTAL");
  const latest = options.migrations.reduce((max, m) => Math.max(max, m.version), 0);
  // One read transaction: read apart, another process's first migration could commit in
  // between, and its new tables at the version read before would look foreign.
  const { current, foreign } = db.transaction(() => {
    const version = db.pragma("user_version", { simple: true }) as number;
    return { current: version, foreign: version === 0 && version !== latest && options.isForeign?.(db) === true };
  })();
  if (foreign) {
    db.close();
    throw new ForeignDatabaseError(file);
  }
  configure(db, busyTimeoutMs);
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

/** Where a SQLite file's header keeps `user_version` (big-endian), and how long the header is. */
const USER_VERSION_OFFSET = 60;
const HEADER_BYTES = 100;

/**
 * Whether the file exists and its header on disk records no schema version (or is too
 * short to record one), read without SQLite. It may say yes for a file of ours whose
 * version is still only in its write-ahead log; it says no only for a missing file or one
 * whose header records a version, which openDatabase never sees as foreign.
 */
export function unversionedOnDisk(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return false;
  }
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    const read = readSync(fd, header, 0, HEADER_BYTES, 0);
    return read < HEADER_BYTES || header.readUInt32BE(USER_VERSION_OFFSET) === 0;
  } catch {
    return true;
  } finally {
    closeSync(fd);
  }
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
  // Processes switching a brand-new file to WAL at the same moment can deadlock on its
  // locks; SQLite then answers SQLITE_BUSY at once instead of calling the busy handler.
  retryWhileBusy(() => db.pragma("journal_mode = WAL"), busyTimeoutMs);
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
}

/**
 * Several domains add migrations to one database and share its one version counter; two
 * with the same number would leave one of them never applied, so that is a build error.
 */
function requireDistinctVersions(migrations: readonly Migration[]): void {
  const seen = new Map<number, string>();
  for (const migration of migrations) {
    const other = seen.get(migration.version);
    if (other !== undefined) throw new Error(`migrations "${other}" and "${migration.name}" share version ${migration.version}`);
    seen.set(migration.version, migration.name);
  }
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
  return sqliteCode(error)?.startsWith("SQLITE_BUSY") ?? false;
}

/** SQLite's (extended) result code of an error thrown by better-sqlite3, if it is one. */
function sqliteCode(error: unknown): string | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : null;
}

/**
 * What is wrong with the file behind a failed SQLite call, when the failure is about the
 * file and not the statement: `damaged` (corrupt pages, or not a database at all: a file
 * garbled, zeroed or cut short), `full` (no space left to write it), `io` (the OS failed
 * a read or write), `read_only`, `cannot_open` or `locked` (another process holds it past
 * the busy timeout). Null for anything else, such as a constraint or a syntax error.
 */
export type StorageProblem = "damaged" | "full" | "io" | "read_only" | "cannot_open" | "locked";

export function storageProblem(error: unknown): StorageProblem | null {
  const code = sqliteCode(error);
  if (code === null) return null;
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") return "damaged";
  if (/database disk image is malformed/i.test(error instanceof Error ? error.message : "")) return "damaged";
  if (code === "SQLITE_FULL") return "full";
  if (code.startsWith("SQLITE_IOERR")) return "io";
  if (code.startsWith("SQLITE_READONLY")) return "read_only";
  if (code.startsWith("SQLITE_CANTOPEN")) return "cannot_open";
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "locked";
  return null;
}

const PROBLEM_TEXT: Record<StorageProblem, (what: string) => string> = {
  damaged: (what) => `${what} is damaged`,
  full: (what) => `no space left to write ${what}`,
  io: (what) => `${what} cannot be read or written`,
  read_only: (what) => `${what} cannot be written`,
  cannot_open: (what) => `${what} cannot be opened`,
  locked: (what) => `${what} is locked by another process`,
};

const DEFAULT_FIX: Record<Exclude<StorageProblem, "damaged">, string> = {
  full: "free some space on its disk and try again",
  io: "check the disk that holds it (its free space, `dmesg`), then try again",
  read_only: "make it and its folder writable for you",
  cannot_open: "check that it is a file and that its folder exists and is writable for you",
  locked: "try again once the other process is done",
};

/**
 * A storage failure of one database file as one line: what is wrong with which file (with
 * SQLite's own words) and the fix, which each caller knows best for a damaged file.
 * Null when the error is not about the file.
 */
export function storageFailure(
  error: unknown,
  file: string,
  what: string,
  fixes: Partial<Record<StorageProblem, string>> & { damaged: string },
): StorageError | null {
  const problem = storageProblem(error);
  if (problem === null) return null;
  const fix = fixes[problem] ?? DEFAULT_FIX[problem as Exclude<StorageProblem, "damaged">];
  return new StorageError(`${PROBLEM_TEXT[problem](`${what} ${file}`)} (${oneLine(error)})`, fix);
}

/**
 * Reads from an existing database file without changing it: no journal mode switch and no
 * migrations, so a file of another schema version is read as it is. Null when the file is
 * missing or cannot be read as a database (or `read` throws).
 */
export function peekDatabase<T>(file: string, read: (db: Db) => T): T | null {
  let db: Db | undefined;
  try {
    db = new Database(file, { ...nativeBinding(), fileMustExist: true });
    db.pragma("busy_timeout = 2000");
    return read(db);
  } catch {
    return null;
  } finally {
    db?.close();
  }
}

let sleeper: Int32Array | undefined;

function sleepSync(ms: number): void {
  Atomics.wait((sleeper ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, ms);
}

/**
 * Opens an existing database file as it is: no journal mode switch and no migrations, for
 * reading (and converting) a file another program wrote. Throws when the file is missing.
 */
export function openExistingDatabase(file: string, busyTimeoutMs: number): Db {
  const db = new Database(file, { ...nativeBinding(), fileMustExist: true });
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return db;
}

/**
 * Runs `body` while holding an exclusive lock on the SQLite file `lockFile` (made if
 * missing): a mutex between processes that waits in SQLite's busy handler, and that the
 * operating system releases when a holder dies, so a crash never leaves it taken.
 */
export function holdingExclusiveLock<T>(lockFile: string, timeoutMs: number, body: () => T): T {
  mkdirSync(dirname(lockFile), { recursive: true });
  const lock = new Database(lockFile, nativeBinding());
  try {
    lock.pragma(`busy_timeout = ${timeoutMs}`);
    lock.exec("BEGIN EXCLUSIVE");
    try {
      return body();
    } finally {
      lock.exec("ROLLBACK");
    }
  } finally {
    lock.close();
  }
}

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/**
 * A statement prepared once per connection: warm readers (the MCP server, the viewer)
 * run the same few on every call. Each SQL text must always be used in the same mode
 * (`pluck`, `raw`), which the caller sets.
 */
export function cachedStatement(db: Db, sql: string): Database.Statement {
  let byText = statements.get(db);
  if (!byText) statements.set(db, (byText = new Map()));
  let statement = byText.get(sql);
  if (!statement) byText.set(sql, (statement = db.prepare(sql)));
  return statement;
}
