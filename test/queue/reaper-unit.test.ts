import { afterEach, describe, expect, test } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { reapOrphanedRuns, targetFor } from "../../src/queue/reaper.js";
import { enqueue, ledger, type Ledger } from "../runs/helpers.js";
import { FakeProcesses, tempEnvironments } from "./fake-ports.js";

/** The reaper over a real ledger, with the operating system faked. */

let l: Ledger;
let envs: ReturnType<typeof tempEnvironments>;
let processes: FakeProcesses;
let lines: string[];
afterEach(() => {
  l?.close();
  envs?.remove();
});

const NOW = 50_000;

function fresh(): void {
  l = ledger();
  envs = tempEnvironments();
  processes = new FakeProcesses();
  lines = [];
}

const reap = () => reapOrphanedRuns({ runs: l.runs, processes, now: () => NOW, log: (line) => lines.push(line), environments: envs.environments });

/** A running run executed by `pid` (start time st-<pid>), with an environment on disk. */
function runningRun(pid: number, options: { alive: boolean; pgid?: number }): string {
  const runId = enqueue(l);
  l.locks.acquireWorkerLock({ token: "w", pid: 1, startTime: "1" }, 1_000, 30_000, () => true);
  l.runs.claimRun(runId, { executionId: `e-${pid}`, pid, startTime: `st-${pid}`, pgid: options.pgid ?? pid, workerToken: "w" }, 2_000);
  if (options.alive) processes.live.set(pid, `st-${pid}`);
  envs.environments.save(runId, { SECRET: "x" });
  return runId;
}

const hasEnvironment = (runId: string) => existsSync(join(envs.dir, runId, "environment.json"));

describe("targets", () => {
  test("an execution is stopped by its pid, start time and marker; its group only when it leads it", () => {
    const execution = { executionId: "e1", pid: 10, startTime: "st", pgid: 10, workerToken: null };
    expect(targetFor(execution)).toEqual({ pid: 10, startTime: "st", pgid: 10, marker: { key: "CODEALMANAC_EXECUTION_ID", value: "e1" } });
    expect(targetFor({ ...execution, pgid: 11 }).pgid).toBe(-1);
  });
});

describe("reaping", () => {
  test("a run whose executor is gone fails once its leftovers are swept, and loses its environment; a live one is left alone", async () => {
    fresh();
    const gone = runningRun(3000, { alive: false });
    const live = runningRun(3001, { alive: true });
    expect(await reap()).toBe(1);
    expect(processes.calls.map((c) => [c.verb, c.target.pid])).toEqual([["leftovers", 3000]]);
    expect(l.runs.requireRun(gone)).toMatchObject({
      status: "failed",
      failureCategory: "internal_error",
      error: "executor 3000 is gone; the run was interrupted before it finished",
      finishedAt: NOW,
    });
    expect(l.runs.listEvents(gone).slice(-2).map((e) => [e.kind, e.message])).toEqual([
      ["error", "executor 3000 is gone; the run was interrupted before it finished"],
      ["status", "failed"],
    ]);
    expect(lines).toEqual([`run ${gone}: executor 3000 is gone; the run was interrupted before it finished`]);
    expect(hasEnvironment(gone)).toBe(false);
    expect(l.runs.requireRun(live).status).toBe("running");
    expect(hasEnvironment(live)).toBe(true);
  });

  test("a pid now held by another process counts as gone: the sweep goes by the execution's marker", async () => {
    fresh();
    const runId = runningRun(3000, { alive: false, pgid: 77 });
    processes.live.set(3000, "someone-else");
    expect(await reap()).toBe(1);
    expect(processes.calls.map((c) => c.target)).toEqual([{ pid: 3000, startTime: "st-3000", pgid: -1, marker: { key: "CODEALMANAC_EXECUTION_ID", value: "e-3000" } }]);
    expect(l.runs.requireRun(runId).status).toBe("failed");
  });

  test("a run whose cancellation was asked for ends cancelled", async () => {
    fresh();
    const runId = runningRun(3000, { alive: false });
    l.runs.requestCancellation(runId, 3_000);
    expect(await reap()).toBe(1);
    expect(l.runs.requireRun(runId)).toMatchObject({ status: "cancelled", error: null, finishedAt: NOW });
    expect(hasEnvironment(runId)).toBe(false);
    expect(lines).toEqual([]);
  });

  test("a survivor of the sweep keeps the run running, named in the log, with its environment", async () => {
    fresh();
    const runId = runningRun(3000, { alive: false });
    processes.leftoverAnswers.push({ confirmed: false, survivors: [4242, 4243] });
    expect(await reap()).toBe(0);
    expect(l.runs.requireRun(runId).status).toBe("running");
    expect(lines).toEqual([`run ${runId}: its executor is gone but processes survived cleanup (still alive: 4242, 4243); left running`]);
    expect(hasEnvironment(runId)).toBe(true);
    // Once it is gone, the next reap finishes the run.
    expect(await reap()).toBe(1);
    expect(l.runs.requireRun(runId).status).toBe("failed");
  });

  test("a running row without a recorded executor fails without any signal", async () => {
    fresh();
    const runId = runningRun(3000, { alive: true });
    l.db.prepare("UPDATE runs SET executor_pid = NULL WHERE run_id = ?").run(runId);
    l.runs.requestCancellation(runId, 3_000);
    expect(await reap()).toBe(1);
    expect(processes.calls).toEqual([]);
    expect(l.runs.requireRun(runId)).toMatchObject({ status: "failed", error: "the run has no recorded executor" });
    expect(lines).toEqual([`run ${runId}: the run has no recorded executor`]);
    expect(hasEnvironment(runId)).toBe(false);
  });

  test("a run someone else finished while its leftovers were swept keeps that outcome, and is neither counted nor logged", async () => {
    fresh();
    const runId = runningRun(3000, { alive: false });
    processes.duringLeftovers = () => l.runs.finishRun(runId, 40_000, { status: "done", summary: "made it" }, "e-3000");
    expect(await reap()).toBe(0);
    expect(l.runs.requireRun(runId)).toMatchObject({ status: "done", summary: "made it", error: null });
    expect(lines).toEqual([]);
  });

  test("nothing running, nothing reaped", async () => {
    fresh();
    enqueue(l);
    expect(await reap()).toBe(0);
    expect(processes.calls).toEqual([]);
  });
});
