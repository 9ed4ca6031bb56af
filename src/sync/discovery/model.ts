/** The agents whose session transcripts `ca sync` looks at. */
export type TranscriptApp = "claude" | "codex";

export const TRANSCRIPT_APPS: readonly TranscriptApp[] = ["claude", "codex"];

/** A transcript file found by listing: stat only, never opened. */
export interface TranscriptFile {
  app: TranscriptApp;
  /** Absolute. */
  path: string;
  size: number;
  mtimeMs: number;
}

export interface TranscriptListing {
  files: TranscriptFile[];
  /** Transcript files last modified before the window; never opened. */
  inactive: number;
  /** Subagent transcripts recognised by their path and left out. */
  subagentFiles: number;
}

/**
 * A file that is not a session to sync, and why: `empty`, `no-session` (only
 * bookkeeping lines, or no line with both a session id and a cwd), `subagent`,
 * `vanished` (gone between listing and reading), `invalid: …` (no readable identity
 * line: not UTF-8, not JSON, too long) or `unreadable: …` (the file system or the
 * zstd decoder refused it).
 */
export interface DiscoverySkip {
  app: TranscriptApp;
  path: string;
  reason: string;
  sessionId?: string;
  cwd?: string;
}

/** Who a transcript belongs to and when it was last active, read from its lines. */
export interface TranscriptMeta {
  app: TranscriptApp;
  path: string;
  sessionId: string;
  cwd: string;
  startedAtMs: number | null;
  /** The newest timestamp near the end of the file, else the file's mtime. */
  lastActivityMs: number;
  /** Written by one of our own runs (the agent was started by codealmanac). */
  ownRun: boolean;
}

export type TranscriptMetaResult = { ok: true; meta: TranscriptMeta } | { ok: false; skip: DiscoverySkip };
