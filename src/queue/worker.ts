import { newToken } from "../runs/ids.js";
import type { LockOwner, LockStore } from "../runs/lock-store.js";
import type { RunRecord } from "../runs/model.js";
import type { QueuedRun, RunStore } from "../runs/store.js";
import { parseSpec } from "../runs/spec.js";
import type { Hooks } from "./hooks.js";
import { EXECUTION_ENV, EXIT_NOT_MINE, type Dispatch, type ExecutionTarget, type ExitInfo, type ProcessControl, type Spawner, type StandbyExecutor, type WorkerTiming } from "./ports.js";
import { reapOrphanedRuns, targetFor } from "./reaper.js";
import { describeExit, humanSpan } from "./describe.js";
import type { RunEnvironments } from "./run-environment.js";
import { oneLine } from "../core/errors.js";

export interface WorkerConfig extends WorkerTiming {
  runTimeoutMs: number;
}


export interface WorkerDeps {
  runs: RunStore;
  locks: LockStore;
  processes: ProcessControl;
  spawner: Spawner;
  hooks: Hooks;
  now: () => number;
  log: (line: string) => void;
  config: WorkerConfig;
  environments: RunEnvironments;
}

interface Standby {
  executor: StandbyExecutor;
  /** Recorded at spawn: the identity used to clean up after the executor exits. */
  startTime: string | null;
}

export interface DrainResult {
  lockAcquired: boolean;
  processed: RunRecord[];
  /** Why the drain ended. */
  ending: "lock_held" | "released" | "max_runs" | "ownership_lost";
}

/** How an executor's supervision ended: its exit, and why the worker stopped it, if it did. */
interface Supervised {
  exit: ExitInfo;
  /** The timeout's message when the worker stopped the run for exceeding runs.timeout. */
  timedOut: string | null;
}

/** Rounds of SIGKILL sweeps (each waits a few seconds) before a run with a surviving process is left running. */
const CLEANUP_ROUNDS = 3;

/**
 * Drains the queue under the global worker lock: one executor child per run, then
 * reconciliation, then the next run; the atomic idle handoff ends the drain.
 */
export class QueueWorker {
  private ownershipLost = false;

  constructor(private readonly deps: WorkerDeps) {}

  async drain(options: { maxRuns?: number } = {}): Promise<DrainResult> {
    const { locks, processes, now, log, config } = this.deps;
    this.ownershipLost = false;
    const self = processes.self();
    const owner: LockOwner = { token: newToken(), pid: self.pid, startTime: self.startTime };
    const alive = (o: LockOwner) => processes.probe(o) === "alive";
    if (!locks.acquireWorkerLock(owner, now(), config.staleAfterMs, alive)) {
      const held = locks.readWorkerLock();
      log(`worker ${self.pid}: the queue is drained by worker ${held?.pid ?? "?"}; exiting`);
      return { lockAcquired: false, processed: [], ending: "lock_held" };
    }
    log(`worker ${self.pid}: acquired the queue lock`);
    const heartbeat = setInterval(() => {
      try {
        if (!locks.heartbeat(owner, now())) {
          this.ownershipLost = true;
          this.deps.hooks.run("workerLostLock");
        }
      } catch (error) {
        log(`worker ${self.pid}: heartbeat failed: ${(error as Error).message}`);
      }
    }, config.heartbeatMs);

    const processed: RunRecord[] = [];
    let ending: DrainResult["ending"] | null = null;
    let failure: unknown = null;
    try {
      ending = await this.drainOwned(owner, processed, options.maxRuns);
      return { lockAcquired: true, processed, ending };
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      this.standby?.executor.dismiss();
      this.standby = null;
      clearInterval(heartbeat);
      // The idle handoff already deleted the lock; any other ending gives it up here, so a
      // drain that failed never leaves a lock that blocks the next worker.
      if (ending !== "released") this.giveUp(owner);
      const why = ending ?? `failed: ${oneLine(failure)}`;
      log(`worker ${self.pid}: drain ended (${why}) after ${processed.length} run(s)`);
    }
  }

  private giveUp(owner: LockOwner): void {
    try {
      this.deps.locks.releaseWorker(owner);
    } catch (error) {
      // The lock of a worker that has exited is taken over at once by the next one.
      this.deps.log(`worker ${owner.pid}: could not release the queue lock: ${oneLine(error)}`);
    }
  }

  private async drainOwned(owner: LockOwner, processed: RunRecord[], maxRuns: number | undefined): Promise<DrainResult["ending"]> {
    const { runs, locks, now } = this.deps;
    await this.reap();
    await this.adoptLiveExecutions(owner);
    for (;;) {
      if (this.ownershipLost) return "ownership_lost";
      if (maxRuns !== undefined && processed.length >= maxRuns) return "max_runs";
      // A run left running because a process of it survived cleanup is finished once it is gone.
      await this.reap();
      const next = runs.takeNextQueued(now(), parseSpec);
      if (!next) {
        // Swept while the lock is still held, so a queue seen idle has no ended run's secrets left.
        this.sweepEnvironments();
        this.deps.hooks.run("beforeIdleRelease");
        const handoff = locks.releaseWorkerIfIdle(owner);
        if (handoff === "work_available") continue;
        return handoff;
      }
      processed.push(await this.execute(next, owner));
    }
  }

  private reap(): Promise<number> {
    const { runs, processes, now, log, environments } = this.deps;
    return reapOrphanedRuns({ runs, processes, now, log, environments });
  }

  /** What crashes left: the environments of runs that ended without an executor to take them. */
  private sweepEnvironments(): void {
    try {
      this.deps.environments.sweep((runIds) => this.deps.runs.statusesOf(runIds));
    } catch (error) {
      this.deps.log(`worker ${this.deps.processes.self().pid}: could not sweep run environments: ${oneLine(error)}`);
    }
  }

  private async execute(next: QueuedRun, owner: LockOwner): Promise<RunRecord> {
    const { runs, log } = this.deps;
    const runId = next.record.runId;
    const executionId = newToken();
    const dispatch = { runId, executionId, workerToken: owner.token, logPath: next.record.logPath };
    let child = this.takeStandby();
    if (!this.handOver(child, dispatch)) {
      log(`worker ${owner.pid}: dispatch of run ${runId} to standby ${child.executor.pid} failed (the standby has exited); starting a fresh executor`);
      child = this.spawnStandby();
      if (!this.handOver(child, dispatch)) {
        const message = `could not start an executor for run ${runId}`;
        log(`worker ${owner.pid}: ${message}`);
        return this.ended(runs.failUnclaimedRun(runId, this.deps.now(), owner.token, message).record);
      }
    }
    // The next executor boots while this run executes, so the queue never waits for a cold start.
    this.standby = this.spawnStandby();
    const target: ExecutionTarget = {
      pid: child.executor.pid,
      startTime: child.startTime!,
      pgid: child.executor.pid,
      marker: { key: EXECUTION_ENV, value: executionId },
    };
    log(`worker ${owner.pid}: run ${runId} → executor ${child.executor.pid}`);
    this.deps.hooks.run("workerAfterSpawn");
    const supervised = await this.supervise(runId, executionId, target, child.executor.exited);
    return this.reconcile(runId, executionId, target, supervised, owner);
  }

  /**
   * Only a standby whose start time was read can be handed a run: that start time is what
   * every later check of the execution's identity compares against.
   */
  private handOver(child: Standby, dispatch: Dispatch): boolean {
    if (child.startTime === null) {
      child.executor.dismiss();
      return false;
    }
    return child.executor.dispatch(dispatch);
  }

  private standby: Standby | null = null;

  private spawnStandby(): Standby {
    const executor = this.deps.spawner.spawnExecutor();
    // Read the start time while the child is certainly not yet reaped.
    return { executor, startTime: executor.pid > 0 ? this.deps.processes.startTimeOf(executor.pid) : null };
  }

  private takeStandby(): Standby {
    const standby = this.standby ?? this.spawnStandby();
    this.standby = null;
    return standby;
  }

  /** Runs whose executor outlived its worker are waited for before new work is claimed. */
  private async adoptLiveExecutions(owner: LockOwner): Promise<void> {
    const { runs, processes, log } = this.deps;
    for (const run of runs.runningRuns()) {
      const execution = run.execution;
      if (!execution || processes.probe(execution) !== "alive") continue;
      log(`worker ${owner.pid}: adopting run ${run.runId} (executor ${execution.pid} outlived its worker)`);
      const target = targetFor(execution);
      const exited = this.pollUntilGone(execution);
      const supervised = await this.supervise(run.runId, execution.executionId, target, exited);
      await this.reconcile(run.runId, execution.executionId, target, supervised, owner);
    }
  }

  private async pollUntilGone(execution: { pid: number; startTime: string }): Promise<ExitInfo> {
    while (!(await this.deps.processes.waitForExit(execution, 60_000))) {
      // keep waiting; supervise() enforces timeouts meanwhile
    }
    return { code: null, signal: null };
  }

  /**
   * Waits for the executor while enforcing the run timeout and finishing abandoned
   * cancellations. A stop only ends processes; reconciliation, after the executor's exit,
   * records why, so the outcome is written once, by one path, and only when nothing of the
   * run is left alive.
   */
  private supervise(runId: string, executionId: string, target: ExecutionTarget, exited: Promise<ExitInfo>): Promise<Supervised> {
    const { runs, processes, now, log, config } = this.deps;
    let stopping = false;
    let timedOut: string | null = null;
    const stop = async (why: string) => {
      stopping = true;
      const result = await processes.stopExecution(target, config.cancelGraceMs);
      if (result.confirmed) return;
      log(`run ${runId}: ${why}, but processes are still alive: ${result.survivors.join(", ")}; trying again`);
      stopping = false;
    };
    const check = async () => {
      if (stopping) return;
      try {
        const record = runs.getRun(runId);
        if (!record || record.status !== "running" || record.execution?.executionId !== executionId) return;
        const elapsed = now() - (record.startedAt ?? record.createdAt);
        if (elapsed > config.runTimeoutMs) {
          timedOut = `run exceeded runs.timeout (${humanSpan(config.runTimeoutMs)})`;
          log(`run ${runId}: exceeded runs.timeout (${humanSpan(config.runTimeoutMs)}); stopping executor ${target.pid}`);
          await stop("the timeout stopped it");
        } else if (record.cancelRequestedAt !== null && now() - record.cancelRequestedAt > config.abandonedCancelMs) {
          log(`run ${runId}: cancellation was requested but not carried out; the worker stops the executor`);
          await stop("the worker stopped it for its cancellation");
        }
      } catch (error) {
        log(`run ${runId}: supervision check failed: ${(error as Error).message}`);
      }
    };
    // One check at a time; the exit is reported once a check that is stopping the
    // executor has finished, so reconcile knows whether the worker stopped it and why.
    let current: Promise<void> | null = null;
    const tick = () => {
      current ??= check().finally(() => {
        current = null;
      });
    };
    return new Promise<Supervised>((resolve) => {
      const timer = setInterval(tick, config.superviseMs);
      void exited.then(async (exit) => {
        clearInterval(timer);
        if (current) await current;
        resolve({ exit, timedOut });
      });
    });
  }

  /**
   * After the executor exits: kill what is left of its processes, then make sure the run is
   * terminal. A run is never called finished while a process of it is alive: when one
   * survives every SIGKILL sweep, the run stays running with a warning naming it, and a later
   * reap finishes it once it is gone.
   */
  private async reconcile(runId: string, executionId: string, target: ExecutionTarget, supervised: Supervised, owner: LockOwner): Promise<RunRecord> {
    const { runs, now, log } = this.deps;
    const { exit, timedOut } = supervised;
    const survivors = await this.cleanUp(target);
    const record = runs.requireRun(runId);
    if (record.status === "queued") {
      if (exit.code === EXIT_NOT_MINE) {
        this.ownershipLost = true;
        log(`run ${runId}: the executor could not claim it (the queue lock moved); stopping this drain`);
        return record;
      }
      const message = `executor ${target.pid} ${describeExit(exit)} before claiming the run`;
      return this.ended(runs.failUnclaimedRun(runId, now(), owner.token, message).record);
    }
    if (record.status !== "running" || record.execution?.executionId !== executionId) return this.ended(record);
    if (survivors.length > 0) {
      const message = `processes of this run survived cleanup (still alive: ${survivors.join(", ")}); it stays running until they are gone`;
      log(`run ${runId}: ${message}`);
      runs.appendEvent(runId, now(), "warning", message);
      return record;
    }
    if (timedOut) {
      const finish = { status: "failed", category: "timeout", error: timedOut, errorEvent: `${timedOut} and was stopped` } as const;
      return this.ended(runs.finishRun(runId, now(), finish, executionId).record);
    }
    if (record.cancelRequestedAt !== null) return this.ended(runs.finishCancellation(runId, now(), executionId).record);
    const message = `executor ${target.pid} ${describeExit(exit)} without finishing the run`;
    const finish = { status: "failed", category: "internal_error", error: message, errorEvent: message } as const;
    return this.ended(runs.finishRun(runId, now(), finish, executionId).record);
  }

  /** SIGKILL sweeps until nothing of the execution is alive, a bounded number of times; returns the survivors. */
  private async cleanUp(target: ExecutionTarget): Promise<number[]> {
    let survivors: number[] = [];
    for (let round = 0; round < CLEANUP_ROUNDS; round++) {
      const leftovers = await this.deps.processes.killLeftovers(target);
      if (leftovers.confirmed) return [];
      survivors = leftovers.survivors;
    }
    return survivors;
  }

  /** A run that has ended no longer needs the environment it was queued with. */
  private ended(record: RunRecord): RunRecord {
    if (record.status !== "queued" && record.status !== "running") this.deps.environments.discard(record.runId);
    return record;
  }
}
