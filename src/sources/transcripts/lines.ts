import { createReadStream } from "node:fs";

/**
 * Streams a JSONL transcript (plain or `.jsonl.zst`) one parsed object at a time, so a
 * transcript of any size is read in constant memory. Transcripts are written while a
 * session runs and are sometimes damaged: invalid UTF-8 is decoded with replacement
 * characters, and a line that is not a JSON object (a torn last line, a stray byte
 * sequence, an oversized line) is skipped and counted instead of failing the read.
 *
 * Offsets count bytes of the decompressed stream, so a rollout and its compressed copy
 * have the same offsets.
 */
export interface JsonlReadOptions {
  /** A line longer than this is skipped unparsed. */
  maxLineBytes: number;
  /** Stop after this many bytes of (decompressed) input: a sniff needs only the start. */
  maxBytes?: number;
  /** Offset to start at (a line start); a compressed file is decompressed up to it and the bytes dropped. */
  fromByte?: number;
  /** Offset to stop before: reading ends there even inside a line, which then counts as torn. */
  toByte?: number;
  /** `fromByte` may fall inside a line: reading begins at the first line that starts at or after it. */
  seekLineStart?: boolean;
  signal?: AbortSignal;
}

export interface JsonlStats {
  /** Lines that held a JSON object. */
  objects: number;
  /** Non-blank lines that were not a JSON object (torn, invalid, or not an object). */
  skipped: number;
  /** Lines skipped because they were longer than `maxLineBytes`. */
  oversized: number;
  /** Offset where the input ended or reading stopped; below `fromByte` when the stream is shorter than that. */
  endByte: number;
}

export type JsonObject = Record<string, unknown>;

/** One non-blank line: its object, or why it has none. */
export type JsonlEntry = { offset: number; object: JsonObject } | { offset: number; object: null; problem: "unreadable" | "oversized" };

export function isZstdPath(path: string): boolean {
  return path.toLowerCase().endsWith(".zst");
}

export function newJsonlStats(): JsonlStats {
  return { objects: 0, skipped: 0, oversized: 0, endByte: 0 };
}

export async function* readJsonlObjects(path: string, options: JsonlReadOptions, stats = newJsonlStats()): AsyncGenerator<JsonObject> {
  for await (const entry of readJsonlEntries(path, options, stats)) if (entry.object) yield entry.object;
}

/** Every non-blank line with the offset where it starts, objects and unreadable lines alike. */
export async function* readJsonlEntries(path: string, options: JsonlReadOptions, stats = newJsonlStats()): AsyncGenerator<JsonlEntry> {
  const from = options.fromByte ?? 0;
  // One byte early, so a line starting exactly at `fromByte` is seen to start there.
  const start = options.seekLineStart && from > 0 ? from - 1 : from;
  const zstd = isZstdPath(path);
  const source = createReadStream(path, { highWaterMark: 256 * 1024, signal: options.signal, ...(zstd ? {} : { start }) });
  const window: ByteWindow = { skip: zstd ? start : 0, limit: windowLimit(start, options), end: zstd ? 0 : start };
  let dropFirst = start !== from;
  try {
    const chunks = windowed(zstd ? zstdDecompressed(source) : (source as AsyncIterable<Uint8Array>), window);
    for await (const line of splitLines(chunks, start, options.maxLineBytes)) {
      if (dropFirst) {
        dropFirst = false;
        continue;
      }
      const entry = toEntry(line);
      if (!entry) continue;
      countEntry(entry, stats);
      yield entry;
    }
  } finally {
    stats.endByte = window.end;
    source.destroy();
  }
}

function windowLimit(start: number, options: JsonlReadOptions): number {
  const toEnd = options.toByte === undefined ? Infinity : Math.max(0, options.toByte - start);
  return Math.min(toEnd, options.maxBytes ?? Infinity);
}

function toEntry(line: RawLine): JsonlEntry | null {
  if (line.bytes === null) return { offset: line.offset, object: null, problem: "oversized" };
  const object = parseObject(line.bytes);
  if (object) return { offset: line.offset, object };
  return line.bytes.some((byte) => byte > 0x20) ? { offset: line.offset, object: null, problem: "unreadable" } : null;
}

export function countEntry(entry: JsonlEntry, stats: JsonlStats): void {
  if (entry.object) stats.objects += 1;
  else if (entry.problem === "oversized") stats.oversized += 1;
  else stats.skipped += 1;
}

/** Which bytes of the stream are read: `skip` dropped first (a compressed file), then at most `limit`. */
interface ByteWindow {
  skip: number;
  limit: number;
  /** Offset reached so far, skipped bytes included. */
  end: number;
}

async function* windowed(chunks: AsyncIterable<Uint8Array>, window: ByteWindow): AsyncGenerator<Buffer> {
  let remaining = window.limit;
  if (remaining <= 0) return;
  for await (const raw of chunks) {
    let chunk = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    if (window.skip > 0) {
      const dropped = Math.min(window.skip, chunk.length);
      window.skip -= dropped;
      window.end += dropped;
      chunk = chunk.subarray(dropped);
    }
    if (chunk.length > remaining) chunk = chunk.subarray(0, remaining);
    if (chunk.length === 0) continue;
    remaining -= chunk.length;
    window.end += chunk.length;
    yield chunk;
    if (remaining <= 0) return;
  }
}

const NEWLINE = 0x0a;

/** A line's bytes without its `\n`, or null when it was longer than the limit and not kept. */
interface RawLine {
  offset: number;
  bytes: Buffer | null;
}

/** Splits bytes on `\n` (which never occurs inside a UTF-8 multi-byte character); `base` is the offset of the first byte. */
async function* splitLines(chunks: AsyncIterable<Buffer>, base: number, maxLineBytes: number): AsyncGenerator<RawLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversized = false;
  let chunkOffset = base;
  let lineOffset = base;
  for await (const chunk of chunks) {
    let start = 0;
    for (let index = chunk.indexOf(NEWLINE); index !== -1; index = chunk.indexOf(NEWLINE, start)) {
      if (oversized || pendingBytes + index - start > maxLineBytes) {
        yield { offset: lineOffset, bytes: null };
      } else {
        pending.push(chunk.subarray(start, index));
        yield { offset: lineOffset, bytes: Buffer.concat(pending) };
      }
      pending = [];
      pendingBytes = 0;
      oversized = false;
      start = index + 1;
      lineOffset = chunkOffset + start;
    }
    chunkOffset += chunk.length;
    if (oversized || start >= chunk.length) continue;
    pending.push(chunk.subarray(start));
    pendingBytes += chunk.length - start;
    if (pendingBytes > maxLineBytes) {
      oversized = true;
      pending = [];
      pendingBytes = 0;
    }
  }
  // The last line may have been cut mid-write; parseObject decides whether it is whole.
  if (oversized) yield { offset: lineOffset, bytes: null };
  else if (pendingBytes > 0) yield { offset: lineOffset, bytes: Buffer.concat(pending) };
}

const decoder = new TextDecoder("utf-8");

function parseObject(line: Buffer): JsonObject | null {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(line));
  } catch {
    return null;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

/**
 * Codex compresses rollouts idle for a week. Node 20's zlib has no zstd, so the
 * pure-JS decoder is loaded here, only when such a file is read.
 */
async function* zstdDecompressed(source: AsyncIterable<Buffer>): AsyncGenerator<Uint8Array> {
  const { Decompress } = await import("fzstd");
  const ready: Uint8Array[] = [];
  const decompressor = new Decompress((data) => {
    if (data.length > 0) ready.push(data);
  });
  const push = (chunk: Uint8Array, final: boolean) => {
    try {
      decompressor.push(chunk, final);
    } catch (error) {
      throw new Error(`not a valid zstd file (${error instanceof Error ? error.message : String(error)})`, { cause: error });
    }
  };
  for await (const chunk of source) {
    push(chunk, false);
    yield* ready.splice(0);
  }
  push(new Uint8Array(0), true);
  yield* ready.splice(0);
}
