import { afterEach, describe, expect, test } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { QueueWorker, type WorkerConfig } from "../../src/queue/worker.js";
import type { Dispatch } from "../../src/queue/ports.js";
import { noHooks, type Hooks } from "../../src/queue/hooks.js";
import { enqueue, ledger, type Ledger } from "../runs/helpers.js";
import { FakeProcesses, FakeSpawner, tempEnvironments, type FakeStandby } from "./fake-ports.js";

let l: Ledger;
let envs: ReturnType<typeof tempEnvironments>;
afterEach(() => {
  l?.close();
  envs?.remove();
});

const CONFIG: WorkerConfig = {
  staleAfterMs: 30_000,
  heartbeatMs: 3_600_000,
  cancelGraceMs: 1_234,
  superviseMs: 5,
  abandonedCancelMs: 15_000,
  runTimeoutMs: 3_600_000,
};

interface Harness {
  worker: QueueWorker;
  processes: FakeProcesses;
  spawner: FakeSpawner;
  lines: string[];
}

/** A worker over a real ledger, with the operating system faked. */
function harness(onDispatch: (standby: FakeStandby, dispatch: Dispatch) => void, options: { config?: Partial<WorkerConfig>; hooks?: Hooks } = {}): Harness {
  const processes = new FakeProcesses();
  const spawner = new FakeSpawner(processes, onDispatch);
  const lines: string[] = [];
  const worker = new QueueWorker({
    runs: l.runs,
    locks: l.locks,
    processes,
    spawner,
    hooks: options.hooks ?? noHooks,
    now: Date.now,
    log: (line) => lines.push(line),
    config: { ...CONFIG, ...options.config },
    environments: envs.environments,
  });
  return { worker, processes, spawner, lines };
}

/** What a real executor does first: claim the run for this execution, with the standby's identity. */
function claim(standby: FakeStandby, d: Dispatch): boolean {
  const outcome = l.runs.claimRun(
    d.runId,
    { executionId: d.executionId, pid: standby.pid, startTime: `st-${standby.pid}`, pgid: standby.pid, workerToken: d.workerToken },
    Date.now(),
  );
  return outcome === "claimed";
}

/** An executor that claims its run and finishes it `done`. */
function finishes(standby: FakeStandby, d: Dispatch): void {
  if (!claim(standby, d)) return standby.exit({ code: 3, signal: null });
  l.runs.finishRun(d.runId, Date.now(), { status: "done", summary: `done by ${standby.pid}` });
  standby.exit({ code: 0, signal: null });
}

/** An executor that claims its run and then dies without finishing it. */
function crashesAfterClaim(standby: FakeStandby, d: Dispatch): void {
  claim(standby, d);
  standby.exit({ code: null, signal: "SIGKILL" });
}

/** An executor that claims its run and works until it is stopped. */
function claimsAndHangs(standby: FakeStandby, d: Dispatch): void {
  claim(standby, d);
}

const unconfirmed = (...survivors: number[]) => ({ confirmed: false, survivors });

/** Each test makes its own ledger and environment folder (the afterEach above removes them). */
function fresh(): void {
  l = ledger();
  envs = tempEnvironments();
}

describe("the worker drains the queue", () => {
  test("runs execute one at a time in queue order, each in a fresh standby, and the idle handoff releases the lock", async () => {
    fresh();
    const a = enqueue(l);
    const b = enqueue(l);
    const { worker, spawner, lines } = harness(finishes);
    const result = await worker.drain();
    expect(result.ending).toBe("released");
    expect(result.processed.map((r) => [r.runId, r.status])).toEqual([
      [a, "done"],
      [b, "done"],
    ]);
    expect(l.runs.requireRun(a).summary).toBe("done by 2000");
    expect(l.runs.requireRun(b).summary).toBe("done by 2001");
    // The third standby was started ahead for a next run that never came, and dismissed.
    expect(spawner.standbys.map((s) => [s.pid, s.dispatched?.runId ?? null, s.dismissed])).toEqual([
      [2000, a, false],
      [2001, b, false],
      [2002, null, true],
    ]);
    expect(l.locks.readWorkerLock()).toBeNull();
    expect(lines.at(-1)).toBe("worker 1000: drain ended (released) after 2 run(s)");
  });

  test("a drain that throws gives the lock up and says it failed", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, spawner, lines } = harness(finishes);
    spawner.failNextSpawn = new Error("spawn EAGAIN");
    await expect(worker.drain()).rejects.toThrow("spawn EAGAIN");
    expect(l.locks.readWorkerLock()).toBeNull();
    expect(lines.at(-1)).toBe("worker 1000: drain ended (failed: spawn EAGAIN) after 0 run(s)");
    // Nothing was claimed: the run waits for the next worker.
    expect(l.runs.requireRun(run).status).toBe("queued");
  });

  test("a standby whose start time cannot be read is never handed a run; the execution's identity is the one that ran it", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, spawner, processes } = harness(finishes);
    spawner.unreadable.add(2000);
    await worker.drain();
    const [unknown, used] = spawner.standbys;
    expect(unknown).toMatchObject({ pid: 2000, dispatched: null, dismissed: true });
    expect(used?.dispatched?.runId).toBe(run);
    expect(l.runs.requireRun(run).status).toBe("done");
    const cleanup = processes.calls.filter((c) => c.verb === "leftovers").map((c) => c.target);
    expect(cleanup.map((t) => [t.pid, t.startTime, t.pgid])).toEqual([[2001, "st-2001", 2001]]);
  });

  test("an executor that exits before claiming fails its run (naming it), and the run's environment is discarded", async () => {
    fresh();
    const run = enqueue(l);
    envs.environments.save(run, { SECRET: "x" });
    const { worker } = harness((standby) => standby.exit({ code: 1, signal: null }));
    const result = await worker.drain();
    expect(result.ending).toBe("released");
    expect(l.runs.requireRun(run)).toMatchObject({ status: "failed", error: "executor 2000 exited with code 1 before claiming the run" });
    expect(existsSync(join(envs.dir, run, "environment.json"))).toBe(false);
  });

  test("an executor that could not claim (the lock moved, exit 3) stops the drain and leaves the run queued", async () => {
    fresh();
    const run = enqueue(l);
    enqueue(l);
    const { worker, spawner } = harness((standby) => standby.exit({ code: 3, signal: null }));
    const result = await worker.drain();
    expect(result.ending).toBe("ownership_lost");
    expect(l.runs.requireRun(run).status).toBe("queued");
    expect(spawner.standbys.filter((s) => s.dispatched).length).toBe(1);
    expect(l.locks.readWorkerLock()).toBeNull();
  });
});

describe("reconciliation never calls a run finished while a process of it is alive", () => {
  test("a crashed executor's run fails once its leftovers are confirmed gone, with its environment discarded", async () => {
    fresh();
    const run = enqueue(l);
    envs.environments.save(run, { SECRET: "x" });
    const { worker, processes } = harness(crashesAfterClaim);
    await worker.drain();
    expect(l.runs.requireRun(run)).toMatchObject({
      status: "failed",
      failureCategory: "internal_error",
      error: "executor 2000 was killed by SIGKILL without finishing the run",
    });
    expect(processes.verbs()).toEqual(["leftovers"]);
    expect(existsSync(join(envs.dir, run, "environment.json"))).toBe(false);
  });

  test("a survivor of every cleanup round keeps the run running with a warning naming it; a later reap finishes it once it is gone", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, processes } = harness(crashesAfterClaim);
    // Three rounds in reconciliation, then the reap before the next take.
    processes.leftoverAnswers.push(unconfirmed(4242), unconfirmed(4242), unconfirmed(4242), unconfirmed(4242));
    await worker.drain();
    expect(l.runs.requireRun(run).status).toBe("running");
    expect(processes.verbs()).toEqual(["leftovers", "leftovers", "leftovers", "leftovers"]);
    const warnings = l.runs.listEvents(run).filter((e) => e.kind === "warning").map((e) => e.message);
    expect(warnings).toEqual(["processes of this run survived cleanup (still alive: 4242); it stays running until they are gone"]);

    // The survivor is gone now: the next drain's reap finishes the run.
    const next = harness(finishes);
    await next.worker.drain();
    expect(l.runs.requireRun(run)).toMatchObject({ status: "failed", error: "executor 2000 is gone; the run was interrupted before it finished" });
  });

  test("a survivor that dies during the cleanup rounds does not keep the run", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, processes } = harness(crashesAfterClaim);
    processes.leftoverAnswers.push(unconfirmed(4242), unconfirmed(4242));
    await worker.drain();
    expect(l.runs.requireRun(run).status).toBe("failed");
    expect(processes.verbs()).toEqual(["leftovers", "leftovers", "leftovers"]);
  });
});

describe("supervision", () => {
  test("a run past runs.timeout is stopped (again, while a process survives) and then recorded as a timeout", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, processes } = harness(claimsAndHangs, { config: { runTimeoutMs: 30 } });
    processes.stopAnswers.push(unconfirmed(2000));
    await worker.drain();
    expect(processes.calls.filter((c) => c.verb === "stop").map((c) => [c.target.pid, c.graceMs])).toEqual([
      [2000, 1_234],
      [2000, 1_234],
    ]);
    const record = l.runs.requireRun(run);
    expect(record).toMatchObject({ status: "failed", failureCategory: "timeout", error: "run exceeded runs.timeout (30ms)" });
    expect(l.runs.listEvents(run).filter((e) => e.kind === "error").map((e) => e.message)).toEqual(["run exceeded runs.timeout (30ms) and was stopped"]);
  });

  test("a cancellation nobody carried out is carried out by the worker, and the run is cancelled", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, processes } = harness((standby, d) => {
      claim(standby, d);
      // The canceller recorded its intent long ago and then died.
      l.runs.requestCancellation(d.runId, Date.now() - 60_000);
    });
    await worker.drain();
    expect(processes.verbs()).toEqual(["stop", "leftovers"]);
    expect(l.runs.requireRun(run).status).toBe("cancelled");
  });

  test("a fresh cancellation intent is left to its canceller", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, processes } = harness((standby, d) => {
      claim(standby, d);
      l.runs.requestCancellation(d.runId, Date.now());
      // The canceller stops the executor itself, well within abandonedCancelMs.
      setTimeout(() => processes.kill(standby.pid), 30);
    });
    await worker.drain();
    expect(processes.verbs()).toEqual(["leftovers"]);
    expect(l.runs.requireRun(run).status).toBe("cancelled");
  });
});

describe("adoption", () => {
  test("a running run whose executor outlived its worker is waited for before anything is claimed", async () => {
    fresh();
    const adopted = enqueue(l);
    const next = enqueue(l);
    l.locks.acquireWorkerLock({ token: "dead-worker", pid: 1, startTime: "1" }, Date.now(), 30_000, () => true);
    l.runs.claimRun(adopted, { executionId: "e-old", pid: 3000, startTime: "st-3000", pgid: 3000, workerToken: "dead-worker" }, Date.now());
    let adoptedDone = false;
    const { worker, processes, lines } = harness((standby, d) => {
      // Nothing is claimed while the adopted executor lives.
      expect(adoptedDone).toBe(true);
      finishes(standby, d);
    });
    processes.live.set(3000, "st-3000");
    const drained = worker.drain();
    await until(() => lines.some((line) => line.includes(`adopting run ${adopted}`)));
    l.runs.finishRun(adopted, Date.now(), { status: "done", summary: "finished by its own executor" });
    adoptedDone = true;
    processes.kill(3000);
    const result = await drained;
    expect(result.processed.map((r) => r.runId)).toEqual([next]);
    expect(l.runs.requireRun(adopted).summary).toBe("finished by its own executor");
    expect(l.runs.requireRun(next).status).toBe("done");
  });
});

/** Waits for a condition the code under test makes true (event loop turns, no deadline). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
