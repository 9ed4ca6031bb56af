import { ProductError } from "../core/errors.js";
import type { RunRecord } from "../runs/model.js";
import type { RunStore } from "../runs/store.js";
import type { Hooks } from "./hooks.js";
import type { ProcessControl } from "./ports.js";
import { targetFor } from "./reaper.js";
import type { RunEnvironments } from "./run-environment.js";

export interface CancelDeps {
  runs: RunStore;
  processes: ProcessControl;
  hooks: Hooks;
  now: () => number;
  graceMs: number;
  environments: RunEnvironments;
}

export interface CancelOutcome {
  record: RunRecord;
  changed: boolean;
}

/**
 * `jobs cancel`: a queued run is cancelled at once. For a running run the intent is
 * recorded first (durable, so a worker finishes the job if this process dies), the
 * executor is verified by pid and start time, its whole tree is stopped and confirmed
 * gone, and only then is `cancelled` written.
 */
export async function cancelRun(deps: CancelDeps, runId: string): Promise<CancelOutcome> {
  const { runs, processes, now } = deps;
  const intent = runs.requestCancellation(runId, now());
  if (intent.record.status !== "running") {
    // A queued run cancelled here never reaches an executor to take its environment.
    if (intent.changed) deps.environments.discard(runId);
    return intent;
  }
  const execution = intent.record.execution;
  if (!execution) {
    throw new ProductError("execution_failed", `run ${runId} is running but has no recorded executor; try again shortly`);
  }
  deps.hooks.run("cancelAfterIntent");
  const probe = processes.probe(execution);
  if (probe === "reused") {
    throw new ProductError(
      "execution_failed",
      `refusing to signal pid ${execution.pid}: it is no longer run ${runId}'s executor (its start time differs); the worker will finish the cancellation`,
    );
  }
  const target = targetFor(execution);
  const stop = probe === "alive" ? await processes.stopExecution(target, deps.graceMs) : await processes.killLeftovers(target);
  if (!stop.confirmed) {
    const latest = runs.requireRun(runId);
    // Ended meanwhile: by the worker on our intent (this request caused it), or otherwise.
    if (latest.status !== "running") return { record: latest, changed: intent.changed && latest.status === "cancelled" };
    throw new ProductError(
      "execution_failed",
      `could not confirm that run ${runId} stopped (still alive: ${stop.survivors.join(", ")}); run \`codealmanac jobs cancel ${runId}\` again`,
    );
  }
  deps.hooks.run("cancelBeforeFinish");
  const finished = runs.finishCancellation(runId, now(), execution.executionId);
  deps.environments.discard(runId);
  // The worker may have written `cancelled` first, on seeing its executor exit after our
  // intent: this request still caused the cancellation.
  const caused = finished.changed || (intent.changed && finished.record.status === "cancelled");
  return { record: finished.record, changed: caused };
}
