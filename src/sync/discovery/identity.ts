import type { JsonObject } from "../../sources/transcripts/lines.js";

/** The label our harnesses give the agents they start (see src/harnesses/). */
export const OWN_RUN_MARKER = "codealmanac";

export interface Identity {
  sessionId: string;
  cwd: string;
  startedAtMs: number | null;
  ownRun: boolean;
}

export type Verdict = { ok: true; identity: Identity } | { ok: false; reason: string; sessionId?: string; cwd?: string };

/**
 * Reads one app's transcript lines. The head is fed forwards until the identity is
 * known; then, if there is one, the tail is fed backwards from the end.
 */
export interface TranscriptLineReader {
  /** Returns true once nothing more is needed from the head. */
  readHeadLine(line: JsonObject): boolean;
  /** A head line that could not be read (`line 3 is not a JSON object`). */
  noteHeadDamage(description: string): void;
  /** Whether the head gave a session whose tail is worth reading. */
  readonly identified: boolean;
  /** Returns the line's activity time, or null when it gives none. */
  readTailLine(line: JsonObject): number | null;
  verdict(): Verdict;
}

/** Why no identity was found: damage is reported, else the file holds no session. */
export function noIdentity(damage: string | undefined): Verdict {
  return { ok: false, reason: damage === undefined ? "no-session" : `invalid: ${damage}` };
}

export function timeOf(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
