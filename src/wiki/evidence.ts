/**
 * What a `type: file` source cites, and how to recognise it again: a line range, the
 * fingerprint of the cited text, and where that text sits in a later version of the file.
 * Pure functions over text and bytes; git and the file system are the caller's business.
 */
import { createHash } from "../core/crypto.js";

export type LineRange = { start: number; end: number };

export type RangeParse = { range: LineRange } | { error: string };

const RANGE = /^(\d+)(?:\s*-\s*(\d+))?$/;

/** `40-88`, `40` or the number 40; lines count from 1. A reversed or zero range is an error. */
export function parseLineRange(value: unknown): RangeParse {
  const text = typeof value === "number" && Number.isInteger(value) ? String(value) : typeof value === "string" ? value.trim() : null;
  const match = text === null ? null : RANGE.exec(text);
  if (!match) return { error: `lines must be a line number or a range like 40-88, not ${JSON.stringify(value)}` };
  const start = Number(match[1]);
  const end = match[2] === undefined ? start : Number(match[2]);
  if (start < 1) return { error: `lines start at 1, not ${start}` };
  if (end < start) return { error: `lines ${start}-${end} run backwards` };
  return { range: { start, end } };
}

export function formatLineRange(range: LineRange): string {
  return range.start === range.end ? String(range.start) : `${range.start}-${range.end}`;
}

/**
 * A file's lines as compared: line endings unified and trailing blanks dropped, so a
 * CRLF checkout or an editor's whitespace trim is not an edit. A trailing newline does
 * not make an extra line.
 */
export function fileLines(text: string): string[] {
  const lines = text.split(/\r\n|\n|\r/).map((line) => line.replace(/[ \t]+$/, ""));
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const FINGERPRINT_HEX = 16;

/**
 * A digest of what drift reads from a page: its path and its file sources (target, lines,
 * stamp). The index keeps it per page, so drift knows which cached results still hold
 * without reading every source.
 */
export function evidenceDigest(relPath: string, sources: readonly { source_type: string; source_id: string; target: string | null; lines: string | null; fingerprint: string | null; verified_at: string | null }[]): string {
  const hash = createHash("sha1").update(`${relPath}\n`);
  for (const s of sources) {
    if (s.source_type !== "file" || s.target === null) continue;
    hash.update(`${s.source_id}\0${s.target}\0${s.lines ?? ""}\0${s.fingerprint ?? ""}\0${s.verified_at ?? ""}\n`);
  }
  return hash.digest("base64").slice(0, 22);
}

/** The fingerprint of cited lines: the start of a SHA-256 of their normalized text. */
export function linesFingerprint(lines: readonly string[]): string {
  return createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, FINGERPRINT_HEX);
}

/** Git's object id of a blob with these bytes (what `git hash-object` prints). */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** The fingerprint of a whole cited file: the start of its git blob id, so git can name it too. */
export function fileFingerprint(bytes: Uint8Array): string {
  return gitBlobId(bytes).slice(0, FINGERPRINT_HEX);
}

/** The fingerprint of the cited range of `lines`, or null when the range runs past the end. */
export function rangeFingerprint(lines: readonly string[], range: LineRange): string | null {
  if (range.end > lines.length) return null;
  return linesFingerprint(lines.slice(range.start - 1, range.end));
}

export type Anchor = { status: "fresh" } | { status: "moved"; range: LineRange } | { status: "changed" };

/** Fingerprints of every run of `length` lines, by fingerprint, each with its starts; built once per file and length. */
const windowCache = new WeakMap<readonly string[], Map<number, Map<string, number[]>>>();

function windowsOf(lines: readonly string[], length: number): Map<string, number[]> {
  let byLength = windowCache.get(lines);
  if (!byLength) windowCache.set(lines, (byLength = new Map()));
  let windows = byLength.get(length);
  if (!windows) {
    windows = new Map();
    for (let start = 1; start + length - 1 <= lines.length; start++) {
      const print = linesFingerprint(lines.slice(start - 1, start + length - 1));
      const starts = windows.get(print);
      if (starts) starts.push(start);
      else windows.set(print, [start]);
    }
    byLength.set(length, windows);
  }
  return windows;
}

/** Each line's starts, by text: built once per file, to find a cited run of lines by its first. */
const lineIndexCache = new WeakMap<readonly string[], Map<string, number[]>>();

function lineIndex(lines: readonly string[]): Map<string, number[]> {
  let index = lineIndexCache.get(lines);
  if (!index) {
    index = new Map();
    lines.forEach((line, i) => {
      const starts = index!.get(line);
      if (starts) starts.push(i + 1);
      else index!.set(line, [i + 1]);
    });
    lineIndexCache.set(lines, index);
  }
  return index;
}

/**
 * `anchorRange` for when the cited text itself is known (the lines as they were at the
 * commit a page was verified at): found by comparing lines, with no hashing.
 */
export function anchorLines(lines: readonly string[], range: LineRange, cited: readonly string[]): Anchor {
  const matchesAt = (start: number) => cited.every((line, i) => lines[start - 1 + i] === line);
  if (range.end <= lines.length && matchesAt(range.start)) return { status: "fresh" };
  const starts = (lineIndex(lines).get(cited[0] ?? "") ?? []).filter((start) => start !== range.start && start + cited.length - 1 <= lines.length && matchesAt(start));
  if (starts.length === 0) return { status: "changed" };
  const nearest = starts.sort((a, b) => Math.abs(a - range.start) - Math.abs(b - range.start) || a - b)[0]!;
  return { status: "moved", range: { start: nearest, end: nearest + cited.length - 1 } };
}

/**
 * Where the cited text is now. `fresh` when the same range still holds it; `moved` when an
 * equally long run of lines elsewhere does (the nearest to the old place wins, so repeated
 * blocks re-anchor predictably); `changed` otherwise. Pass the same `lines` array for every
 * source of one file: the windows are computed once per array and length.
 */
export function anchorRange(lines: readonly string[], range: LineRange, fingerprint: string): Anchor {
  if (rangeFingerprint(lines, range) === fingerprint) return { status: "fresh" };
  const length = range.end - range.start + 1;
  const starts = windowsOf(lines, length).get(fingerprint);
  if (!starts) return { status: "changed" };
  const nearest = [...starts].sort((a, b) => Math.abs(a - range.start) - Math.abs(b - range.start) || a - b)[0]!;
  return { status: "moved", range: { start: nearest, end: nearest + length - 1 } };
}
