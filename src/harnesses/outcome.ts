/**
 * What every adapter does at the end of a run: deliver events to the caller's sink
 * (remembering if the sink throws), append the single terminal `done` event, and build
 * the `HarnessRunResult`.
 */
import type { HarnessEvent, HarnessUsage } from "./events.js";
import type { HarnessFailure, HarnessKind, HarnessRunResult, HarnessRunStatus } from "./types.js";
import { clip, firstLine, formatDuration } from "./text.js";

const SUMMARY_LIMIT = 200;

export interface Outcome {
  status: HarnessRunStatus;
  failure: HarnessFailure | null;
  outputText: string;
}

export function failedWith(failure: HarnessFailure): Outcome {
  return { status: "failed", failure, outputText: failure.message };
}

/** The failure of an agent stopped for taking too long, or for saying nothing for too long. */
export function stalled(
  kind: HarnessKind,
  reason: "timeout" | "idle",
  request: { timeoutMs?: number | undefined; idleTimeoutMs?: number | undefined },
): HarnessFailure {
  if (reason === "idle") {
    return {
      provider: kind,
      code: "timeout",
      message: `${kind} produced no output for ${formatDuration(request.idleTimeoutMs ?? 0)}`,
      fix: "check that the model provider answers, or raise runs.idle_timeout",
    };
  }
  return {
    provider: kind,
    code: "timeout",
    message: `${kind} timed out after ${formatDuration(request.timeoutMs ?? 0)}`,
    fix: "Raise runs.timeout or give the run less to do",
  };
}

/** Delivers events to the caller's callback; a callback that throws is remembered, not propagated. */
export class EventSink {
  readonly events: HarnessEvent[] = [];
  private error: { error: unknown } | null = null;

  constructor(private readonly onEvent: (event: HarnessEvent) => void) {}

  deliver(event: HarnessEvent): void {
    this.events.push(event);
    if (this.error) return;
    try {
      this.onEvent(event);
    } catch (error) {
      this.error = { error };
    }
  }

  get failed(): boolean {
    return this.error !== null;
  }

  /** Resolves with the result, or rejects with the callback's error when it threw. */
  settle<T>(value: T): Promise<T> {
    return this.error ? Promise.reject(this.error.error) : Promise.resolve(value);
  }
}

export interface Conclusion {
  kind: HarnessKind;
  outcome: Outcome;
  sessionId: string | null;
  transcriptPath: string | null;
  usage: HarnessUsage | null;
  costUsd: number | null;
}

/** Appends and delivers the one terminal `done` event, and builds the result. */
export function conclude(sink: EventSink, conclusion: Conclusion): HarnessRunResult {
  const { kind, outcome, sessionId, usage } = conclusion;
  const outputText = outcome.outputText.trim() || outcome.failure?.message || `${kind} ${outcome.status}`;
  const headline = firstLine(outputText);
  const done: HarnessEvent = {
    kind: "done",
    message: clip(`${kind} ${outcome.status}${headline ? `: ${headline}` : ""}`, 500),
    status: outcome.status,
    actor: sessionId
      ? { thread_id: sessionId, role: "root", label: "Main", confidence: "provider" }
      : { role: "unknown", label: "Unknown actor", confidence: "unknown" },
  };
  if (sessionId) done.provider_session_id = sessionId;
  if (outcome.failure) done.failure = { ...outcome.failure };
  if (usage) done.usage = usage;
  sink.deliver(done);
  return {
    kind,
    status: outcome.status,
    outputText,
    summary: outcome.status === "succeeded" && headline ? clip(headline, SUMMARY_LIMIT) : null,
    failure: outcome.failure,
    sessionId,
    transcriptPath: conclusion.transcriptPath,
    costUsd: conclusion.costUsd,
    usage,
    events: sink.events,
  };
}
