import { afterEach, describe, expect, test } from "vitest";
import { AbandonedRunWatch } from "../../src/queue/abandoned.js";
import type { RunRecord } from "../../src/runs/model.js";
import { enqueue, ledger, type Ledger } from "../runs/helpers.js";
import { FakeProcesses } from "./fake-ports.js";

/** What a follower checks on each poll: is the run it follows looked after by anyone? */

let l: Ledger;
let processes: FakeProcesses;
let recoveries: number;
let started: (number | null)[];
afterEach(() => l?.close());

const NOW = 100_000;
const STALE_MS = 30_000;

function fresh(): AbandonedRunWatch {
  l = ledger();
  processes = new FakeProcesses();
  recoveries = 0;
  started = [];
  return new AbandonedRunWatch({
    locks: l.locks,
    processes,
    now: () => NOW,
    staleAfterMs: STALE_MS,
    recover: async () => {
      recoveries++;
      return started.shift() ?? null;
    },
  });
}

/** The worker lock held by `token`, a process alive unless said otherwise, last heard from `age` ago. */
function worker(token: string, options: { alive?: boolean; age?: number } = {}): void {
  l.locks.acquireWorkerLock({ token, pid: 500, startTime: "st-500" }, NOW - (options.age ?? 0), STALE_MS, () => false);
  if (options.alive ?? true) processes.live.set(500, "st-500");
  else processes.live.delete(500);
}

/** A running run claimed by worker `w` and executed by pid 3000, alive unless said otherwise. */
function running(options: { alive?: boolean } = {}): RunRecord {
  const runId = enqueue(l);
  worker("w", { alive: false });
  l.runs.claimRun(runId, { executionId: "e1", pid: 3000, startTime: "st-3000", pgid: 3000, workerToken: "w" }, NOW);
  l.locks.releaseWorker({ token: "w", pid: 500, startTime: "st-500" });
  if (options.alive ?? true) processes.live.set(3000, "st-3000");
  return l.runs.requireRun(runId);
}

describe("a running run", () => {
  test("with a live executor is looked after", async () => {
    const watch = fresh();
    const run = running();
    expect(await watch.check(run)).toBe(false);
    expect(recoveries).toBe(0);
  });

  test("whose executor is gone is left to its own live worker, which reconciles it", async () => {
    const watch = fresh();
    const run = running({ alive: false });
    worker("w");
    expect(await watch.check(run)).toBe(false);
    worker("w", { age: STALE_MS - 1 });
    expect(await watch.check(run)).toBe(false);
    expect(recoveries).toBe(0);
  });

  test("whose executor is gone is recovered when its worker is gone, stale, another worker, or absent", async () => {
    const watch = fresh();
    const run = running({ alive: false });
    expect(await watch.check(run)).toBe(true);
    worker("w", { alive: false });
    expect(await watch.check(run)).toBe(true);
    worker("w", { age: STALE_MS });
    expect(await watch.check(run)).toBe(true);
    worker("another");
    expect(await watch.check(run)).toBe(true);
    expect(recoveries).toBe(4);
  });

  test("whose executor's pid now belongs to another process is recovered", async () => {
    const watch = fresh();
    const run = running({ alive: false });
    processes.live.set(3000, "someone-else");
    expect(await watch.check(run)).toBe(true);
  });

  test("without a recorded executor is looked after by any live worker, else recovered", async () => {
    const watch = fresh();
    const run: RunRecord = { ...running(), execution: null };
    worker("anyone");
    expect(await watch.check(run)).toBe(false);
    worker("anyone", { alive: false });
    expect(await watch.check(run)).toBe(true);
  });
});

describe("a queued run", () => {
  test("is looked after by any live worker with a fresh heartbeat", async () => {
    const watch = fresh();
    const run = l.runs.requireRun(enqueue(l));
    worker("anyone");
    expect(await watch.check(run)).toBe(false);
    worker("anyone", { age: STALE_MS - 1 });
    expect(await watch.check(run)).toBe(false);
    expect(recoveries).toBe(0);
  });

  test("with no live worker is recovered; the worker that woke is then given time to start, until it is gone", async () => {
    const watch = fresh();
    const run = l.runs.requireRun(enqueue(l));
    worker("dead", { alive: false });
    // The spawned worker exists as soon as the spawn returns.
    started.push(9001);
    processes.live.set(9001, "st-9001");
    expect(await watch.check(run)).toBe(true);
    // The worker it started is still starting up (it has not taken the lock yet): no second one.
    expect(await watch.check(run)).toBe(false);
    expect(recoveries).toBe(1);
    // It died without draining: recover again.
    processes.kill(9001);
    expect(await watch.check(run)).toBe(true);
    expect(recoveries).toBe(2);
  });

  test("a pid that another process took over does not pass for the worker it woke", async () => {
    const watch = fresh();
    const run = l.runs.requireRun(enqueue(l));
    worker("dead", { alive: false });
    started.push(9001);
    processes.live.set(9001, "st-9001");
    expect(await watch.check(run)).toBe(true);
    processes.kill(9001);
    processes.live.set(9001, "someone-else");
    expect(await watch.check(run)).toBe(true);
    expect(recoveries).toBe(2);
  });

  test("a woken worker that was already gone when the spawn returned is not waited for", async () => {
    const watch = fresh();
    const run = l.runs.requireRun(enqueue(l));
    worker("dead", { alive: false });
    started.push(9001);
    expect(await watch.check(run)).toBe(true);
    expect(await watch.check(run)).toBe(true);
    expect(recoveries).toBe(2);
  });

  test("a stale worker does not count, and a recovery that started nobody is tried again next time", async () => {
    const watch = fresh();
    const run = l.runs.requireRun(enqueue(l));
    worker("stalled", { age: STALE_MS });
    expect(await watch.check(run)).toBe(true);
    expect(await watch.check(run)).toBe(true);
    expect(recoveries).toBe(2);
  });
});

test("a finished run needs nobody", async () => {
  const watch = fresh();
  const runId = enqueue(l);
  l.runs.requestCancellation(runId, NOW);
  expect(await watch.check(l.runs.requireRun(runId))).toBe(false);
  expect(recoveries).toBe(0);
});
