import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../../src/core/sqlite.js";
import { repositoryMigrations } from "../../src/repositories/schema.js";
import { runMigrations } from "../../src/runs/schema.js";
import { RunStore } from "../../src/runs/store.js";
import { LockStore } from "../../src/runs/lock-store.js";
import type { RunKind } from "../../src/runs/model.js";
import type { RunSpec } from "../../src/runs/spec.js";

export interface Ledger {
  db: Db;
  runs: RunStore;
  locks: LockStore;
  file: string;
  close(): void;
}

/** A real SQLite state database in a temporary folder. */
export function ledger(): Ledger {
  const dir = mkdtempSync(join(tmpdir(), "ca-ledger-"));
  const file = join(dir, "codealmanac.db");
  const db = openDatabase(file, { migrations: [...repositoryMigrations, ...runMigrations], onNewerSchema: "refuse" });
  return {
    db,
    runs: new RunStore(db),
    locks: new LockStore(db),
    file,
    close: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function spec(kind: RunKind, extra: Partial<RunSpec> = {}): RunSpec {
  return {
    version: 1,
    kind,
    harness: "claude",
    model: "claude-sonnet-5",
    inputs: kind === "ingest" ? ["notes.md"] : [],
    sources: [],
    title: null,
    guidance: null,
    auto_commit: false,
    ...extra,
  };
}

let counter = 0;
export function enqueue(l: Ledger, kind: RunKind = "garden", now = 1_000): string {
  const runId = `${kind}-20260101000000-${(counter++).toString(16).padStart(8, "0")}`;
  l.runs.enqueueRun({
    runId,
    repositoryId: "repo_0123456789abcdef",
    repositoryName: "demo",
    repositoryRoot: "/tmp/demo",
    kind,
    title: null,
    spec: spec(kind),
    logPath: `/tmp/${runId}.log`,
    now,
  });
  return runId;
}
