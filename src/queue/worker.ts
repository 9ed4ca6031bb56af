import { newToken } from "../runs/ids.js";
import type { LockOwner, LockStore } from "../runs/lock-store.js";
import type { RunRecord } from "../runs/model.js";
import type { QueuedRun, RunStore } from "../runs/store.js";
import { parseSpec } from "../runs/spec.js";
import type { Hooks } from "./hooks.js";
import { EXECUTION_ENV, EXIT_NOT_MINE, type ExecutionTarget, type ExitInfo, type ProcessControl, type Spawner, type StandbyExecutor, type WorkerTiming } from "./ports.js";
import { reapOrphanedRuns, targetFor } from "./reaper.js";
import { describeExit, humanSpan } from "./describe.js";

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

/**
 * Drains the queue under the global worker lock: one executor child per run, then
 * reconciliation, then the next run; the atomic idle handoff ends the drain.
 */
export class QueueWorker {
  private ownershipLost = false;

  constructor(private readonly deps: WorkerDeps) {}

  async drain(options: { maxRuns?: number } = {}): Promise<DrainResult> {
    const { runs, locks, processes, now, log, config } = this.deps;
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
    let ending: DrainResult["ending"] = "released";
    try {
      await reapOrphanedRuns({ runs, processes, now, log });
      await this.adoptLiveExecutions(owner);
      for (;;) {
        if (this.ownershipLost) {
          ending = "ownership_lost";
          break;
        }
        if (options.maxRuns !== undefined && processed.length >= options.maxRuns) {
          ending = "max_runs";
          break;
        }
        const next = runs.takeNextQueued(now(), parseSpec);
        if (!next) {
          this.deps.hooks.run("beforeIdleRelease");
          const handoff = locks.releaseWorkerIfIdle(owner);
          if (handoff === "work_available") continue;
          ending = handoff === "released" ? "released" : "ownership_lost";
          break;
        }
        processed.push(await this.execute(next, owner));
      }
    } finally {
      this.standby?.executor.dismiss();
      this.standby = null;
      clearInterval(heartbeat);
      if (ending !== "released") locks.releaseWorker(owner);
      log(`worker ${self.pid}: drain ended (${ending}) after ${processed.length} run(s)`);
    }
    return { lockAcquired: true, processed, ending };
  }

  private async execute(next: QueuedRun, owner: LockOwner): Promise<RunRecord> {
    const { runs, log } = this.deps;
    const runId = next.record.runId;
    const executionId = newToken();
    const dispatch = { runId, executionId, workerToken: owner.token, logPath: next.record.logPath };
    let child = this.takeStandby();
    if (!child.executor.dispatch(dispatch)) {
      log(`worker ${owner.pid}: dispatch of run ${runId} to standby ${child.executor.pid} failed (the standby has exited); starting a fresh executor`);
      child = this.spawnStandby();
      if (!child.executor.dispatch(dispatch)) {
        const message = `could not start an executor for run ${runId}`;
        log(`worker ${owner.pid}: ${message}`);
        return runs.failUnclaimedRun(runId, this.deps.now(), owner.token, message).record;
      }
    }
    // The next executor boots while this run executes, so the queue never waits for a cold start.
    this.standby = this.spawnStandby();
    const target: ExecutionTarget = {
      pid: child.executor.pid,
      startTime: child.startTime ?? owner.startTime,
      pgid: child.executor.pid,
      marker: { key: EXECUTION_ENV, value: executionId },
    };
    log(`worker ${owner.pid}: run ${runId} → executor ${child.executor.pid}`);
    this.deps.hooks.run("workerAfterSpawn");
    const exit = await this.supervise(runId, executionId, target, child.executor.exited);
    return this.reconcile(runId, executionId, target, exit, owner);
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
      const exit = await this.supervise(run.runId, execution.executionId, target, exited);
      await this.reconcile(run.runId, execution.executionId, target, exit, owner);
    }
  }

  private async pollUntilGone(execution: { pid: number; startTime: string }): Promise<ExitInfo> {
    while (!(await this.deps.processes.waitForExit(execution, 60_000))) {
      // keep waiting; supervise() enforces timeouts meanwhile
    }
    return { code: null, signal: null };
  }

  /** Waits for the executor while enforcing the run timeout and finishing abandoned cancellations. */
  private supervise(runId: string, executionId: string, target: ExecutionTarget, exited: Promise<ExitInfo>): Promise<ExitInfo> {
    const { runs, processes, now, log, config } = this.deps;
    let stopping = false;
    const check = async () => {
      if (stopping) return;
      try {
        const record = runs.getRun(runId);
        if (!record || record.status !== "running" || record.execution?.executionId !== executionId) return;
        const elapsed = now() - (record.startedAt ?? record.createdAt);
        if (elapsed > config.runTimeoutMs) {
          stopping = true;
          log(`run ${runId}: exceeded runs.timeout (${humanSpan(config.runTimeoutMs)}); stopping executor ${target.pid}`);
          const stop = await processes.stopExecution(target, config.cancelGraceMs);
          runs.finishRun(
            runId,
            now(),
            {
              status: "failed",
              category: "timeout",
              error: `run exceeded runs.timeout (${humanSpan(config.runTimeoutMs)})${stop.confirmed ? "" : `; processes still alive: ${stop.survivors.join(", ")}`}`,
              errorEvent: `run exceeded runs.timeout (${humanSpan(config.runTimeoutMs)}) and was stopped`,
            },
            executionId,
          );
        } else if (record.cancelRequestedAt !== null && now() - record.cancelRequestedAt > config.abandonedCancelMs) {
          stopping = true;
          log(`run ${runId}: cancellation was requested but not carried out; the worker stops the executor`);
          await processes.stopExecution(target, config.cancelGraceMs);
        }
      } catch (error) {
        log(`run ${runId}: supervision check failed: ${(error as Error).message}`);
      }
    };
    // One check at a time; and the executor's exit is reported only once a check that
    // is stopping it has recorded why, so reconcile never mistakes a timeout for a crash.
    let current: Promise<void> | null = null;
    const tick = () => {
      current ??= check().finally(() => {
        current = null;
      });
    };
    return new Promise<ExitInfo>((resolve) => {
      const timer = setInterval(tick, config.superviseMs);
      void exited.then(async (exit) => {
        clearInterval(timer);
        if (current) await current;
        resolve(exit);
      });
    });
  }

  /** After the executor exits: clean up its processes, then make sure the run is terminal. */
  private async reconcile(
    runId: string,
    executionId: string,
    target: ExecutionTarget,
    exit: ExitInfo,
    owner: LockOwner,
  ): Promise<RunRecord> {
    const { runs, processes, now, log } = this.deps;
    const leftovers = await processes.killLeftovers(target);
    if (!leftovers.confirmed) log(`run ${runId}: processes survived cleanup: ${leftovers.survivors.join(", ")}`);
    const record = runs.requireRun(runId);
    if (record.status === "queued") {
      if (exit.code === EXIT_NOT_MINE) {
        this.ownershipLost = true;
        log(`run ${runId}: the executor could not claim it (the queue lock moved); stopping this drain`);
        return record;
      }
      const message = `executor ${target.pid} ${describeExit(exit)} before claiming the run`;
      return runs.failUnclaimedRun(runId, now(), owner.token, message).record;
    }
    if (record.status !== "running" || record.execution?.executionId !== executionId) return record;
    if (record.cancelRequestedAt !== null) return runs.finishCancellation(runId, now(), executionId).record;
    const message = `executor ${target.pid} ${describeExit(exit)} without finishing the run`;
    const finish = { status: "failed", category: "internal_error", error: message, errorEvent: message } as const;
    return runs.finishRun(runId, now(), finish, executionId).record;
  }
}
