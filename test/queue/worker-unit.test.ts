import { afterEach, describe, expect, test } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { QueueWorker, type WorkerConfig } from "../../src/queue/worker.js";
import type { Dispatch } from "../../src/queue/ports.js";
import { noHooks, type Hooks } from "../../src/queue/hooks.js";
import { enqueue, ledger, type Ledger } from "../runs/helpers.js";
import { FakeProcesses, FakeSpawner, hooksCalling, tempEnvironments, type FakeStandby } from "./fake-ports.js";
import { RunEnvironments } from "../../src/queue/run-environment.js";

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
  /** How often the worker has read a run's row to supervise it: an event to wait for, never asserted on. */
  supervisionReads(): number;
}

interface HarnessOptions {
  config?: Partial<WorkerConfig>;
  hooks?: Hooks;
  now?: () => number;
  environments?: RunEnvironments;
}

/** A worker over a real ledger, with the operating system faked. */
function harness(onDispatch: (standby: FakeStandby, dispatch: Dispatch) => void, options: HarnessOptions = {}): Harness {
  const processes = new FakeProcesses();
  const spawner = new FakeSpawner(processes, onDispatch);
  const lines: string[] = [];
  let reads = 0;
  // The real store; only its supervision reads are counted on the way through.
  const runs = new Proxy(l.runs, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      if (property === "getRun") return (runId: string) => (reads++, target.getRun(runId));
      return value.bind(target);
    },
  });
  const worker = new QueueWorker({
    runs,
    locks: l.locks,
    processes,
    spawner,
    hooks: options.hooks ?? noHooks,
    now: options.now ?? Date.now,
    log: (line) => lines.push(line),
    config: { ...CONFIG, ...options.config },
    environments: options.environments ?? envs.environments,
  });
  return { worker, processes, spawner, lines, supervisionReads: () => reads };
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

/** What an executor that has claimed its run does at the end: finish it `done` and exit. */
function completes(standby: FakeStandby, d: Dispatch): void {
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
    expect(result).toMatchObject({ lockAcquired: true, ending: "released" });
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
    expect(lines).toEqual([
      "worker 1000: acquired the queue lock",
      `worker 1000: run ${a} → executor 2000`,
      `worker 1000: run ${b} → executor 2001`,
      "worker 1000: drain ended (released) after 2 run(s)",
    ]);
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
    expect(cleanup).toEqual([{ pid: 2001, startTime: "st-2001", pgid: 2001, marker: { key: "CODEALMANAC_EXECUTION_ID", value: used!.dispatched!.executionId } }]);
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
    const { worker, spawner, lines } = harness((standby) => standby.exit({ code: 3, signal: null }));
    const result = await worker.drain();
    expect(result.ending).toBe("ownership_lost");
    expect(lines).toContain(`run ${run}: the executor could not claim it (the queue lock moved); stopping this drain`);
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
    const { worker, processes, lines } = harness(crashesAfterClaim);
    // Three rounds in reconciliation, then the reap before the next take.
    processes.leftoverAnswers.push(unconfirmed(4242), unconfirmed(4242), unconfirmed(4242, 4243), unconfirmed(4242));
    await worker.drain();
    expect(l.runs.requireRun(run).status).toBe("running");
    expect(processes.verbs()).toEqual(["leftovers", "leftovers", "leftovers", "leftovers"]);
    const warnings = l.runs.listEvents(run).filter((e) => e.kind === "warning").map((e) => e.message);
    expect(warnings).toEqual(["processes of this run survived cleanup (still alive: 4242, 4243); it stays running until they are gone"]);
    expect(lines).toContain(`run ${run}: processes of this run survived cleanup (still alive: 4242, 4243); it stays running until they are gone`);

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
    const { worker, processes, lines } = harness(claimsAndHangs, { config: { runTimeoutMs: 30 } });
    processes.stopAnswers.push(unconfirmed(2000, 2001));
    await worker.drain();
    expect(processes.calls.filter((c) => c.verb === "stop").map((c) => [c.target.pid, c.graceMs])).toEqual([
      [2000, 1_234],
      [2000, 1_234],
    ]);
    const record = l.runs.requireRun(run);
    expect(record).toMatchObject({ status: "failed", failureCategory: "timeout", error: "run exceeded runs.timeout (30ms)" });
    expect(l.runs.listEvents(run).filter((e) => e.kind === "error").map((e) => e.message)).toEqual(["run exceeded runs.timeout (30ms) and was stopped"]);
    // Each stop is announced; only the one that left a survivor says so.
    expect(lines.filter((line) => line.startsWith(`run ${run}:`))).toEqual([
      `run ${run}: exceeded runs.timeout (30ms); stopping executor 2000`,
      `run ${run}: the timeout stopped it, but processes are still alive: 2000, 2001; trying again`,
      `run ${run}: exceeded runs.timeout (30ms); stopping executor 2000`,
    ]);
  });

  test("a cancellation nobody carried out is carried out by the worker (again, while a process survives), and the run is cancelled", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, processes, lines } = harness((standby, d) => {
      claim(standby, d);
      // The canceller recorded its intent long ago and then died.
      l.runs.requestCancellation(d.runId, Date.now() - 60_000);
    });
    processes.stopAnswers.push(unconfirmed(2000));
    await worker.drain();
    expect(processes.verbs()).toEqual(["stop", "stop", "leftovers"]);
    expect(l.runs.requireRun(run).status).toBe("cancelled");
    expect(lines.filter((line) => line.startsWith(`run ${run}:`))).toEqual([
      `run ${run}: cancellation was requested but not carried out; the worker stops the executor`,
      `run ${run}: the worker stopped it for its cancellation, but processes are still alive: 2000; trying again`,
      `run ${run}: cancellation was requested but not carried out; the worker stops the executor`,
    ]);
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

describe("the queue lock", () => {
  test("while a live worker drains the queue with a fresh heartbeat, another exits at once and claims nothing", async () => {
    fresh();
    const run = enqueue(l);
    const holder = { token: "holder", pid: 77, startTime: "st-77" };
    l.locks.acquireWorkerLock(holder, Date.now(), 30_000, () => false);
    const { worker, processes, spawner, lines } = harness(finishes);
    processes.live.set(77, "st-77");
    expect(await worker.drain()).toEqual({ lockAcquired: false, processed: [], ending: "lock_held" });
    expect(lines).toEqual(["worker 1000: the queue is drained by worker 77; exiting"]);
    expect(spawner.standbys).toEqual([]);
    expect(l.runs.requireRun(run).status).toBe("queued");
    expect(l.locks.readWorkerLock()?.token).toBe("holder");
  });

  test("a holder that lets go just as it was checked is named as unknown", async () => {
    fresh();
    const holder = { token: "holder", pid: 77, startTime: "st-77" };
    l.locks.acquireWorkerLock(holder, Date.now(), 30_000, () => false);
    const { worker, processes, lines } = harness(finishes);
    processes.live.set(77, "st-77");
    const probe = processes.probe.bind(processes);
    processes.probe = (id) => {
      if (id.pid === 77) l.locks.releaseWorker(holder);
      return probe(id);
    };
    expect((await worker.drain()).ending).toBe("lock_held");
    expect(lines).toEqual(["worker 1000: the queue is drained by worker ?; exiting"]);
  });

  test("the heartbeat renews the lock while a run executes", async () => {
    fresh();
    const run = enqueue(l);
    let clock = 1_000_000;
    const { worker } = harness(
      (standby, d) => {
        claim(standby, d);
        clock += 5_000;
        void until(() => l.locks.readWorkerLock()?.heartbeatAt === 1_005_000).then(() => completes(standby, d));
      },
      { config: { heartbeatMs: 5 }, now: () => clock },
    );
    const result = await worker.drain();
    expect(result.ending).toBe("released");
    expect(l.runs.requireRun(run).status).toBe("done");
  });

  test("a heartbeat that finds the lock taken over ends the drain after the current run, leaving the new holder's lock alone", async () => {
    fresh();
    const first = enqueue(l);
    const second = enqueue(l);
    const thief = { token: "thief", pid: 88, startTime: "st-88" };
    let current: { standby: FakeStandby; d: Dispatch } | null = null;
    const { worker, lines } = harness(
      (standby, d) => {
        claim(standby, d);
        current = { standby, d };
        l.locks.acquireWorkerLock(thief, Date.now(), 30_000, () => false);
      },
      {
        config: { heartbeatMs: 5 },
        hooks: hooksCalling({
          workerLostLock: () => {
            l.runs.finishRun(current!.d.runId, Date.now(), { status: "done", summary: "finished" });
            current!.standby.exit({ code: 0, signal: null });
          },
        }),
      },
    );
    const result = await worker.drain();
    expect(result.ending).toBe("ownership_lost");
    expect(result.processed.map((r) => [r.runId, r.status])).toEqual([[first, "done"]]);
    expect(l.runs.requireRun(second).status).toBe("queued");
    expect(l.locks.readWorkerLock()?.token).toBe("thief");
    expect(lines.at(-1)).toBe("worker 1000: drain ended (ownership_lost) after 1 run(s)");
  });

  test("a heartbeat that fails is logged, and the drain goes on", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, lines } = harness(
      (standby, d) => {
        claim(standby, d);
        l.db.exec("ALTER TABLE worker_lock RENAME TO worker_lock_away");
        void until(() => lines.some((line) => line.startsWith("worker 1000: heartbeat failed:"))).then(() => {
          l.db.exec("ALTER TABLE worker_lock_away RENAME TO worker_lock");
          completes(standby, d);
        });
      },
      { config: { heartbeatMs: 5 } },
    );
    const result = await worker.drain();
    expect(result.ending).toBe("released");
    expect(lines).toContain("worker 1000: heartbeat failed: no such table: worker_lock");
    expect(l.runs.requireRun(run).status).toBe("done");
  });

  test("a lock that cannot be given up after a failed drain is logged, and the failure is still the drain's", async () => {
    fresh();
    enqueue(l);
    const { worker, spawner, lines } = harness(finishes);
    spawner.beforeSpawn = () => l.db.exec("ALTER TABLE worker_lock RENAME TO worker_lock_away");
    spawner.failNextSpawn = new Error("spawn EAGAIN");
    await expect(worker.drain()).rejects.toThrow("spawn EAGAIN");
    l.db.exec("ALTER TABLE worker_lock_away RENAME TO worker_lock");
    expect(lines.slice(-2)).toEqual([
      "worker 1000: could not release the queue lock: no such table: worker_lock",
      "worker 1000: drain ended (failed: spawn EAGAIN) after 0 run(s)",
    ]);
  });
});

describe("how a drain ends", () => {
  test("a bounded drain stops after its runs, gives the lock up, and leaves the rest queued", async () => {
    fresh();
    const a = enqueue(l);
    const b = enqueue(l);
    const { worker, lines } = harness(finishes);
    const result = await worker.drain({ maxRuns: 1 });
    expect(result).toMatchObject({ lockAcquired: true, ending: "max_runs" });
    expect(result.processed.map((r) => r.runId)).toEqual([a]);
    expect(l.runs.requireRun(b).status).toBe("queued");
    expect(l.locks.readWorkerLock()).toBeNull();
    expect(lines.at(-1)).toBe("worker 1000: drain ended (max_runs) after 1 run(s)");
  });

  test("a bound above what is queued ends with the idle handoff", async () => {
    fresh();
    enqueue(l);
    const { worker } = harness(finishes);
    const result = await worker.drain({ maxRuns: 2 });
    expect(result.ending).toBe("released");
    expect(result.processed).toHaveLength(1);
  });

  test("a run queued at the idle-handoff seam is drained by this worker", async () => {
    fresh();
    const first = enqueue(l);
    let second: string | null = null;
    const seams: string[] = [];
    const { worker } = harness(finishes, {
      hooks: hooksCalling({
        beforeIdleRelease: () => {
          seams.push("beforeIdleRelease");
          second ??= enqueue(l);
        },
        workerAfterSpawn: () => seams.push("workerAfterSpawn"),
      }),
    });
    const result = await worker.drain();
    expect(result.ending).toBe("released");
    expect(result.processed.map((r) => [r.runId, r.status])).toEqual([
      [first, "done"],
      [second, "done"],
    ]);
    expect(seams).toEqual(["workerAfterSpawn", "beforeIdleRelease", "workerAfterSpawn", "beforeIdleRelease"]);
  });

  test("the idle handoff sweeps the environments that ended runs left behind, before it gives up the lock", async () => {
    fresh();
    const crashed = enqueue(l);
    envs.environments.save(crashed, { SECRET: "x" });
    l.runs.finishRun(crashed, Date.now(), { status: "failed", error: "its producer died" });
    const waiting = enqueue(l);
    l.runs.requestCancellation(waiting, Date.now());
    // Whoever sees the queue idle (the lock gone) must find no ended run's secrets left.
    const atRelease: boolean[] = [];
    const { worker } = harness(finishes, {
      hooks: hooksCalling({ beforeIdleRelease: () => atRelease.push(existsSync(join(envs.dir, crashed, "environment.json"))) }),
    });
    expect((await worker.drain()).ending).toBe("released");
    expect(atRelease).toEqual([false]);
    expect(existsSync(join(envs.dir, crashed, "environment.json"))).toBe(false);
  });

  test("a sweep that fails is logged, and the drain still ends with the idle handoff", async () => {
    fresh();
    class FailingSweep extends RunEnvironments {
      override sweep(): number {
        throw new Error("EACCES: permission denied");
      }
    }
    const { worker, lines } = harness(finishes, { environments: new FailingSweep(envs.dir) });
    expect((await worker.drain()).ending).toBe("released");
    expect(l.locks.readWorkerLock()).toBeNull();
    expect(lines.slice(-2)).toEqual([
      "worker 1000: could not sweep run environments: EACCES: permission denied",
      "worker 1000: drain ended (released) after 0 run(s)",
    ]);
  });
});

describe("standbys", () => {
  test("a standby that exited before its dispatch is replaced by a fresh executor, and says so", async () => {
    fresh();
    const a = enqueue(l);
    const b = enqueue(l);
    const { worker, processes, lines } = harness((standby, d) => {
      // The standby started ahead for the next run dies while this one executes.
      if (d.runId === a) processes.kill(2001);
      finishes(standby, d);
    });
    await worker.drain();
    expect(lines).toContain(`worker 1000: dispatch of run ${b} to standby 2001 failed (the standby has exited); starting a fresh executor`);
    expect(l.runs.requireRun(b)).toMatchObject({ status: "done", summary: "done by 2002" });
  });

  test("when no executor can be started the run fails, naming it, and loses its environment at once", async () => {
    fresh();
    const run = enqueue(l);
    envs.environments.save(run, { SECRET: "x" });
    const { worker, spawner, lines } = harness(finishes);
    spawner.unreadable.add(2000).add(2001);
    const result = await worker.drain({ maxRuns: 1 });
    expect(result.processed.map((r) => [r.runId, r.status, r.error])).toEqual([[run, "failed", `could not start an executor for run ${run}`]]);
    expect(lines).toContain(`worker 1000: could not start an executor for run ${run}`);
    expect(spawner.standbys.map((s) => [s.pid, s.dispatched, s.dismissed])).toEqual([
      [2000, null, true],
      [2001, null, true],
    ]);
    expect(existsSync(join(envs.dir, run, "environment.json"))).toBe(false);
  });
});

describe("a run's environment", () => {
  test("is discarded as soon as its run ends, not only by the sweep at the end of a drain", async () => {
    fresh();
    const run = enqueue(l);
    envs.environments.save(run, { SECRET: "x" });
    const { worker } = harness(crashesAfterClaim);
    expect((await worker.drain({ maxRuns: 1 })).ending).toBe("max_runs");
    expect(l.runs.requireRun(run).status).toBe("failed");
    expect(existsSync(join(envs.dir, run, "environment.json"))).toBe(false);
  });

  test("is kept while its run stays queued: an exit before the claim after the lock moved fails nothing", async () => {
    fresh();
    const run = enqueue(l);
    envs.environments.save(run, { SECRET: "x" });
    let dispatches = 0;
    const { worker } = harness((standby, d) => {
      dispatches++;
      if (dispatches === 1) {
        // Another worker takes the queue over; this executor dies before its claim.
        l.locks.acquireWorkerLock({ token: "thief", pid: 88, startTime: "st-88" }, Date.now(), 30_000, () => false);
        return standby.exit({ code: 1, signal: null });
      }
      finishes(standby, d);
    });
    const result = await worker.drain();
    expect(result.ending).toBe("ownership_lost");
    expect(l.runs.requireRun(run).status).toBe("queued");
    expect(existsSync(join(envs.dir, run, "environment.json"))).toBe(true);
  });
});

describe("supervision limits", () => {
  /** Waits until the worker has supervised the run `n` more times. */
  async function checks(h: Harness, n: number): Promise<void> {
    const target = h.supervisionReads() + n;
    await until(() => h.supervisionReads() >= target);
  }

  test("a run is stopped only once it has run longer than runs.timeout, not when it has run exactly that long", async () => {
    fresh();
    const run = enqueue(l);
    let clock = 1_000_000;
    let claimed = false;
    const h = harness(
      (standby, d) => {
        l.runs.claimRun(d.runId, { executionId: d.executionId, pid: standby.pid, startTime: `st-${standby.pid}`, pgid: standby.pid, workerToken: d.workerToken }, clock);
        claimed = true;
      },
      { config: { runTimeoutMs: 1_000 }, now: () => clock },
    );
    const drained = h.worker.drain();
    await until(() => claimed);
    clock += 1_000;
    await checks(h, 2);
    expect(h.processes.verbs()).toEqual([]);
    clock += 1;
    const result = await drained;
    expect(h.processes.verbs()).toEqual(["stop", "leftovers"]);
    expect(result.processed.map((r) => [r.runId, r.failureCategory])).toEqual([[run, "timeout"]]);
  });

  test("an abandoned cancellation is carried out only once it is older than the limit, not when it is exactly that old", async () => {
    fresh();
    const run = enqueue(l);
    let clock = 1_000_000;
    let claimed = false;
    const h = harness(
      (standby, d) => {
        l.runs.claimRun(d.runId, { executionId: d.executionId, pid: standby.pid, startTime: `st-${standby.pid}`, pgid: standby.pid, workerToken: d.workerToken }, clock);
        l.runs.requestCancellation(d.runId, clock);
        claimed = true;
      },
      { config: { abandonedCancelMs: 15_000 }, now: () => clock },
    );
    const drained = h.worker.drain();
    await until(() => claimed);
    clock += 15_000;
    await checks(h, 2);
    expect(h.processes.verbs()).toEqual([]);
    clock += 1;
    await drained;
    expect(h.processes.verbs()).toEqual(["stop", "leftovers"]);
    expect(l.runs.requireRun(run).status).toBe("cancelled");
  });

  test("a run its executor already finished is never stopped, however long the executor takes to exit", async () => {
    fresh();
    const run = enqueue(l);
    let clock = 1_000_000;
    let standbyOf: FakeStandby | null = null;
    const h = harness(
      (standby, d) => {
        l.runs.claimRun(d.runId, { executionId: d.executionId, pid: standby.pid, startTime: `st-${standby.pid}`, pgid: standby.pid, workerToken: d.workerToken }, clock);
        l.runs.requestCancellation(d.runId, clock);
        l.runs.finishRun(d.runId, clock, { status: "done", summary: "made it" });
        standbyOf = standby;
      },
      { config: { runTimeoutMs: 1_000, abandonedCancelMs: 1_000 }, now: () => clock },
    );
    const drained = h.worker.drain();
    await until(() => standbyOf !== null);
    clock += 60_000;
    await checks(h, 2);
    standbyOf!.exit({ code: 0, signal: null });
    await drained;
    expect(h.processes.verbs()).toEqual(["leftovers"]);
    expect(l.runs.requireRun(run)).toMatchObject({ status: "done", summary: "made it" });
  });

  test("a supervision check that fails is logged, and supervision goes on", async () => {
    fresh();
    const run = enqueue(l);
    const h = harness((standby, d) => {
      claim(standby, d);
      l.db.exec("ALTER TABLE runs RENAME TO runs_away");
      void until(() => h.lines.some((line) => line.startsWith(`run ${d.runId}: supervision check failed:`))).then(() => {
        l.db.exec("ALTER TABLE runs_away RENAME TO runs");
        completes(standby, d);
      });
    });
    await h.worker.drain();
    expect(h.lines).toContain(`run ${run}: supervision check failed: no such table: runs`);
    expect(l.runs.requireRun(run).status).toBe("done");
  });

  test("an executor that exits while the worker is still stopping it is reconciled only once the stop has finished", async () => {
    fresh();
    const run = enqueue(l);
    let openGate!: () => void;
    const h = harness(claimsAndHangs, { config: { runTimeoutMs: 30 } });
    h.processes.stopGate = new Promise((resolve) => (openGate = resolve));
    h.processes.duringStop = () => h.spawner.standbys[0]!.exit({ code: null, signal: "SIGTERM" });
    const drained = h.worker.drain();
    await until(() => h.processes.verbs().includes("stop"));
    // The executor has exited; its cleanup must wait for the stop still inside its grace period.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(h.processes.verbs()).toEqual(["stop"]);
    openGate();
    await drained;
    expect(h.processes.verbs()).toEqual(["stop", "leftovers"]);
    expect(l.runs.requireRun(run)).toMatchObject({ status: "failed", failureCategory: "timeout" });
  });
});

describe("reconciling a run its executor finished", () => {
  test("a run that ended done keeps its outcome, and no warning claims it stays running when cleanup leaves a survivor", async () => {
    fresh();
    const run = enqueue(l);
    const { worker, processes } = harness(finishes);
    processes.leftoverAnswers.push(unconfirmed(4242), unconfirmed(4242), unconfirmed(4242));
    await worker.drain({ maxRuns: 1 });
    expect(l.runs.requireRun(run)).toMatchObject({ status: "done", summary: "done by 2000" });
    expect(l.runs.listEvents(run).filter((e) => e.kind === "warning")).toEqual([]);
  });
});

describe("adoption limits", () => {
  test("a run whose executor is gone but whose leftovers survive is not adopted: it is left to the reaper", async () => {
    fresh();
    const run = enqueue(l);
    l.locks.acquireWorkerLock({ token: "dead-worker", pid: 1, startTime: "1" }, Date.now(), 30_000, () => true);
    l.runs.claimRun(run, { executionId: "e-old", pid: 3000, startTime: "st-3000", pgid: 3000, workerToken: "dead-worker" }, Date.now());
    const { worker, processes } = harness(finishes);
    // The reap at the start of the drain and the one before each take.
    processes.leftoverAnswers.push(unconfirmed(4242), unconfirmed(4242));
    expect((await worker.drain()).ending).toBe("released");
    expect(processes.verbs()).toEqual(["leftovers", "leftovers"]);
    expect(l.runs.requireRun(run).status).toBe("running");
    expect(l.runs.listEvents(run).filter((e) => e.kind === "warning")).toEqual([]);
  });

  test("an adopted executor that dies without finishing its run fails it, saying it exited", async () => {
    fresh();
    const run = enqueue(l);
    l.locks.acquireWorkerLock({ token: "dead-worker", pid: 1, startTime: "1" }, Date.now(), 30_000, () => true);
    l.runs.claimRun(run, { executionId: "e-old", pid: 3000, startTime: "st-3000", pgid: 3000, workerToken: "dead-worker" }, Date.now());
    const { worker, processes, lines } = harness(finishes);
    processes.live.set(3000, "st-3000");
    const drained = worker.drain();
    await until(() => lines.includes(`worker 1000: adopting run ${run} (executor 3000 outlived its worker)`));
    processes.kill(3000);
    await drained;
    expect(l.runs.requireRun(run)).toMatchObject({ status: "failed", error: "executor 3000 exited without finishing the run" });
  });
});

/** Waits for a condition the code under test makes true (event loop turns, no deadline). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
