import { join } from "node:path";
import { newRunId } from "../runs/ids.js";
import type { RunKind, RunRecord } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import type { RunStore } from "../runs/store.js";
import type { LockStore } from "../runs/lock-store.js";
import type { Repository } from "../repositories/model.js";
import type { ProcessControl, Spawner } from "./ports.js";
import type { RunEnvironments } from "./run-environment.js";

export interface ProducerDeps {
  runs: RunStore;
  locks: LockStore;
  processes: ProcessControl;
  spawner: Spawner;
  now: () => number;
  runLogDir: string;
  staleAfterMs: number;
  /** Where each queued run's environment waits for its executor. */
  environments: RunEnvironments;
  /** The environment of this command: the runs it queues execute with it. */
  env: NodeJS.ProcessEnv;
}

export interface Receipt {
  run_id: string;
  repository: string;
  runs_ahead: number;
  status: "queued";
  child_pid: number;
}

export interface EnqueueRequest {
  repository: Repository;
  kind: RunKind;
  spec: RunSpec;
  retryOf?: string;
}

/** Queues a durable run (one transaction), then spawns a worker: the commit comes first. */
export function enqueueAndWake(deps: ProducerDeps, request: EnqueueRequest): { record: RunRecord; receipt: Receipt } {
  const record = insertRun(deps, request);
  const childPid = deps.spawner.spawnWorker();
  return {
    record,
    receipt: {
      run_id: record.runId,
      repository: record.repositoryName,
      runs_ahead: deps.runs.runsAhead(record.seq),
      status: "queued",
      child_pid: childPid,
    },
  };
}

/**
 * Inserts a queued run without waking a worker. Callers that queue inside a larger
 * transaction (sync moves its cursors in the same commit) wake the worker after it.
 * The run's environment is on disk before the run is committed, so no executor can
 * claim it first; if the insert fails, the environment is removed again.
 */
export function insertRun(deps: Pick<ProducerDeps, "runs" | "now" | "runLogDir" | "environments" | "env">, request: EnqueueRequest): RunRecord {
  const now = deps.now();
  const runId = newRunId(request.kind, now);
  deps.environments.save(runId, deps.env);
  try {
    return commitRun(deps, runId, now, request);
  } catch (error) {
    deps.environments.discard(runId);
    throw error;
  }
}

function commitRun(deps: Pick<ProducerDeps, "runs" | "runLogDir">, runId: string, now: number, request: EnqueueRequest): RunRecord {
  return deps.runs.enqueueRun({
    runId,
    repositoryId: request.repository.repositoryId,
    repositoryName: request.repository.name,
    repositoryRoot: request.repository.rootPath,
    kind: request.kind,
    title: request.spec.title ?? defaultTitle(request.spec),
    spec: request.spec,
    logPath: join(deps.runLogDir, `${runId}.log`),
    ...(request.retryOf ? { retryOf: request.retryOf } : {}),
    now,
  });
}

/** Starts a worker when queued work has no live worker (after a crash, or a bounded drain). */
export function wakeWorkerIfNeeded(deps: ProducerDeps): number | null {
  if (!deps.runs.hasQueuedRuns()) return null;
  const alive = (o: { pid: number; startTime: string }) => deps.processes.probe(o) === "alive";
  if (deps.locks.hasLiveWorker(deps.now(), deps.staleAfterMs, alive)) return null;
  return deps.spawner.spawnWorker();
}

export function defaultTitle(spec: RunSpec): string {
  switch (spec.kind) {
    case "build":
      return "Build wiki";
    case "garden": {
      const stale = spec.stale_pages ?? [];
      if (stale.length === 0) return "Garden wiki";
      return stale.length === 1 ? `Garden stale page ${stale[0]}` : `Garden ${stale.length} stale pages`;
    }
    case "ingest":
      return spec.inputs.length === 1 ? `Ingest ${spec.inputs[0]}` : `Ingest ${spec.inputs.length} sources`;
  }
}
