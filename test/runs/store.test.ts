import { afterEach, describe, expect, test } from "vitest";
import { enqueue, ledger, type Ledger } from "./helpers.js";
import { parseRunId, newRunId } from "../../src/runs/ids.js";
import { parseSpec } from "../../src/runs/spec.js";
import type { ExecutionRef } from "../../src/runs/model.js";

let l: Ledger;
afterEach(() => l?.close());

const execution = (workerToken: string | null = null, executionId = "exec-1"): ExecutionRef => ({
  executionId,
  pid: 4242,
  startTime: "123456",
  pgid: 4242,
  workerToken,
});

describe("run ledger", () => {
  test("a queued run has its spec and a first status event", () => {
    l = ledger();
    const id = enqueue(l, "ingest");
    const record = l.runs.requireRun(id);
    expect(record.status).toBe("queued");
    expect(record.title).toBeNull();
    expect(JSON.parse(record.specJson).inputs).toEqual(["notes.md"]);
    expect(l.runs.listEvents(id).map((e) => [e.seq, e.kind, e.message])).toEqual([[1, "status", "queued ingest"]]);
  });

  test("queue order is first in, first out by commit sequence", () => {
    l = ledger();
    const a = enqueue(l, "garden", 5_000);
    const b = enqueue(l, "garden", 1_000); // an earlier clock does not jump the queue
    expect(l.runs.takeNextQueued(10_000, parseSpec)?.record.runId).toBe(a);
    expect(l.runs.runsAhead(l.runs.requireRun(b).seq)).toBe(1);
  });

  test("a claim moves queued to running once and records the executor", () => {
    l = ledger();
    const id = enqueue(l);
    expect(l.runs.claimRun(id, execution(), 2_000)).toBe("claimed");
    expect(l.runs.claimRun(id, execution(null, "exec-2"), 2_001)).toBe("not_queued");
    const record = l.runs.requireRun(id);
    expect(record.status).toBe("running");
    expect(record.execution).toMatchObject({ executionId: "exec-1", pid: 4242, startTime: "123456", pgid: 4242 });
    expect(record.claimSeq).toBe(1);
  });

  test("a claim fails when the spawning worker no longer holds the lock", () => {
    l = ledger();
    const id = enqueue(l);
    const owner = { token: "worker-a", pid: 1, startTime: "1" };
    expect(l.locks.acquireWorkerLock(owner, 1_000, 30_000, () => true)).toBe(true);
    expect(l.runs.claimRun(id, execution("worker-b"), 2_000)).toBe("lock_lost");
    expect(l.runs.requireRun(id).status).toBe("queued");
    expect(l.runs.claimRun(id, execution("worker-a"), 2_000)).toBe("claimed");
  });

  test("a cancelled queued run can never be claimed", () => {
    l = ledger();
    const id = enqueue(l);
    expect(l.runs.requestCancellation(id, 2_000)).toMatchObject({ changed: true, record: { status: "cancelled" } });
    expect(l.runs.claimRun(id, execution(), 3_000)).toBe("not_queued");
    expect(l.runs.listEvents(id).map((e) => e.message)).toEqual(["queued garden", "cancelled"]);
  });

  test("the first terminal write wins and later writes report changed: false", () => {
    l = ledger();
    const id = enqueue(l);
    l.runs.claimRun(id, execution(), 2_000);
    expect(l.runs.finishRun(id, 3_000, { status: "done", summary: "ok" }).changed).toBe(true);
    const again = l.runs.finishRun(id, 4_000, { status: "failed", error: "late", category: "internal_error" });
    expect(again.changed).toBe(false);
    expect(again.record).toMatchObject({ status: "done", summary: "ok", error: null, failureCategory: null });
    expect(l.runs.listEvents(id).filter((e) => e.kind === "status").map((e) => e.message)).toEqual([
      "queued garden",
      "running",
      "done",
    ]);
  });

  test("a finish bound to an execution id leaves another execution's run alone", () => {
    l = ledger();
    const id = enqueue(l);
    l.runs.claimRun(id, execution(null, "exec-1"), 2_000);
    expect(l.runs.finishRun(id, 3_000, { status: "failed", category: "internal_error" }, "exec-other").changed).toBe(false);
    expect(l.runs.requireRun(id).status).toBe("running");
  });

  test("running cancellation records intent, then finishes only for the same execution", () => {
    l = ledger();
    const id = enqueue(l);
    l.runs.claimRun(id, execution(null, "exec-1"), 2_000);
    const intent = l.runs.requestCancellation(id, 3_000);
    expect(intent).toMatchObject({ changed: true, record: { status: "running", cancelRequestedAt: 3_000 } });
    expect(l.runs.requestCancellation(id, 3_500).changed).toBe(false);
    expect(l.runs.finishCancellation(id, 4_000, "exec-other").changed).toBe(false);
    expect(l.runs.finishCancellation(id, 4_000, "exec-1")).toMatchObject({ changed: true, record: { status: "cancelled" } });
    expect(l.runs.finishRun(id, 5_000, { status: "done" }).changed).toBe(false);
    expect(l.runs.listEvents(id).map((e) => e.message)).toEqual(["queued garden", "running", "cancellation requested", "cancelled"]);
  });

  test("cancelling a finished run changes nothing", () => {
    l = ledger();
    const id = enqueue(l);
    l.runs.claimRun(id, execution(), 2_000);
    l.runs.finishRun(id, 3_000, { status: "done" });
    expect(l.runs.requestCancellation(id, 4_000)).toMatchObject({ changed: false, record: { status: "done" } });
  });

  test("events are numbered per run without gaps and never rewrite the run row", () => {
    l = ledger();
    const a = enqueue(l);
    const b = enqueue(l);
    const before = l.db.prepare("SELECT updated_at FROM runs WHERE run_id = ?").pluck().get(a);
    for (let i = 0; i < 5; i++) l.runs.appendEvent(a, 2_000 + i, "tool", `step ${i}`, { kind: "tool_use", message: `step ${i}` });
    l.runs.appendEvent(b, 2_000, "message", "hello");
    expect(l.runs.listEvents(a).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(l.runs.listEvents(a, 4).map((e) => e.seq)).toEqual([5, 6]);
    expect(l.runs.listEvents(b).map((e) => e.seq)).toEqual([1, 2]);
    expect(l.db.prepare("SELECT updated_at FROM runs WHERE run_id = ?").pluck().get(a)).toBe(before);
    expect(l.runs.requireRun(a).updatedAt).toBe(2_004);
  });

  test("a spec that does not parse fails its run and the queue moves on", () => {
    l = ledger();
    const bad = enqueue(l);
    const good = enqueue(l);
    l.db.prepare("UPDATE runs SET spec_json = ? WHERE run_id = ?").run('{"version": 1, "kind": "garden"', bad);
    expect(l.runs.takeNextQueued(2_000, parseSpec)?.record.runId).toBe(good);
    expect(l.runs.requireRun(bad)).toMatchObject({ status: "failed", failureCategory: "internal_error" });
    expect(l.runs.requireRun(bad).error).toMatch(/spec is not valid JSON/);
  });

  test("specs tolerate unknown fields from newer writers", () => {
    const parsed = parseSpec(
      JSON.stringify({ version: 1, kind: "garden", harness: "claude", model: "m", inputs: [], future_field: { x: 1 } }),
    );
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect((parsed.spec as Record<string, unknown>).future_field).toEqual({ x: 1 });
    expect(parseSpec(JSON.stringify({ version: 2, kind: "garden", harness: "claude", model: "m" })).ok).toBe(false);
    expect(parseSpec(JSON.stringify({ version: 1, kind: "ingest", harness: "claude", model: "m", inputs: [] })).ok).toBe(false);
  });

  test("prune deletes old finished runs and their events, never active ones", () => {
    l = ledger();
    const old = enqueue(l, "garden", 1_000);
    const active = enqueue(l, "garden", 1_000);
    l.runs.requestCancellation(old, 1_500);
    const settled: unknown[] = [];
    const pruned = l.runs.pruneRuns(2_000, (runs) => settled.push(runs.map((r) => ({ ...r, stillThere: l.runs.getRun(r.runId)?.status }))));
    expect(pruned).toEqual([{ runId: old, logPath: `/tmp/${old}.log`, status: "cancelled" }]);
    // The settle port sees the runs while they still exist, in the prune's own transaction.
    expect(settled).toEqual([[{ runId: old, logPath: `/tmp/${old}.log`, status: "cancelled", stillThere: "cancelled" }]]);
    expect(l.runs.getRun(old)).toBeUndefined();
    expect(l.db.prepare("SELECT COUNT(*) FROM run_events WHERE run_id = ?").pluck().get(old)).toBe(0);
    expect(l.runs.getRun(active)?.status).toBe("queued");
  });

  test("a prune whose settle port throws deletes nothing", () => {
    l = ledger();
    const old = enqueue(l, "garden", 1_000);
    l.runs.requestCancellation(old, 1_500);
    expect(() => l.runs.pruneRuns(2_000, () => { throw new Error("settle failed"); })).toThrow("settle failed");
    expect(l.runs.getRun(old)?.status).toBe("cancelled");
  });

  test("run ids follow the spec format and path-shaped ids are rejected", () => {
    expect(newRunId("ingest", Date.UTC(2026, 6, 11, 12, 3, 4))).toMatch(/^ingest-20260711120304-[0-9a-f]{8}$/);
    expect(parseRunId("  garden-1  ")).toBe("garden-1");
    for (const bad of ["../secret", "run.json", "run id", "", "   "]) expect(() => parseRunId(bad)).toThrow(/invalid run id/);
  });
});
