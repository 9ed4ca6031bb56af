/**
 * The run state machine as pure functions: the current row and the request in, either the
 * change to write or the reason it is refused. The store reads the row, asks one of these,
 * and writes what it says, all inside one named BEGIN IMMEDIATE transaction
 * (almanac/architecture/runs.md).
 */
import {
  isTerminal,
  type FailureCategory,
  type RunEventKind,
  type RunRecord,
  type RunStatus,
  type TerminalStatus,
} from "./model.js";

export interface Finish {
  status: TerminalStatus;
  summary?: string | null;
  error?: string | null;
  category?: FailureCategory | null;
  /** Recorded as an `error` event just before the terminal status event. */
  errorEvent?: string;
}

export type ClaimOutcome = "claimed" | "not_queued" | "lock_lost";

/** An event the change appends, in order. */
export interface PlannedEvent {
  kind: RunEventKind;
  message: string;
}

/** The new row fields of a terminal write. */
export interface FinishFields {
  status: TerminalStatus;
  summary: string | null;
  error: string | null;
  failureCategory: FailureCategory | null;
  finishedAt: number;
  updatedAt: number;
}

export interface FinishChange {
  kind: "finish";
  fields: FinishFields;
  events: PlannedEvent[];
}

export type RunChange =
  | FinishChange
  | { kind: "cancel_requested"; fields: { cancelRequestedAt: number; updatedAt: number }; events: PlannedEvent[] };

export type Refusal =
  /** The run already ended: the first terminal write wins. */
  | "terminal"
  /** The run is (now) executed by another execution than the caller's. */
  | "other_execution"
  /** The transition starts from `queued` and the run is not. */
  | "not_queued"
  /** The transition starts from `running` and the run is not. */
  | "not_running"
  /** The worker asking no longer holds the worker lock. */
  | "lock_lost"
  /** Cancellation was already requested. */
  | "already_requested"
  /** Cancellation was never requested, so it cannot be finished. */
  | "not_requested";

export type Decision = { ok: true; change: RunChange } | { ok: false; refusal: Refusal };

const refuse = (refusal: Refusal): Decision => ({ ok: false, refusal });
const allow = (change: RunChange): Decision => ({ ok: true, change });

/**
 * The terminal write itself: a failure always has a category (`internal_error` when none
 * is given); only a failure keeps an error; a missing summary keeps the one the run has.
 */
export function finishChange(current: Pick<RunRecord, "summary">, now: number, finish: Finish): FinishChange {
  const failed = finish.status === "failed";
  const events: PlannedEvent[] = [];
  if (finish.errorEvent) events.push({ kind: "error", message: finish.errorEvent });
  events.push({ kind: "status", message: finish.status });
  return {
    kind: "finish",
    fields: {
      status: finish.status,
      summary: finish.summary ?? current.summary,
      error: failed ? (finish.error ?? null) : null,
      failureCategory: failed ? (finish.category ?? "internal_error") : null,
      finishedAt: now,
      updatedAt: now,
    },
    events,
  };
}

/**
 * Any non-terminal run → terminal; the first terminal write wins. With `executionId`, only
 * while the run is still executed by that execution (reconciliation after an executor exit).
 */
export function decideFinish(current: RunRecord, now: number, finish: Finish, executionId?: string): Decision {
  if (isTerminal(current.status)) return refuse("terminal");
  if (executionId !== undefined && current.execution?.executionId !== executionId) return refuse("other_execution");
  return allow(finishChange(current, now, finish));
}

/** queued → failed for a run that never got claimed, only for the worker that still owns the queue. */
export function decideFailUnclaimed(
  current: RunRecord,
  now: number,
  lock: { heldToken: string | null; workerToken: string },
  error: string,
): Decision {
  if (current.status !== "queued") return refuse("not_queued");
  if (lock.heldToken !== lock.workerToken) return refuse("lock_lost");
  return allow(finishChange(current, now, { status: "failed", error, category: "internal_error", errorEvent: error }));
}

/** queued → cancelled at once; running → intent recorded (once); terminal → refused. */
export function decideCancelRequest(current: RunRecord, now: number): Decision {
  if (isTerminal(current.status)) return refuse("terminal");
  if (current.status === "queued") return allow(finishChange(current, now, { status: "cancelled" }));
  if (current.cancelRequestedAt !== null) return refuse("already_requested");
  return allow({
    kind: "cancel_requested",
    fields: { cancelRequestedAt: now, updatedAt: now },
    events: [{ kind: "message", message: "cancellation requested" }],
  });
}

/** running (same execution, intent recorded) → cancelled, once its processes are confirmed gone. */
export function decideFinishCancellation(current: RunRecord, now: number, executionId: string): Decision {
  if (current.status !== "running") return refuse("not_running");
  if (current.execution?.executionId !== executionId) return refuse("other_execution");
  if (current.cancelRequestedAt === null) return refuse("not_requested");
  return allow(finishChange(current, now, { status: "cancelled" }));
}

/**
 * queued → running, only while the run is still queued and, for a run spawned by a worker,
 * while that worker still holds the lock. `status` is undefined for a run that does not exist.
 */
export function decideClaim(
  status: RunStatus | undefined,
  lock: { heldToken: string | null; workerToken: string | null },
): ClaimOutcome {
  if (status !== "queued") return "not_queued";
  if (lock.workerToken !== null && lock.heldToken !== lock.workerToken) return "lock_lost";
  return "claimed";
}
