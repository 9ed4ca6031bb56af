import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db, type Migration } from "../../src/core/sqlite.js";
import { repositoryMigrations } from "../../src/repositories/schema.js";
import { runMigrations } from "../../src/runs/schema.js";
import { RunStore } from "../../src/runs/store.js";
import { syncMigrations } from "../../src/sync/schema.js";
import { SyncStore, type Reservation } from "../../src/sync/store.js";

/** The migrations the state database is opened with (src/app.ts). */
export const STATE_MIGRATIONS: readonly Migration[] = [...repositoryMigrations, ...runMigrations, ...syncMigrations];

export interface SyncState {
  dir: string;
  file: string;
  db: Db;
  store: SyncStore;
  runs: RunStore;
  /** Another connection to the same file, as a second process would have (a newer one with newer migrations). */
  open(newer?: readonly Migration[]): { db: Db; store: SyncStore; runs: RunStore };
  close(): void;
}

/** A real state database (every domain's migrations) in a temporary folder. */
export function syncState(migrations: readonly Migration[] = STATE_MIGRATIONS): SyncState {
  const dir = mkdtempSync(join(tmpdir(), "ca-sync-state-"));
  const file = join(dir, "codealmanac.db");
  const opened: Db[] = [];
  const open = (newer: readonly Migration[] = migrations) => {
    const db = openDatabase(file, { migrations: newer, onNewerSchema: "refuse" });
    opened.push(db);
    return { db, store: new SyncStore(db), runs: new RunStore(db) };
  };
  const first = open();
  return {
    dir,
    file,
    ...first,
    open,
    close: () => {
      for (const db of opened) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A reservation for a transcript never synced before, with every field set apart from the others. */
export function reservation(pathKey: string, extra: Partial<Reservation> = {}): Reservation {
  return {
    pathKey,
    app: "claude",
    path: pathKey,
    sessionId: `session-of-${pathKey}`,
    repositoryId: "repo_0123456789abcdef",
    expected: null,
    fromOffset: 0,
    fromPrint: null,
    toOffset: 700,
    toPrint: `print-700-${pathKey}`,
    activity: 5_000,
    size: 750,
    mtime: 6_000,
    ...extra,
  };
}
