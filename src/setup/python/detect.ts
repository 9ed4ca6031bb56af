/**
 * How the Python CodeAlmanac's state database (0.4) is told from ours, apart from what is
 * read out of it (ledger.ts): every command that opens the state database asks, so this
 * stays free of the row schemas (zod) that only an adoption needs.
 */
import type { Db } from "../../core/sqlite.js";

/** Its tables (besides telemetry ones); none of ours has these names. */
const PYTHON_TABLES = ["repositories", "runs", "run_events", "worker_locks", "sync_state"];

/**
 * Whether a file with no schema version holds the Python CodeAlmanac's tables. (A file of
 * ours at version 0 has no tables: our first migration makes them and sets the version in
 * one transaction.)
 */
export function isPythonLedger(db: Db): boolean {
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  return names.some((name) => PYTHON_TABLES.includes(name));
}
