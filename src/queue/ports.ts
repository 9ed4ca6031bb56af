/** What the queue needs from the operating system; app.ts wires the real adapter in. */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

export interface ExecutionTarget {
  pid: number;
  startTime: string;
  /** The executor's own group; -1 when it does not lead one (then the group is never signalled). */
  pgid: number;
  marker?: { key: string; value: string };
}

export interface StopResult {
  confirmed: boolean;
  survivors: number[];
}

export interface ProcessControl {
  self(): ProcessIdentity;
  /** The process group of a live pid, or null. */
  groupOf(pid: number): number | null;
  startTimeOf(pid: number): string | null;
  probe(id: ProcessIdentity): "alive" | "gone" | "reused";
  /** SIGTERM, grace, re-enumerate, SIGKILL; every signal re-verified against start times. */
  stopExecution(target: ExecutionTarget, graceMs: number): Promise<StopResult>;
  /** After an executor exited: SIGKILL whatever of its tree and group is left. */
  killLeftovers(target: ExecutionTarget): Promise<StopResult>;
  waitForExit(id: ProcessIdentity, timeoutMs: number): Promise<boolean>;
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
}

export interface Dispatch {
  runId: string;
  executionId: string;
  workerToken: string;
  logPath: string;
}

/** The one line a worker writes to a standby executor's stdin. */
export function encodeDispatch(dispatch: Dispatch): string {
  return JSON.stringify(dispatch) + "\n";
}

/** Reads that line back; null when it is not a dispatch (the standby then exits with a usage error). */
export function decodeDispatch(line: string): Dispatch | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { runId, executionId, workerToken, logPath } = value as Record<string, unknown>;
  const strings = [runId, executionId, workerToken, logPath].every((v) => typeof v === "string" && v !== "");
  return strings ? { runId: runId as string, executionId: executionId as string, workerToken: workerToken as string, logPath: logPath as string } : null;
}

/**
 * An executor process started ahead of its run: it boots while the previous run is
 * still executing and waits on stdin for the one run it will claim.
 */
export interface StandbyExecutor {
  pid: number;
  exited: Promise<ExitInfo>;
  /** Hands over the run; false when the process is already gone. */
  dispatch(request: Dispatch): boolean;
  /** Lets an unused standby exit. */
  dismiss(): void;
}

export interface Spawner {
  /** Starts a detached `__run-worker`; returns its pid. */
  spawnWorker(): number;
  /** Starts a detached `__run-executor --standby`. */
  spawnExecutor(): StandbyExecutor;
}

/** The environment variable every process of an execution inherits. */
export const EXECUTION_ENV = "CODEALMANAC_EXECUTION_ID";

/** The executor's exit code when its claim failed: the run belongs to someone else. */
export const EXIT_NOT_MINE = 3;

/** Worker timing; tests override parts of it through CODEALMANAC_TEST_WORKER_TIMING. */
export interface WorkerTiming {
  staleAfterMs: number;
  heartbeatMs: number;
  cancelGraceMs: number;
  superviseMs: number;
  abandonedCancelMs: number;
}

export const DEFAULT_WORKER_CONFIG: WorkerTiming = {
  staleAfterMs: 30_000,
  heartbeatMs: 2_000,
  cancelGraceMs: 3_000,
  superviseMs: 500,
  abandonedCancelMs: 15_000,
};
