import type { TranscriptLineReader } from "./identity.js";
import { readAt } from "./file-io.js";
import { READ_LIMITS } from "./limits.js";
import { ActivityScan, headExhausted, headSplitter } from "./line-feed.js";

/** Reusable read buffers, one set per concurrent reader. */
export interface ReadBuffers {
  head: Buffer;
  tail: Buffer;
}

export function newReadBuffers(): ReadBuffers {
  return { head: Buffer.allocUnsafe(READ_LIMITS.chunkBytes), tail: Buffer.allocUnsafe(READ_LIMITS.tailBytes) };
}

/**
 * Reads a plain JSONL transcript: its head forwards until the reader knows the
 * identity, then, if there is one, its end backwards for the last activity. A small
 * file is read once. Returns the activity time, or null when none was found.
 */
export async function readPlainTranscript(fd: number, size: number, reader: TranscriptLineReader, buffers: ReadBuffers): Promise<number | null> {
  const first = await readAt(fd, 0, Math.min(size, READ_LIMITS.chunkBytes), buffers.head);
  const wholeFile = first.length >= size;
  await readHead(fd, size, first, reader, buffers.head);
  if (!reader.identified) return null;
  const scan = new ActivityScan(reader);
  if (wholeFile) scan.scan(first, true);
  else await scanTail(fd, size, scan, buffers.tail);
  return scan.latest;
}

async function readHead(fd: number, size: number, first: Buffer, reader: TranscriptLineReader, buffer: Buffer): Promise<void> {
  const splitter = headSplitter(reader);
  let chunk = first;
  let position = 0;
  for (;;) {
    splitter.push(chunk);
    position += chunk.length;
    if (headExhausted(splitter, position)) return;
    if (chunk.length === 0 || position >= size) break;
    chunk = await readAt(fd, position, Math.min(READ_LIMITS.chunkBytes, size - position), buffer);
  }
  splitter.end();
}

/**
 * Scans the end of the file, widening the window backwards while no complete line
 * in it has a time (a long last line), up to the longest line we accept.
 */
async function scanTail(fd: number, size: number, scan: ActivityScan, buffer: Buffer): Promise<void> {
  let windowBytes: number = READ_LIMITS.tailBytes;
  let unscannedEnd = size;
  for (;;) {
    const start = Math.max(0, size - windowBytes);
    const window = await readAt(fd, start, unscannedEnd - start, buffer);
    const unvisited = scan.scan(window, start === 0);
    if (scan.latest !== null || unvisited === 0 || windowBytes >= READ_LIMITS.tailLimitBytes) return;
    unscannedEnd = start + unvisited;
    windowBytes = Math.min(windowBytes * READ_LIMITS.tailGrowth, READ_LIMITS.tailLimitBytes);
  }
}
