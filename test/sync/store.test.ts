import { afterEach, describe, expect, test } from "vitest";
import { syncMigrations } from "../../src/sync/schema.js";
import { settledCursor, type SyncCursor } from "../../src/sync/store.js";
import { spec } from "../runs/helpers.js";
import { reservation, STATE_MIGRATIONS, syncState, type SyncState } from "./state.js";

/** SyncStore over a real SQLite file opened with the real migrations. */
let state: SyncState;
afterEach(() => state?.close());

function row(pathKey: string): Record<string, unknown> | undefined {
  return state.db.prepare("SELECT * FROM sync_cursors WHERE path_key = ?").get(pathKey) as Record<string, unknown> | undefined;
}

/** Ends a run as its worker would have. */
function finish(runId: string, status: "done" | "failed"): void {
  state.db.prepare("UPDATE runs SET status = ?, finished_at = 1100 WHERE run_id = ?").run(status, runId);
}

/** A cursor pending on `runId`, as a reservation leaves it. */
function pending(pathKey: string, runId: string, extra: Parameters<typeof reservation>[1] = {}): void {
  expect(state.store.reserveAndQueue([reservation(pathKey, extra)], 10, () => runId)).not.toBeNull();
}

describe("reserveAndQueue", () => {
  test("a fresh database has no cursors and no scans", () => {
    state = syncState();
    expect(state.store.cursors()).toEqual(new Map());
    expect(state.store.scans()).toEqual(new Map());
  });

  test("reservations for transcripts never seen are all kept, queued once, and become cursors pending on the run", () => {
    state = syncState();
    const a = reservation("/t/a.jsonl");
    const b = reservation("/t/b.jsonl", { app: "codex", fromOffset: 0, toOffset: 900, toPrint: "p900", activity: 7_000, size: 950, mtime: 8_000 });
    const calls: unknown[] = [];
    const result = state.store.reserveAndQueue([a, b], 42, (kept) => {
      calls.push(kept);
      return "ingest-1";
    });
    expect(result).toEqual({ runId: "ingest-1", kept: [a, b], joined: false });
    expect(calls).toEqual([[a, b]]);
    expect(row("/t/a.jsonl")).toEqual({
      path_key: "/t/a.jsonl",
      app: "claude",
      path: "/t/a.jsonl",
      session_id: "session-of-/t/a.jsonl",
      repository_id: "repo_0123456789abcdef",
      ingested_offset: 0,
      ingested_activity: null,
      ingested_print: null,
      seen_size: 750,
      seen_mtime: 6_000,
      pending_run_id: "ingest-1",
      pending_offset: 700,
      pending_activity: 5_000,
      pending_print: "print-700-/t/a.jsonl",
      updated_at: 42,
    });
    expect(state.store.cursors().get("/t/b.jsonl")).toEqual({
      pathKey: "/t/b.jsonl",
      app: "codex",
      path: "/t/b.jsonl",
      sessionId: "session-of-/t/b.jsonl",
      repositoryId: "repo_0123456789abcdef",
      ingestedOffset: 0,
      ingestedActivity: null,
      ingestedPrint: null,
      seenSize: 950,
      seenMtime: 8_000,
      pendingRunId: "ingest-1",
      pendingOffset: 900,
      pendingActivity: 7_000,
      pendingPrint: "p900",
    });
    expect([...state.store.cursors().keys()].sort()).toEqual(["/t/a.jsonl", "/t/b.jsonl"]);
  });

  test("a reservation against an existing cursor moves it, keeping what was absorbed of its activity", () => {
    state = syncState();
    pending("/t/a.jsonl", "ingest-1");
    state.store.settleRuns([{ runId: "ingest-1", status: "done" }], 20);
    const next = reservation("/t/a.jsonl.zst", {
      pathKey: "/t/a.jsonl",
      app: "codex",
      sessionId: "moved",
      repositoryId: "repo_fedcba9876543210",
      expected: { ingestedOffset: 700, ingestedPrint: "print-700-/t/a.jsonl" },
      fromOffset: 700,
      fromPrint: "print-700-/t/a.jsonl",
      toOffset: 1_000,
      toPrint: "p1000",
      activity: 9_000,
      size: 1_100,
      mtime: 9_500,
    });
    expect(state.store.reserveAndQueue([next], 30, () => "ingest-2")).toEqual({ runId: "ingest-2", kept: [next], joined: false });
    expect(row("/t/a.jsonl")).toEqual({
      path_key: "/t/a.jsonl",
      app: "codex",
      path: "/t/a.jsonl.zst",
      session_id: "moved",
      repository_id: "repo_fedcba9876543210",
      ingested_offset: 700,
      ingested_activity: 5_000,
      ingested_print: "print-700-/t/a.jsonl",
      seen_size: 1_100,
      seen_mtime: 9_500,
      pending_run_id: "ingest-2",
      pending_offset: 1_000,
      pending_activity: 9_000,
      pending_print: "p1000",
      updated_at: 30,
    });
  });

  test("a rewritten transcript's reservation starts its cursor over from 0", () => {
    state = syncState();
    pending("/t/a.jsonl", "ingest-1");
    state.store.settleRuns([{ runId: "ingest-1", status: "done" }], 20);
    const over = reservation("/t/a.jsonl", { expected: { ingestedOffset: 700, ingestedPrint: "print-700-/t/a.jsonl" }, fromOffset: 0, fromPrint: null, toOffset: 300, toPrint: "p300" });
    expect(state.store.reserveAndQueue([over], 30, () => "ingest-2")).not.toBeNull();
    expect(row("/t/a.jsonl")).toMatchObject({ ingested_offset: 0, ingested_print: null, pending_run_id: "ingest-2", pending_offset: 300, pending_print: "p300" });
  });

  test("only reservations whose cursor is still what the plan read are kept; the run is queued for those alone", () => {
    state = syncState();
    pending("/t/absorbed.jsonl", "ingest-0");
    pending("/t/printed.jsonl", "ingest-0");
    pending("/t/waiting.jsonl", "ingest-w");
    state.store.settleRuns([{ runId: "ingest-0", status: "done" }], 20);
    const at700 = (key: string) => ({ ingestedOffset: 700, ingestedPrint: `print-700-${key}` });
    const candidates = [
      // Unchanged: kept.
      reservation("/t/new.jsonl"),
      reservation("/t/absorbed.jsonl", { expected: at700("/t/absorbed.jsonl"), fromOffset: 700 }),
      // Changed since the plan read them: left alone.
      reservation("/t/printed.jsonl", { expected: { ingestedOffset: 700, ingestedPrint: "another print" }, fromOffset: 700 }),
      reservation("/t/moved.jsonl", { expected: { ingestedOffset: 0, ingestedPrint: null } }),
      reservation("/t/waiting.jsonl", { expected: { ingestedOffset: 0, ingestedPrint: null } }),
      reservation("/t/absorbed.jsonl", { expected: { ingestedOffset: 600, ingestedPrint: "print-700-/t/absorbed.jsonl" } }),
      reservation("/t/printed.jsonl"),
    ];
    const before = new Map([...state.store.cursors()].map(([k, c]) => [k, { ...c }]));
    let queued: string[] = [];
    const result = state.store.reserveAndQueue(candidates, 50, (kept) => {
      queued = kept.map((k) => k.pathKey);
      return "ingest-9";
    });
    expect(queued).toEqual(["/t/new.jsonl", "/t/absorbed.jsonl"]);
    expect(result).toEqual({ runId: "ingest-9", kept: [candidates[0], candidates[1]], joined: false });
    const after = state.store.cursors();
    expect(after.get("/t/printed.jsonl")).toEqual(before.get("/t/printed.jsonl"));
    expect(after.get("/t/waiting.jsonl")).toEqual(before.get("/t/waiting.jsonl"));
    expect(after.has("/t/moved.jsonl")).toBe(false);
    expect(after.get("/t/absorbed.jsonl")?.pendingRunId).toBe("ingest-9");
  });

  test("when nothing is kept no run is queued and nothing changes", () => {
    state = syncState();
    pending("/t/a.jsonl", "ingest-1");
    let called = false;
    const result = state.store.reserveAndQueue([reservation("/t/a.jsonl")], 50, () => {
      called = true;
      return "never";
    });
    expect(result).toBeNull();
    expect(called).toBe(false);
    expect(row("/t/a.jsonl")).toMatchObject({ pending_run_id: "ingest-1", updated_at: 10 });
  });

  test("a queue that throws leaves every cursor as it was", () => {
    state = syncState();
    expect(() =>
      state.store.reserveAndQueue([reservation("/t/a.jsonl"), reservation("/t/b.jsonl")], 50, () => {
        throw new Error("ledger refused");
      }),
    ).toThrow("ledger refused");
    expect(state.store.cursors()).toEqual(new Map());
  });

  test("two connections racing for the same transcript: the second finds the cursor changed and queues nothing", () => {
    state = syncState();
    const other = state.open();
    const planned = reservation("/t/a.jsonl");
    expect(other.store.reserveAndQueue([planned], 50, () => "ingest-first")).not.toBeNull();
    const queued: string[] = [];
    expect(state.store.reserveAndQueue([planned], 51, () => (queued.push("x"), "ingest-second"))).toBeNull();
    expect(queued).toEqual([]);
    expect(row("/t/a.jsonl")).toMatchObject({ pending_run_id: "ingest-first" });
  });
});

describe("settleRuns", () => {
  test("a done run's part becomes the ingested part; its pending fields are cleared", () => {
    state = syncState();
    pending("/t/a.jsonl", "ingest-1");
    pending("/t/b.jsonl", "ingest-2");
    state.store.settleRuns([{ runId: "ingest-1", status: "done" }], 77);
    expect(row("/t/a.jsonl")).toMatchObject({
      ingested_offset: 700,
      ingested_activity: 5_000,
      ingested_print: "print-700-/t/a.jsonl",
      seen_size: 750,
      seen_mtime: 6_000,
      pending_run_id: null,
      pending_offset: null,
      pending_activity: null,
      pending_print: null,
      updated_at: 77,
    });
    expect(row("/t/b.jsonl")).toMatchObject({ pending_run_id: "ingest-2", updated_at: 10 });
  });

  test.each(["failed", "cancelled", "lost"] as const)("a %s run's part is dropped and its file will be opened again", (status) => {
    state = syncState();
    pending("/t/a.jsonl", "ingest-1", { fromOffset: 0 });
    state.store.settleRuns([{ runId: "ingest-1", status: "done" }], 20);
    pending("/t/a.jsonl", "ingest-2", { expected: { ingestedOffset: 700, ingestedPrint: "print-700-/t/a.jsonl" }, fromOffset: 700, fromPrint: "print-700-/t/a.jsonl", toOffset: 900, toPrint: "p900" });
    state.store.settleRuns([{ runId: "ingest-2", status }], 88);
    expect(row("/t/a.jsonl")).toMatchObject({
      ingested_offset: 700,
      ingested_activity: 5_000,
      ingested_print: "print-700-/t/a.jsonl",
      seen_size: -1,
      seen_mtime: 6_000,
      pending_run_id: null,
      pending_offset: null,
      pending_activity: null,
      pending_print: null,
      updated_at: 88,
    });
  });

  test("every cursor waiting on a run is settled, and nothing else; an empty list changes nothing", () => {
    state = syncState();
    pending("/t/a.jsonl", "ingest-1");
    pending("/t/b.jsonl", "ingest-1");
    pending("/t/c.jsonl", "ingest-2");
    state.store.settleRuns([], 99);
    state.store.settleRuns([{ runId: "ingest-unknown", status: "done" }], 99);
    expect([...state.store.cursors().values()].map((c) => c.pendingRunId)).toEqual(["ingest-1", "ingest-1", "ingest-2"]);
    state.store.settleRuns([{ runId: "ingest-1", status: "done" }, { runId: "ingest-2", status: "failed" }], 99);
    const cursors = state.store.cursors();
    expect([...cursors.values()].map((c) => [c.pathKey, c.pendingRunId, c.ingestedOffset, c.seenSize])).toEqual([
      ["/t/a.jsonl", null, 700, 750],
      ["/t/b.jsonl", null, 700, 750],
      ["/t/c.jsonl", null, 0, -1],
    ]);
  });

  test("inside jobs prune's transaction: the cursors are settled and the runs deleted in one commit", () => {
    state = syncState();
    const enqueue = (runId: string) =>
      state.runs.enqueueRun({ runId, repositoryId: "repo_0123456789abcdef", repositoryName: "demo", repositoryRoot: "/tmp/demo", kind: "ingest", title: null, spec: spec("ingest"), logPath: `/tmp/${runId}.log`, now: 1_000 });
    enqueue("ingest-done");
    enqueue("ingest-failed");
    finish("ingest-done", "done");
    finish("ingest-failed", "failed");
    pending("/t/a.jsonl", "ingest-done");
    pending("/t/b.jsonl", "ingest-failed");
    const pruned = state.runs.pruneRuns(2_000, (runs) => state.store.settleRuns(runs, 3_000));
    expect(pruned.map((r) => [r.runId, r.status])).toEqual([["ingest-done", "done"], ["ingest-failed", "failed"]]);
    expect(row("/t/a.jsonl")).toMatchObject({ ingested_offset: 700, pending_run_id: null, updated_at: 3_000 });
    expect(row("/t/b.jsonl")).toMatchObject({ ingested_offset: 0, seen_size: -1, pending_run_id: null, updated_at: 3_000 });
    expect(state.runs.getRun("ingest-done")).toBeUndefined();
  });

  test("when settling fails inside prune, neither the cursors nor the runs change", () => {
    state = syncState();
    state.runs.enqueueRun({ runId: "ingest-done", repositoryId: "repo_0123456789abcdef", repositoryName: "demo", repositoryRoot: "/tmp/demo", kind: "ingest", title: null, spec: spec("ingest"), logPath: "/tmp/x.log", now: 1_000 });
    finish("ingest-done", "done");
    pending("/t/a.jsonl", "ingest-done");
    pending("/t/b.jsonl", "ingest-done");
    expect(() =>
      state.runs.pruneRuns(2_000, (runs) => {
        state.store.settleRuns(runs, 3_000);
        throw new Error("disk full");
      }),
    ).toThrow("disk full");
    expect(row("/t/a.jsonl")).toMatchObject({ pending_run_id: "ingest-done", updated_at: 10 });
    expect(state.runs.getRun("ingest-done")?.status).toBe("done");
  });
});

describe("settledCursor", () => {
  const cursor: SyncCursor = {
    pathKey: "/t/a.jsonl",
    app: "claude",
    path: "/t/a.jsonl",
    sessionId: "s",
    repositoryId: "r",
    ingestedOffset: 100,
    ingestedActivity: 1,
    ingestedPrint: "p100",
    seenSize: 500,
    seenMtime: 2,
    pendingRunId: "ingest-1",
    pendingOffset: 400,
    pendingActivity: 3,
    pendingPrint: "p400",
  };
  const cleared = { pendingRunId: null, pendingOffset: null, pendingActivity: null, pendingPrint: null };

  test("done: the pending part is absorbed", () => {
    expect(settledCursor(cursor, "done")).toEqual({ ...cursor, ...cleared, ingestedOffset: 400, ingestedActivity: 3, ingestedPrint: "p400" });
  });

  test.each(["failed", "cancelled", "lost"] as const)("%s: the pending part is dropped and the seen size forgotten", (status) => {
    expect(settledCursor(cursor, status)).toEqual({ ...cursor, ...cleared, seenSize: -1 });
  });

  test("the cursor given is not changed", () => {
    const copy = { ...cursor };
    settledCursor(cursor, "done");
    settledCursor(cursor, "failed");
    expect(cursor).toEqual(copy);
  });
});

test("recordScan keeps one time per app, the latest written", () => {
  state = syncState();
  state.store.recordScan("claude", 1_000);
  state.store.recordScan("codex", 2_000);
  state.store.recordScan("claude", 500);
  expect(state.store.scans()).toEqual(new Map([["claude", 500], ["codex", 2_000]]));
});

test("cursors written before fingerprints keep their offsets and have none", () => {
  // The state database as it was before the fingerprint migration (every later one waits too:
  // the domains share one version counter, so a migration is never applied out of order).
  const fingerprints = syncMigrations.find((m) => m.name === "sync cursor fingerprints")!.version;
  const before = STATE_MIGRATIONS.filter((m) => m.version < fingerprints);
  state = syncState(before);
  state.db
    .prepare(
      `INSERT INTO sync_cursors (path_key, app, path, session_id, repository_id, ingested_offset, ingested_activity, seen_size, seen_mtime, updated_at)
       VALUES ('/t/old.jsonl', 'claude', '/t/old.jsonl', 's', 'r', 321, 9, 400, 8, 7)`,
    )
    .run();
  const reopened = state.open(STATE_MIGRATIONS);
  expect(reopened.store.cursors().get("/t/old.jsonl")).toEqual({
    pathKey: "/t/old.jsonl",
    app: "claude",
    path: "/t/old.jsonl",
    sessionId: "s",
    repositoryId: "r",
    ingestedOffset: 321,
    ingestedActivity: 9,
    ingestedPrint: null,
    seenSize: 400,
    seenMtime: 8,
    pendingRunId: null,
    pendingOffset: null,
    pendingActivity: null,
    pendingPrint: null,
  });
});
