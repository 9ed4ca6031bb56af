/**
 * Ingest sources: what `ca ingest <address…>` accepts. An address is resolved and
 * validated when the run is queued (a typo is an exit-1 error, not a failed run
 * minutes later) into a `SourceRef`, which the run spec stores. The executor prepares
 * each ref into a `SourceBrief` in the run's `source_preparation` phase.
 */
export const SOURCE_KINDS = [
  "file",
  "folder",
  "git_range",
  "git_commit",
  "git_diff",
  "github_pr",
  "github_issue",
  "url",
  "transcript",
] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** Resolved at queue time and stored in the run spec as JSON; everything in it is plain data. */
export interface SourceRef {
  /** What the user typed, verbatim. */
  address: string;
  kind: SourceKind;
  /** One line for people: `File src/app.ts`, `GitHub pull request #12`, `Git range main..HEAD`. */
  title: string;
  /** Absolute path (file, folder, transcript). */
  path?: string;
  /** Repository-relative path with `/` separators, when the path lies inside the repository. */
  display?: string;
  /** Normalized web or GitHub URL. */
  url?: string;
  /** `owner/repo` for GitHub addresses that name one. */
  repository?: string;
  /** PR or issue number. */
  number?: number;
  /** Git: the range or revision as typed (`main..HEAD`, `abc123`), or the diff target. */
  revision?: string;
  /** Git: commits pinned when queued, so the run sees what the user saw. */
  pinned?: { from?: string; to?: string };
  /** Transcript: which agent wrote it. */
  format?: TranscriptFormat;
  /** File: SHA-256 of the bytes read when queued, so the run can say the file has changed since. */
  fingerprint?: string;
  /**
   * GitHub `owner/repo#n`: the address does not say whether n is a pull request or an
   * issue, and queuing must not touch the network, so the run asks gh. `kind` is then
   * `github_issue` until the run learns otherwise.
   */
  kindPending?: boolean;
  /**
   * Transcript: only this part of the session, in bytes of the decompressed JSONL
   * (`from` at a line start). Set by a `#bytes=<from>-<to>` address suffix.
   */
  range?: TranscriptByteRange;
}

/** `[fromByte, toByte)`, with 0 ≤ fromByte < toByte. */
export interface TranscriptByteRange {
  fromByte: number;
  toByte: number;
}

export type TranscriptFormat = "claude" | "codex";

/** Prepared material for the agent, bounded by the prompt budget. */
export interface SourceBrief {
  address: string;
  kind: SourceKind;
  title: string;
  /** One sentence telling the agent how to treat this material. */
  hint: string;
  /** The text that goes into the prompt (within this source's share of the budget). */
  content: string;
  /** Length of the whole material in characters, before any cut. */
  totalChars: number;
  /** True when `content` is shorter than the material. */
  truncated: boolean;
  /** When truncated: the whole material, written under the run's folder in the state root. */
  materialPath?: string;
  /** Facts the agent should know: files skipped, a response cut at the size limit, … */
  notes: string[];
}

/** How a transcript ref or brief with a byte range is marked in titles. */
export const NEW_ACTIVITY = "(new activity)";

/** How a source is named for people (job titles): paths as the repository sees them, else the address typed. */
export function sourceLabel(ref: SourceRef): string {
  // A byte range makes the address long and says nothing to people; the title says "new activity".
  if (ref.range) return ref.display === undefined ? ref.title : `${ref.display} ${NEW_ACTIVITY}`;
  if (ref.display === undefined) return ref.address;
  return ref.kind === "folder" && ref.display !== "." ? `${ref.display}/` : ref.display;
}

/**
 * The address of part of a transcript: `transcript:<path>#bytes=<from>-<to>`, the bytes
 * `[from, to)` of the decompressed JSONL, `from` at a line start.
 */
export function transcriptRangeAddress(path: string, fromByte: number, toByte: number): string {
  if (!Number.isSafeInteger(fromByte) || !Number.isSafeInteger(toByte) || fromByte < 0 || fromByte >= toByte) {
    throw new RangeError(`invalid transcript byte range ${fromByte}-${toByte}: needs whole numbers with 0 ≤ from < to`);
  }
  return `transcript:${path}#bytes=${fromByte}-${toByte}`;
}
