import type { Finish } from "./transitions.js";
import type { PageChanges, RunChanges, RunEvent, RunEventKind, RunKind, RunRecord, RunStatus, SecretFinding, StalePagesOutcome, Transition, WikiCommit } from "./model.js";

/**
 * The narrow views of the run ledger that other domains are handed. `RunStore` implements
 * them all; only the queue (which owns a run's life: enqueue, claim, cancel, reap) and the
 * composition root see the store itself, and the architecture rules hold everyone else to
 * these.
 */

export interface ListFilter {
  repositoryId?: string;
  statuses?: RunStatus[];
  kinds?: RunKind[];
  limit?: number;
}

/** What a reader of runs may do (the viewer): read, never change. */
export interface RunReads {
  getRun(runId: string): RunRecord | undefined;
  listRuns(filter?: ListFilter): RunRecord[];
  /** How many runs a filtered listing would show without its limit. */
  countMatchingRuns(filter: Omit<ListFilter, "limit">): number;
  listEvents(runId: string, afterSeq?: number, limit?: number): RunEvent[];
  /** Warning events per run, for the runs given (runs without any are absent). */
  warningCounts(runIds: readonly string[]): Map<string, number>;
}

/** What sync needs to know of runs: how its pending runs went, and which agent sessions were our own. */
export interface RunFootprints {
  statusesOf(runIds: readonly string[]): Map<string, RunStatus>;
  /** The agent sessions our own runs started: sync must never ingest them. */
  harnessFootprints(): { sessionIds: Set<string>; transcriptPaths: Set<string> };
}

/** What an executing run records about itself (the lifecycle runner): its events, what it changed, its end. */
export interface RunRecorder {
  appendEvent(runId: string, now: number, kind: RunEventKind, message: string, payload?: unknown): number;
  /** The first terminal write wins (see RunStore.finishRun). */
  finishRun(runId: string, now: number, finish: Finish, executionId?: string): Transition;
  recordHarnessSession(runId: string, harness: { kind: string; sessionId: string | null; transcriptPath: string | null }): void;
  recordPageChanges(runId: string, changes: PageChanges): void;
  recordChanges(runId: string, changes: RunChanges): void;
  recordWikiCommit(runId: string, commit: WikiCommit): void;
  recordStalePages(runId: string, outcome: StalePagesOutcome): void;
  recordSecretFindings(runId: string, findings: readonly SecretFinding[]): void;
}
