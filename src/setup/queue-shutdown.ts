/**
 * Stopping the queue before the state directory goes: every queued or running run is
 * cancelled through the jobs service (a running one only once its processes are
 * confirmed gone) and the worker is stopped, so no agent is left editing a repository
 * against a deleted ledger.
 */
import { ProductError } from "../core/errors.js";
import type { CancelOutcome } from "../queue/cancel.js";
import type { ExecutionTarget, ProcessControl, ProcessIdentity } from "../queue/ports.js";
import type { RunRecord } from "../runs/model.js";
import type { ListFilter } from "../runs/access.js";

export interface QueueShutdownDeps {
  jobs: {
    list(filter: ListFilter): RunRecord[];
    cancel(runId: string): Promise<CancelOutcome>;
  };
  /** The worker lock's holder, if a row exists. */
  workerLock(): ProcessIdentity | null;
  processes: ProcessControl;
  /** How long a stopping process gets before SIGKILL, and a worker to exit by itself. */
  graceMs: number;
}

export interface QueueActivity {
  queued: number;
  running: number;
  /** The pid of a live worker, or null. */
  worker: number | null;
}

export interface ShutdownResult {
  cancelled: string[];
  /** The worker we stopped or saw exit, or null when none was live. */
  worker: number | null;
}

/** A few passes: a worker may claim a queued run between our listing and our cancel. */
const CANCEL_PASSES = 3;

export function queueActivity(deps: QueueShutdownDeps): QueueActivity {
  const active = activeRuns(deps);
  return {
    queued: active.filter((r) => r.status === "queued").length,
    running: active.filter((r) => r.status === "running").length,
    worker: liveWorker(deps)?.pid ?? null,
  };
}

export async function shutDownQueue(deps: QueueShutdownDeps): Promise<ShutdownResult> {
  // Once its runs are cancelled, a worker may exit before we look again: remember it now.
  const workerAtStart = liveWorker(deps);
  const cancelled: string[] = [];
  for (let pass = 0; pass < CANCEL_PASSES; pass++) {
    const active = activeRuns(deps);
    if (active.length === 0) break;
    // Queued runs first, so the worker finds nothing left to start.
    for (const run of [...active].sort((a, b) => statusOrder(a) - statusOrder(b))) {
      const outcome = await deps.jobs.cancel(run.runId);
      if (outcome.record.status === "queued" || outcome.record.status === "running") {
        throw new ProductError("execution_failed", `could not cancel run ${run.runId}; no files were removed`);
      }
      if (outcome.changed) cancelled.push(run.runId);
    }
  }
  const worker = (await stopWorker(deps)) ?? workerAtStart?.pid ?? null;
  const left = queueActivity(deps);
  if (left.queued + left.running > 0 || left.worker !== null) {
    throw new ProductError("execution_failed", `the queue kept running (${describeActivity(left)}); no files were removed, try again`);
  }
  return { cancelled, worker };
}

export function describeActivity(activity: QueueActivity): string {
  const parts: string[] = [];
  if (activity.worker !== null) parts.push(`a worker is running (pid ${activity.worker})`);
  if (activity.running > 0) parts.push(`${activity.running} run${activity.running === 1 ? " is" : "s are"} running`);
  if (activity.queued > 0) parts.push(`${activity.queued} run${activity.queued === 1 ? " is" : "s are"} queued`);
  return parts.join(", ");
}

function activeRuns(deps: QueueShutdownDeps): RunRecord[] {
  return deps.jobs.list({ statuses: ["queued", "running"] });
}

function statusOrder(run: RunRecord): number {
  return run.status === "queued" ? 0 : 1;
}

function liveWorker(deps: QueueShutdownDeps): ProcessIdentity | null {
  const held = deps.workerLock();
  if (!held || held.pid === process.pid) return null;
  return deps.processes.probe(held) === "alive" ? held : null;
}

/** An idle worker releases its lock and exits by itself; one that does not is stopped. */
async function stopWorker(deps: QueueShutdownDeps): Promise<number | null> {
  const worker = liveWorker(deps);
  if (!worker) return null;
  if (await deps.processes.waitForExit(worker, deps.graceMs)) return worker.pid;
  const group = deps.processes.groupOf(worker.pid);
  const target: ExecutionTarget = { pid: worker.pid, startTime: worker.startTime, pgid: group === worker.pid ? group : -1 };
  const stop = await deps.processes.stopExecution(target, deps.graceMs);
  if (!stop.confirmed) {
    throw new ProductError(
      "execution_failed",
      `could not stop the worker (pid ${worker.pid}; still alive: ${stop.survivors.join(", ")}); no files were removed`,
    );
  }
  return worker.pid;
}
