/** What `sync` and `sync status` report; JSON keys are snake_case on the wire (see cli/render/sync.ts). */
export interface ReadyGroup {
  repositoryId: string;
  repositoryName: string;
  repositoryRoot: string;
  transcriptPaths: string[];
}

export interface StartedGroup extends ReadyGroup {
  runId: string;
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
