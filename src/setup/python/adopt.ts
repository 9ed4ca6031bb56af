/**
 * Moving from the Python CodeAlmanac: when `codealmanac.db` is its database, ours is built
 * beside it with its registrations and run history, the old file is kept under another
 * name, and ours takes the name. Any number of our processes may start at once:
 *
 *  1. Each one that finds the Python file takes one lock (an exclusive SQLite lock on a
 *     file of its own, which the OS frees if the holder dies) and checks again under it: the
 *     first does the work, the others then find our file and go on.
 *  2. The old file is switched from WAL to a rollback journal, which SQLite allows only when
 *     no other connection has it open: its WAL is folded in and its -wal and -shm files are
 *     removed, so it is one self-contained file, and readers that only check its version
 *     (core/sqlite.ts reads it before switching to WAL) never make side files for it again.
 *  3. Ours is built under a temporary name, and left in rollback journal mode too, so it is
 *     one file when it is renamed (the next open switches it to WAL).
 *  4. The old file gets a second name by a hard link, then ours is renamed over
 *     `codealmanac.db`: the name always holds one database or the other, never none.
 *  A crash anywhere leaves the Python file at `codealmanac.db`, and the next start does it
 *  again (reusing a second name that is already the same file).
 */
import { copyFileSync, existsSync, linkSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ProductError } from "../../core/errors.js";
import { holdingExclusiveLock, openExistingDatabase, retryWhileBusy, storageProblem, type Db } from "../../core/sqlite.js";
import { isPythonLedger } from "./detect.js";
import { readPythonLedger, type PythonLedger } from "./ledger.js";

export interface AdoptDeps {
  /** `<state>/codealmanac.db`. */
  database: string;
  /** Opens (creating) a database file of ours with every migration applied. */
  openOurs(file: string): Db;
  /** Writes what was read into our new database; returns what it added. */
  importInto(db: Db, ledger: PythonLedger): { repositories: number; runs: number };
  notice(line: string): void;
  /** How long to wait for the lock and for the old file's other connections to close. */
  timeoutMs?: number;
}

export interface Adoption {
  asidePath: string;
  repositories: number;
  runs: number;
  skipped: number;
}

/** The old file's name once set aside; `-2`, `-3`… when taken by another file. */
export const ASIDE_BASE = "codealmanac.python-0.4";

/** Moves the Python database aside once; null when another process already did (or it is not there). */
export function adoptPythonLedger(deps: AdoptDeps): Adoption | null {
  const timeoutMs = deps.timeoutMs ?? 60_000;
  const adoption = holdingExclusiveLock(`${deps.database}.adopt-lock`, timeoutMs, () => adoptUnderLock(deps, timeoutMs));
  if (adoption) deps.notice(adoptionNotice(adoption));
  return adoption;
}

export function adoptionNotice({ asidePath, repositories, runs, skipped }: Adoption): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const left = skipped > 0 ? ` (${count(skipped, "row", "rows")} it could not read stay there)` : "";
  return `codealmanac: moved the Python CodeAlmanac database aside to ${asidePath}; imported ${count(repositories, "repository", "repositories")} and ${count(runs, "job", "jobs")}${left}`;
}

function adoptUnderLock(deps: AdoptDeps, timeoutMs: number): Adoption | null {
  const ledger = readForAdoption(deps.database, timeoutMs);
  if (!ledger) return null;
  const temp = `${deps.database}.adopting-${process.pid}`;
  removeLeftovers(deps.database);
  let counts: { repositories: number; runs: number };
  const fresh = deps.openOurs(temp);
  try {
    counts = deps.importInto(fresh, ledger);
    fresh.pragma("journal_mode = DELETE");
  } finally {
    fresh.close();
  }
  const asidePath = secondName(deps.database);
  renameSync(temp, deps.database);
  return { asidePath, ...counts, skipped: ledger.skipped };
}

/** The Python ledger's contents, with the file made self-contained; null when the file is not (or no longer) its. */
function readForAdoption(file: string, timeoutMs: number): PythonLedger | null {
  if (!existsSync(file)) return null;
  const old = openExistingDatabase(file, timeoutMs);
  try {
    if ((old.pragma("user_version", { simple: true }) as number) !== 0 || !isPythonLedger(old)) return null;
    toRollbackJournal(old, file, timeoutMs);
    return readPythonLedger(old);
  } finally {
    old.close();
  }
}

/**
 * Leaving WAL needs every other connection closed, and SQLite answers SQLITE_BUSY at once
 * instead of waiting: our other processes close theirs as soon as they have read the version.
 */
function toRollbackJournal(db: Db, file: string, timeoutMs: number): void {
  let mode: unknown;
  try {
    mode = retryWhileBusy(() => db.pragma("journal_mode = DELETE", { simple: true }), timeoutMs);
  } catch (error) {
    if (storageProblem(error) !== "locked") throw error;
  }
  if (mode !== "delete") {
    throw new ProductError(
      "conflict",
      `the Python CodeAlmanac's database ${file} is in use by another process; stop the Python codealmanac (and its scheduled jobs), then run the command again`,
    );
  }
}

/** A second name for the old file: an existing one that already is this file, else the first free one. */
function secondName(file: string): string {
  const dir = dirname(file);
  const inode = statSync(file).ino;
  for (let n = 1; ; n++) {
    const candidate = join(dir, `${ASIDE_BASE}${n === 1 ? "" : `-${n}`}.db`);
    if (!existsSync(candidate)) {
      linkOrCopy(file, candidate);
      return candidate;
    }
    if (statSync(candidate).ino === inode) return candidate;
  }
}

function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    // A file system without hard links: a copy is as good, the file being self-contained and unused.
    copyFileSync(from, to);
  }
}

/** Temporary files of an adoption that died before its rename (the lock says none is running). */
function removeLeftovers(file: string): void {
  const prefix = `${basename(file)}.adopting-`;
  for (const name of readdirSync(dirname(file))) {
    if (name.startsWith(prefix)) rmSync(join(dirname(file), name), { force: true });
  }
}
