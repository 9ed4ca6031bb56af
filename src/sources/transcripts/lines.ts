import { createReadStream } from "node:fs";

/**
 * Streams a JSONL transcript (plain or `.jsonl.zst`) one parsed object at a time, so a
 * transcript of any size is read in constant memory. Transcripts are written while a
 * session runs and are sometimes damaged: invalid UTF-8 is decoded with replacement
 * characters, and a line that is not a JSON object (a torn last line, a stray byte
 * sequence, an oversized line) is skipped and counted instead of failing the read.
 */
export interface JsonlReadOptions {
  /** A line longer than this is skipped unparsed. */
  maxLineBytes: number;
  /** Stop after this many bytes of (decompressed) input: a sniff needs only the start. */
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface JsonlStats {
  /** Lines that held a JSON object. */
  objects: number;
  /** Non-blank lines that were not a JSON object (torn, invalid, or not an object). */
  skipped: number;
  /** Lines skipped because they were longer than `maxLineBytes`. */
  oversized: number;
}

export type JsonObject = Record<string, unknown>;

export function isZstdPath(path: string): boolean {
  return path.toLowerCase().endsWith(".zst");
}

export function newJsonlStats(): JsonlStats {
  return { objects: 0, skipped: 0, oversized: 0 };
}

export async function* readJsonlObjects(path: string, options: JsonlReadOptions, stats = newJsonlStats()): AsyncGenerator<JsonObject> {
  const source = createReadStream(path, { highWaterMark: 256 * 1024, signal: options.signal });
  const chunks = isZstdPath(path) ? zstdDecompressed(source) : (source as AsyncIterable<Buffer>);
  try {
    for await (const line of splitLines(chunks, options, stats)) {
      const value = parseObject(line);
      if (value) {
        stats.objects += 1;
        yield value;
      } else if (line.some((byte) => byte > 0x20)) {
        stats.skipped += 1;
      }
    }
  } finally {
    source.destroy();
  }
}

const NEWLINE = 0x0a;

/** Splits bytes on `\n` (which never occurs inside a UTF-8 multi-byte character). */
async function* splitLines(chunks: AsyncIterable<Uint8Array>, options: JsonlReadOptions, stats: JsonlStats): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversized = false;
  let total = 0;
  for await (const raw of chunks) {
    let chunk = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    if (options.maxBytes !== undefined) {
      if (total >= options.maxBytes) break;
      if (total + chunk.length > options.maxBytes) chunk = chunk.subarray(0, options.maxBytes - total);
    }
    total += chunk.length;
    let start = 0;
    for (let index = chunk.indexOf(NEWLINE); index !== -1; index = chunk.indexOf(NEWLINE, start)) {
      if (!oversized && pendingBytes + index - start > options.maxLineBytes) {
        stats.oversized += 1;
      } else if (!oversized) {
        pending.push(chunk.subarray(start, index));
        yield Buffer.concat(pending);
      }
      pending = [];
      pendingBytes = 0;
      oversized = false;
      start = index + 1;
    }
    if (oversized || start >= chunk.length) continue;
    pending.push(chunk.subarray(start));
    pendingBytes += chunk.length - start;
    if (pendingBytes > options.maxLineBytes) {
      stats.oversized += 1;
      oversized = true;
      pending = [];
      pendingBytes = 0;
    }
  }
  // The last line may have been cut mid-write; parseObject decides whether it is whole.
  if (!oversized && pendingBytes > 0) yield Buffer.concat(pending);
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
