/** What `sync` and `sync status` report; JSON keys are snake_case on the wire (see cli/render/sync.ts). */
export interface ReadyGroup {
  repositoryId: string;
  repositoryName: string;
  repositoryRoot: string;
  transcriptPaths: string[];
  /** `sync status` only: per transcript, what the redactor would hide in its new part, by kind. */
  redactions?: TranscriptRedactions[];
}

export interface TranscriptRedactions {
  transcriptPath: string;
  /** Null when the part could not be read now (it will be read, or fail, when the run starts). */
  redactions: { kind: string; count: number }[] | null;
}

export interface StartedGroup extends ReadyGroup {
  runId: string;
  /** The transcripts joined a run that was already queued (`sync --session`) rather than a new one. */
  joined: boolean;
}

export interface SyncSkip {
  transcriptPath: string;
  reason: string;
  app?: string;
  sessionId?: string;
  cwd?: string;
}

export interface SyncSummary {
  mode: "status" | "sync";
  /** The oldest activity a transcript never synced before may have and still be taken. */
  since: number;
  completedAt: number | null;
  scanned: number;
  eligible: number;
  ready: ReadyGroup[];
  started: StartedGroup[];
  skipped: SyncSkip[];
  /** Transcripts that were left unopened because their file had not changed. */
  unchanged: number;
}

/** What `sync --session` did with its one session: queued it (in a new run or a queued one), or why not. */
export interface SessionSummary {
  transcriptPath: string;
  app: string;
  sessionId?: string;
  cwd?: string;
  started: StartedGroup | null;
  /** Why nothing was queued; or, beside `started`, a worker that could not be woken. */
  skipped: SyncSkip | null;
}
