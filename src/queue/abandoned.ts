import type { LockStore } from "../runs/lock-store.js";
import type { RunRecord } from "../runs/model.js";
import type { ProcessControl, ProcessIdentity } from "./ports.js";

export interface AbandonedWatchDeps {
  locks: LockStore;
  processes: ProcessControl;
  now: () => number;
  staleAfterMs: number;
  /** Reaps runs whose executor is gone and wakes a worker for queued work; returns the pid of a worker it started. */
  recover: () => Promise<number | null>;
}

/**
 * What a follower (`jobs attach`, `--wait`, the viewer's job stream) checks on every poll,
 * so it never waits forever on a run nobody looks after: a running run whose executor is
 * gone while no live worker of its own will reconcile it, or a queued run with no live
 * worker to drain it. Then it recovers as a `jobs` read does: reap (which kills what is
 * left of the run's processes and records the outcome) and wake a worker for the rest of
 * the queue. The liveness rules are the reaper's and the lock's own.
 */
export class AbandonedRunWatch {
  /**
   * The worker this follower started (pid and start time), so a slow start-up is not answered
   * with another, and a pid reused by some other process later does not pass for it.
   */
  private woken: ProcessIdentity | null = null;

  constructor(private readonly deps: AbandonedWatchDeps) {}

  /** True when it recovered: the caller reads the run again. */
  async check(record: RunRecord): Promise<boolean> {
    if (!this.abandoned(record)) return false;
    const started = await this.deps.recover();
    if (started !== null) {
      const startTime = this.deps.processes.startTimeOf(started);
      this.woken = startTime === null ? null : { pid: started, startTime };
    }
    return true;
  }

  private abandoned(record: RunRecord): boolean {
    if (record.status === "running") {
      const execution = record.execution;
      if (execution && this.deps.processes.probe(execution) === "alive") return false;
      // Its own worker reconciles an executor that just exited, with the better message.
      return !this.liveWorker(execution?.workerToken ?? null);
    }
    if (record.status === "queued") {
      if (this.liveWorker(null)) return false;
      return this.woken === null || this.deps.processes.probe(this.woken) !== "alive";
    }
    return false;
  }

  /** A live lock holder with a fresh heartbeat (with `token`: only that worker). */
  private liveWorker(token: string | null): boolean {
    const held = this.deps.locks.readWorkerLock();
    if (!held || (token !== null && held.token !== token)) return false;
    return this.deps.processes.probe(held) === "alive" && this.deps.now() - held.heartbeatAt < this.deps.staleAfterMs;
  }
}
