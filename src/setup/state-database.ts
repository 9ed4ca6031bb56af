/**
 * Health of SQLite for `doctor`: the native module loads, and the state database opens
 * (which brings its schema up to date, as every command does) and passes SQLite's quick
 * integrity check.
 */
import type { StorageError } from "../core/errors.js";
import { openDatabase, storageFailure, type Db } from "../core/sqlite.js";

/** Throws when the native module cannot be loaded (a Node upgrade without a rebuild, say). */
export function probeSqliteModule(): void {
  openDatabase(":memory:", { migrations: [], onNewerSchema: "refuse" }).close();
}

export interface StateDatabaseReport {
  schemaVersion: number;
  /** "ok", or SQLite's first complaint. */
  integrity: string;
}

export function inspectStateDatabase(db: Db): StateDatabaseReport {
  const schemaVersion = db.pragma("user_version", { simple: true }) as number;
  const integrity = String(db.pragma("quick_check(1)", { simple: true }));
  return { schemaVersion, integrity };
}

/**
 * A storage failure of the state database as one line: which file, what SQLite says, and
 * what to do. A damaged ledger is never recreated behind the user's back (it holds the
 * run history and sync cursors): the user moves it aside, and the next command starts a
 * new one and registers the wikis again from their indexes under repos/.
 */
export function stateDatabaseFailure(error: unknown, paths: { database: string; repos: string }): StorageError | null {
  const file = paths.database;
  return storageFailure(error, file, "the state database", {
    damaged: `move it aside (mv ${file} ${file}.damaged) and run the command again: a new one is made, the wikis under ${paths.repos} are registered again from their indexes, and the old run history stays in the moved file`,
  });
}
