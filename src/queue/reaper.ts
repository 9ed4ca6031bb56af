import type { ExecutionRef, RunRecord } from "../runs/model.js";
import type { RunStore } from "../runs/store.js";
import { EXECUTION_ENV, type ExecutionTarget, type ProcessControl } from "./ports.js";
import type { RunEnvironments } from "./run-environment.js";

export function targetFor(execution: ExecutionRef): ExecutionTarget {
  return {
    pid: execution.pid,
    startTime: execution.startTime,
    // Only a group the executor leads is ever signalled as a group.
    pgid: execution.pgid === execution.pid ? execution.pgid : -1,
    marker: { key: EXECUTION_ENV, value: execution.executionId },
  };
}

export interface ReapDeps {
  runs: RunStore;
  processes: ProcessControl;
  now: () => number;
  log: (line: string) => void;
  environments: RunEnvironments;
}

/**
 * Terminalizes every `running` run whose executor is verifiably gone (crash, kill -9,
 * reboot) once what is left of its process tree is killed. Runs with a live executor are
 * left alone (a worker adopts them), and so is a run with a process that survives the
 * SIGKILL sweep: it is never called finished while a process of it is alive, and a later
 * reap finishes it.
 */
export async function reapOrphanedRuns(deps: ReapDeps): Promise<number> {
  const { runs, processes, log } = deps;
  let reaped = 0;
  for (const run of runs.runningRuns()) {
    const execution = run.execution;
    if (execution && processes.probe(execution) === "alive") continue;
    if (execution) {
      const leftovers = await processes.killLeftovers(targetFor(execution));
      if (!leftovers.confirmed) {
        log(`run ${run.runId}: its executor is gone but processes survived cleanup (still alive: ${leftovers.survivors.join(", ")}); left running`);
        continue;
      }
    }
    if (finishOrphan(deps, run)) reaped++;
  }
  return reaped;
}

/** The outcome of a run nobody executes any more: cancelled when that was asked for, else failed. */
function finishOrphan(deps: ReapDeps, run: RunRecord): boolean {
  const { runs, now, log } = deps;
  const execution = run.execution;
  let changed: boolean;
  if (run.cancelRequestedAt !== null && execution) {
    changed = runs.finishCancellation(run.runId, now(), execution.executionId).changed;
  } else {
    const message = execution
      ? `executor ${execution.pid} is gone; the run was interrupted before it finished`
      : "the run has no recorded executor";
    const finish = { status: "failed", category: "internal_error", error: message, errorEvent: message } as const;
    changed = runs.finishRun(run.runId, now(), finish, execution?.executionId).changed;
    if (changed) log(`run ${run.runId}: ${message}`);
  }
  if (changed) deps.environments.discard(run.runId);
  return changed;
}
