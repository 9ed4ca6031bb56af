/**
 * Health of SQLite for `doctor`: the native module loads, and the state database opens
 * (which brings its schema up to date, as every command does) and passes SQLite's quick
 * integrity check.
 */
import { openDatabase, type Db } from "../core/sqlite.js";

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
