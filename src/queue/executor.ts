import type { RunRecord } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import { parseSpec } from "../runs/spec.js";
import type { RunStore } from "../runs/store.js";
import type { Hooks } from "./hooks.js";
import { EXIT_NOT_MINE, type ProcessControl } from "./ports.js";
import type { RunEnvironments } from "./run-environment.js";

/** The lifecycle side: runs one claimed run to a terminal state (done or failed). */
export interface OperationRunner {
  run(record: RunRecord, spec: RunSpec): Promise<void>;
}

export interface ExecutorDeps {
  runs: RunStore;
  processes: ProcessControl;
  hooks: Hooks;
  now: () => number;
  log: (line: string) => void;
  environments: RunEnvironments;
  /**
   * The lifecycle runner for one execution, in the environment the run was queued with (null:
   * none was kept, so the executor's own); everything it starts carries the execution's marker.
   * `stopped` is aborted when the executor is told to stop.
   */
  operations: (executionId: string, env: NodeJS.ProcessEnv | null, stopped: AbortSignal) => Promise<OperationRunner>;
  /** Aborted on SIGTERM (background.ts): a cancel or a timeout is stopping this execution. */
  stopped: AbortSignal;
}

export interface ExecuteRequest {
  runId: string;
  executionId: string;
  /** The spawning worker's lock token: the claim succeeds only while that worker holds the lock. */
  workerToken: string;
}

/** `__run-executor`: claim the run atomically, then hand it to its lifecycle operation. */
export async function executeRun(deps: ExecutorDeps, request: ExecuteRequest): Promise<number> {
  const { runs, processes, now, log } = deps;
  const self = processes.self();
  deps.hooks.run("beforeClaim");
  const claim = runs.claimRun(
    request.runId,
    {
      executionId: request.executionId,
      pid: self.pid,
      startTime: self.startTime,
      pgid: processes.groupOf(self.pid) ?? -1,
      workerToken: request.workerToken,
    },
    now(),
  );
  if (claim !== "claimed") {
    log(`executor ${self.pid}: run ${request.runId} not claimed (${claim.replace("_", " ")})`);
    return EXIT_NOT_MINE;
  }
  log(`executor ${self.pid}: claimed run ${request.runId}`);
  // Taken at once: the secrets in it stay on disk only while the run waits in the queue.
  const env = deps.environments.take(request.runId);
  if (!env) {
    runs.appendEvent(request.runId, now(), "warning", "the environment this run was queued with was not found; it runs in the worker's environment");
  }
  deps.hooks.run("afterClaim");
  const record = runs.requireRun(request.runId);
  const parsed = parseSpec(record.specJson);
  if (!parsed.ok) {
    runs.finishRun(request.runId, now(), { status: "failed", category: "internal_error", error: parsed.error, errorEvent: parsed.error });
    return 1;
  }
  try {
    await (await deps.operations(request.executionId, env, deps.stopped)).run(record, parsed.spec);
    const final = runs.requireRun(request.runId);
    log(`executor ${self.pid}: run ${request.runId} ended ${final.status}`);
    return final.status === "done" ? 0 : 1;
  } catch (error) {
    log(`executor ${self.pid}: run ${request.runId} raised: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
}
