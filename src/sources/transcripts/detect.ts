import type { TranscriptFormat } from "../model.js";
import { readJsonlObjects, type JsonObject } from "./lines.js";

/** Top-level types of Codex envelope lines. */
const CODEX_ENVELOPE_TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted", "world_state"]);

/** Which agent wrote this line, when the line alone can tell; null for lines that cannot. */
export function transcriptFormatOfLine(line: JsonObject): TranscriptFormat | null {
  if (typeof line.type === "string" && CODEX_ENVELOPE_TYPES.has(line.type) && isObject(line.payload)) return "codex";
  if (isCodexLegacyHeader(line)) return "codex";
  if (typeof line.type === "string" && line.payload === undefined) {
    if (typeof line.sessionId === "string") return "claude";
    if (line.type === "summary" && typeof line.leafUuid === "string") return "claude";
  }
  return null;
}

/** Rollouts before the envelope start with `{id, timestamp, instructions}` and no type. */
function isCodexLegacyHeader(line: JsonObject): boolean {
  return line.type === undefined && typeof line.id === "string" && typeof line.timestamp === "string" && "instructions" in line;
}

/** Names that may hold a transcript; other files are never sniffed. */
export function hasTranscriptExtension(path: string): boolean {
  return /\.jsonl(\.zst)?$/i.test(path);
}

/** Codex's first line carries the base instructions, tens of kilobytes; this leaves ample room. */
const SNIFF_BYTES = 4 * 1024 * 1024;
const SNIFF_LINES = 200;

/**
 * Reads the start of a file to tell a Claude or Codex transcript from any other JSONL.
 * Bookkeeping lines come first in some files (1.0.x summaries, queue operations), so
 * it looks past them, within a bound. Throws what the file system throws.
 */
export async function sniffTranscriptFormat(path: string, maxLineBytes: number): Promise<TranscriptFormat | null> {
  let seen = 0;
  for await (const line of readJsonlObjects(path, { maxLineBytes, maxBytes: SNIFF_BYTES })) {
    const format = transcriptFormatOfLine(line);
    if (format) return format;
    if (++seen >= SNIFF_LINES) break;
  }
  return null;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
