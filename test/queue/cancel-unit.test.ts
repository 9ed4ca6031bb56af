import { afterEach, describe, expect, test } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cancelRun } from "../../src/queue/cancel.js";
import { isProductError } from "../../src/core/errors.js";
import { enqueue, ledger, type Ledger } from "../runs/helpers.js";
import { FakeProcesses, hooksCalling, tempEnvironments } from "./fake-ports.js";

let l: Ledger;
let envs: ReturnType<typeof tempEnvironments>;
let processes: FakeProcesses;
let order: string[];
afterEach(() => {
  l?.close();
  envs?.remove();
});

const GRACE_MS = 2_468;

function fresh(): void {
  l = ledger();
  envs = tempEnvironments();
  processes = new FakeProcesses();
  order = [];
}

function deps() {
  return {
    runs: l.runs,
    processes,
    hooks: hooksCalling({ cancelAfterIntent: () => order.push("intent"), cancelBeforeFinish: () => order.push("before finish") }),
    now: Date.now,
    graceMs: GRACE_MS,
    environments: envs.environments,
  };
}

/** A running run executed by pid 3000 (start time st-3000), which leads its own group unless `pgid` says otherwise. */
function runningRun(options: { alive?: boolean; pgid?: number } = {}): string {
  const runId = enqueue(l);
  l.locks.acquireWorkerLock({ token: "w", pid: 1, startTime: "1" }, Date.now(), 30_000, () => true);
  l.runs.claimRun(runId, { executionId: "e1", pid: 3000, startTime: "st-3000", pgid: options.pgid ?? 3000, workerToken: "w" }, Date.now());
  if (options.alive ?? true) processes.live.set(3000, "st-3000");
  envs.environments.save(runId, { SECRET: "x" });
  return runId;
}

const environmentOf = (runId: string) => join(envs.dir, runId, "environment.json");

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isProductError(error)) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error("expected the cancel to be refused");
}

describe("jobs cancel", () => {
  test("a queued run is cancelled at once, signals nothing, and loses its environment", async () => {
    fresh();
    const runId = enqueue(l);
    envs.environments.save(runId, { SECRET: "x" });
    const outcome = await cancelRun(deps(), runId);
    expect({ status: outcome.record.status, changed: outcome.changed }).toEqual({ status: "cancelled", changed: true });
    expect(processes.calls).toEqual([]);
    expect(existsSync(environmentOf(runId))).toBe(false);
  });

  test("a finished run is left as it is", async () => {
    fresh();
    const runId = runningRun();
    l.runs.finishRun(runId, Date.now(), { status: "done", summary: "ok" });
    const outcome = await cancelRun(deps(), runId);
    expect({ status: outcome.record.status, changed: outcome.changed }).toEqual({ status: "done", changed: false });
    expect(processes.calls).toEqual([]);
  });

  test("a live executor is stopped with the configured grace (SIGTERM first), its group signalled, then the run is cancelled", async () => {
    fresh();
    const runId = runningRun();
    const outcome = await cancelRun(deps(), runId);
    expect(processes.calls).toEqual([
      { verb: "stop", graceMs: GRACE_MS, target: { pid: 3000, startTime: "st-3000", pgid: 3000, marker: { key: "CODEALMANAC_EXECUTION_ID", value: "e1" } } },
    ]);
    expect(order).toEqual(["intent", "before finish"]);
    expect({ status: outcome.record.status, changed: outcome.changed }).toEqual({ status: "cancelled", changed: true });
    expect(existsSync(environmentOf(runId))).toBe(false);
  });

  test("a group the executor does not lead is never signalled as a group", async () => {
    fresh();
    const runId = runningRun({ pgid: 77 });
    await cancelRun(deps(), runId);
    expect(processes.calls[0]?.target.pgid).toBe(-1);
  });

  test("an executor that is already gone gets only the leftover sweep", async () => {
    fresh();
    const runId = runningRun({ alive: false });
    const outcome = await cancelRun(deps(), runId);
    expect(processes.verbs()).toEqual(["leftovers"]);
    expect(outcome.record.status).toBe("cancelled");
  });

  test("a running row without a recorded executor is refused, and nothing is signalled", async () => {
    fresh();
    const runId = runningRun();
    l.db.prepare("UPDATE runs SET executor_pid = NULL WHERE run_id = ?").run(runId);
    expect(await refusal(cancelRun(deps(), runId))).toBe(`execution_failed: run ${runId} is running but has no recorded executor; try again shortly`);
    expect(processes.calls).toEqual([]);
    expect(order).toEqual([]);
  });

  test("a pid now held by another process is never signalled; the intent stays for the worker", async () => {
    fresh();
    const runId = runningRun({ alive: false });
    processes.live.set(3000, "someone-else");
    expect(await refusal(cancelRun(deps(), runId))).toBe(
      `execution_failed: refusing to signal pid 3000: it is no longer run ${runId}'s executor (its start time differs); the worker will finish the cancellation`,
    );
    expect(processes.calls).toEqual([]);
    const record = l.runs.requireRun(runId);
    expect(record.status).toBe("running");
    expect(record.cancelRequestedAt).not.toBeNull();
  });

  test("a stop that leaves a survivor is refused, naming it, and the run stays running", async () => {
    fresh();
    const runId = runningRun();
    processes.stopAnswers.push({ confirmed: false, survivors: [3001, 3002] });
    expect(await refusal(cancelRun(deps(), runId))).toBe(
      `execution_failed: could not confirm that run ${runId} stopped (still alive: 3001, 3002); run \`codealmanac jobs cancel ${runId}\` again`,
    );
    expect(l.runs.requireRun(runId).status).toBe("running");
    expect(order).toEqual(["intent"]);
    expect(existsSync(environmentOf(runId))).toBe(true);
  });

  test("a run that ends done while it is being stopped is reported done, even when a survivor was left", async () => {
    fresh();
    const runId = runningRun();
    processes.duringStop = () => l.runs.finishRun(runId, Date.now(), { status: "done", summary: "made it" }, "e1");
    processes.stopAnswers.push({ confirmed: false, survivors: [3001] });
    const outcome = await cancelRun(deps(), runId);
    expect({ status: outcome.record.status, summary: outcome.record.summary, changed: outcome.changed }).toEqual({ status: "done", summary: "made it", changed: false });
  });

  test("a run that ends done while it is being stopped is reported done", async () => {
    fresh();
    const runId = runningRun();
    processes.duringStop = () => l.runs.finishRun(runId, Date.now(), { status: "done", summary: "made it" }, "e1");
    const outcome = await cancelRun(deps(), runId);
    expect({ status: outcome.record.status, changed: outcome.changed }).toEqual({ status: "done", changed: false });
  });

  test("when the worker writes cancelled first, on seeing its executor exit after our intent, this cancel still caused it", async () => {
    fresh();
    const runId = runningRun();
    processes.duringStop = () => l.runs.finishCancellation(runId, Date.now(), "e1");
    const outcome = await cancelRun(deps(), runId);
    expect({ status: outcome.record.status, changed: outcome.changed }).toEqual({ status: "cancelled", changed: true });
  });

  test("when the worker writes cancelled on our intent while a survivor keeps the stop unconfirmed, this cancel still caused it", async () => {
    fresh();
    const runId = runningRun();
    processes.duringStop = () => l.runs.finishCancellation(runId, Date.now(), "e1");
    processes.stopAnswers.push({ confirmed: false, survivors: [3001] });
    const outcome = await cancelRun(deps(), runId);
    expect({ status: outcome.record.status, changed: outcome.changed }).toEqual({ status: "cancelled", changed: true });
  });

  test("a second cancel of a run whose cancellation another canceller already finished changes nothing", async () => {
    fresh();
    const runId = runningRun();
    await cancelRun(deps(), runId);
    const again = await cancelRun(deps(), runId);
    expect({ status: again.record.status, changed: again.changed }).toEqual({ status: "cancelled", changed: false });
  });
});
