/**
 * How an agent run ended, as one pure decision shared by the adapters: what the process did
 * (spawn error, exit code or signal, why we stopped it) and what its stream said (a failure,
 * a finished answer, or nothing conclusive) in, the run's `Outcome` out.
 */
import type { AgentProcessExit } from "./agent-process.js";
import { failedWith, stalled, type Outcome } from "./outcome.js";
import type { HarnessFailure, HarnessKind } from "./types.js";

/** What the agent's stream said by the time its process ended. */
export type StreamVerdict =
  /** The stream reported a failure (a failed result, a failed turn, an unusable format): it wins. */
  | { kind: "failed"; outcome: Outcome }
  /** The stream reported success with this answer; it counts if the process ended cleanly. */
  | { kind: "completed"; answer: string }
  /**
   * The stream never finished. `authenticationFailure` is reported when we stopped the
   * agent for a rejected credential.
   */
  | { kind: "unfinished"; authenticationFailure: HarnessFailure | null };

export interface EndingContext {
  kind: HarnessKind;
  /** The limits the run had, for the message of a stalled run. */
  limits: { timeoutMs?: number | undefined; idleTimeoutMs?: number | undefined };
  /** The failure of a process that could not be started. */
  spawnFailure(error: unknown): HarnessFailure;
  /** The `<kind>.process_failed` failure with this message. */
  processFailed(message: string): HarnessFailure;
  /** The stderr line that explains a failure, or "" (harness-specific: each CLI prints its own notices). */
  stderrLine: string;
  /** Ends "<kind> exited 1 …" after a success: "after reporting success". */
  afterSuccess: string;
  /** Ends "<kind> exited 1 …" without one: "without a result". */
  withoutSuccess: string;
}

/**
 * In order: a spawn error; a failure the stream reported; a success the stream reported,
 * which counts when the process exited 0 or when we stopped it after the fact; then why we
 * stopped an unfinished agent (cancel, timeout, idle, authentication); else a process failure
 * explained by stderr or the exit code (or signal).
 */
export function decideEnding(exit: AgentProcessExit, stream: StreamVerdict, context: EndingContext): Outcome {
  if (exit.spawnError) return failedWith(context.spawnFailure(exit.spawnError));
  if (stream.kind === "failed") return stream.outcome;
  const exitText = exit.exitCode !== null ? String(exit.exitCode) : (exit.exitSignal ?? "unknown");
  if (stream.kind === "completed") {
    if (exit.exitCode === 0 || exit.stoppedByUs) return { status: "succeeded", failure: null, outputText: stream.answer };
    return failedWith(context.processFailed(context.stderrLine || `${context.kind} exited ${exitText} ${context.afterSuccess}`));
  }
  switch (exit.stopReason) {
    case "cancelled":
      return { status: "cancelled", failure: null, outputText: `${context.kind} cancelled` };
    case "timeout":
    case "idle":
      return failedWith(stalled(context.kind, exit.stopReason, context.limits));
    case "authentication":
      if (stream.authenticationFailure) return failedWith(stream.authenticationFailure);
      break;
    default:
      break;
  }
  return failedWith(context.processFailed(context.stderrLine || `${context.kind} exited ${exitText} ${context.withoutSuccess}`));
}
