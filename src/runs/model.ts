export const RUN_KINDS = ["build", "ingest", "garden"] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export const RUN_STATUSES = ["queued", "running", "done", "failed", "cancelled"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type TerminalStatus = "done" | "failed" | "cancelled";

export const FAILURE_CATEGORIES = [
  "harness_readiness",
  "provider_execution",
  "source_preparation",
  "indexing",
  "wiki_validation",
  "internal_error",
  "mutation_safety",
  "timeout",
  "secret_found",
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

export function isTerminal(status: RunStatus): status is TerminalStatus {
  return status === "done" || status === "failed" || status === "cancelled";
}

/** Who is executing a run: checked by pid plus start time before anyone signals it. */
export interface ExecutionRef {
  executionId: string;
  pid: number;
  startTime: string;
  pgid: number;
  workerToken: string | null;
}

export interface PageChanges {
  created: string[];
  updated: string[];
  deleted: string[];
}

export type FileChange = "added" | "modified" | "deleted";

/** What a run did to the repository beyond its pages, from git snapshots taken before and after it. */
export interface RunChanges {
  /** Commits made during the run, newest first. */
  commits: { sha: string; subject: string }[];
  /** Files outside `almanac/` that changed, relative to the repository root. */
  outside: { path: string; change: FileChange }[];
  /** Anything else worth knowing (history rewritten, not a git repository, …). */
  notes: string[];
}

/** The commit CodeAlmanac itself made of a run's wiki changes (auto_commit), never the agent's. */
export interface WikiCommit {
  sha: string;
  subject: string;
  /** How many files under almanac/ it holds. */
  files: number;
}

/**
 * What a `garden --stale` run did with the stale pages it targeted. Each page is in one list:
 * left unedited (confirmed, and re-stamped), edited or removed (corrected), or still stale after
 * the run; `no_longer_stale` were targeted when queued but fresh (or gone) when the run started.
 */
export interface StalePagesOutcome {
  targeted: string[];
  confirmed: string[];
  corrected: string[];
  left_stale: string[];
  no_longer_stale: string[];
}

/**
 * A secret the gate before the product's commit found in a page the run wrote: where it is
 * and what kind it is, never the secret itself.
 */
export interface SecretFinding {
  /** Relative to the repository root, with `/`: `almanac/concepts/deploy.md`. */
  file: string;
  /** 1-based. */
  line: number;
  kind: string;
}

export interface RunRecord {
  runId: string;
  seq: number;
  repositoryId: string;
  repositoryName: string;
  repositoryRoot: string;
  kind: RunKind;
  status: RunStatus;
  title: string | null;
  summary: string | null;
  error: string | null;
  failureCategory: FailureCategory | null;
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  cancelRequestedAt: number | null;
  execution: ExecutionRef | null;
  harness: { kind: string; sessionId: string | null; transcriptPath: string | null } | null;
  pageChanges: PageChanges | null;
  changes: RunChanges | null;
  wikiCommit: WikiCommit | null;
  stalePages: StalePagesOutcome | null;
  /** What the secret gate found (the run then failed with `secret_found`); null when it found nothing or never ran. */
  secretFindings: SecretFinding[] | null;
  logPath: string;
  retryOf: string | null;
  claimSeq: number | null;
  specVersion: number;
  specJson: string;
}

export const EVENT_KINDS = ["status", "message", "tool", "output", "error", "warning"] as const;
export type RunEventKind = (typeof EVENT_KINDS)[number];

export interface RunEvent {
  runId: string;
  seq: number;
  createdAt: number;
  kind: RunEventKind;
  message: string;
  payload: unknown;
}

export interface Transition {
  record: RunRecord;
  changed: boolean;
}

/**
 * A run carried over from another program's ledger (the Python CodeAlmanac's) as history:
 * always terminal, so nothing queues or claims it, and never retried (see `IMPORTED_SPEC_VERSION`).
 */
export type HistoricRun = Pick<
  RunRecord,
  | "runId" | "repositoryId" | "repositoryName" | "repositoryRoot" | "kind" | "title" | "summary" | "error"
  | "failureCategory" | "createdAt" | "updatedAt" | "startedAt" | "finishedAt" | "harness"
> & {
  status: TerminalStatus;
  /** Where it came from, kept in its spec column beside the original request. */
  origin: string;
  originalSpec: unknown;
  events: { seq: number; createdAt: number; kind: RunEventKind; message: string }[];
};

/** The spec version of a carried-over run: no spec of ours, so it is shown but never run again. */
export const IMPORTED_SPEC_VERSION = 0;
