import type { ExecutionRef } from "../runs/model.js";
import type { RunStore } from "../runs/store.js";
import { EXECUTION_ENV, type ExecutionTarget, type ProcessControl } from "./ports.js";

export function targetFor(execution: ExecutionRef): ExecutionTarget {
  return {
    pid: execution.pid,
    startTime: execution.startTime,
    // Only a group the executor leads is ever signalled as a group.
    pgid: execution.pgid === execution.pid ? execution.pgid : -1,
    marker: { key: EXECUTION_ENV, value: execution.executionId },
  };
}

/**
 * Terminalizes every `running` run whose executor is verifiably gone (crash, kill -9,
 * reboot) and kills what is left of its process tree. Runs with a live executor are
 * left alone; a worker adopts them.
 */
export async function reapOrphanedRuns(deps: {
  runs: RunStore;
  processes: ProcessControl;
  now: () => number;
  log: (line: string) => void;
}): Promise<number> {
  const { runs, processes, now, log } = deps;
  let reaped = 0;
  for (const run of runs.runningRuns()) {
    const execution = run.execution;
    if (execution && processes.probe(execution) === "alive") continue;
    if (execution) await processes.killLeftovers(targetFor(execution));
    if (run.cancelRequestedAt !== null && execution) {
      if (runs.finishCancellation(run.runId, now(), execution.executionId).changed) reaped++;
      continue;
    }
    const message = execution
      ? `executor ${execution.pid} is gone; the run was interrupted before it finished`
      : "the run has no recorded executor";
    const finish = runs.finishRun(
      run.runId,
      now(),
      { status: "failed", category: "internal_error", error: message, errorEvent: message },
      execution?.executionId,
    );
    if (finish.changed) {
      log(`run ${run.runId}: ${message}`);
      reaped++;
    }
  }
  return reaped;
}
