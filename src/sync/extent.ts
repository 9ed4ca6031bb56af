import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

const BLOCK = 64 * 1024;
const NEWLINE = 0x0a;
/**
 * How many bytes before an offset its fingerprint covers: more than one whole line of
 * either agent (each line carries a uuid or a timestamp), so a rewritten transcript
 * almost never matches by chance.
 */
export const PRINT_BYTES = 4096;

/** What a sync may take from a transcript, and the marks that tell a rewrite from an append. */
export interface Extent {
  /** The offset just after the last newline: where the complete lines end (0: none). */
  end: number;
  /** Fingerprint of the bytes just before `end`; null when `end` is 0. */
  endPrint: string | null;
  /**
   * Fingerprint of the bytes just before the offset that was asked about, when that
   * offset is still a line boundary within the complete lines; null when it is not (the
   * file is now shorter, or the byte before it is no newline: the transcript was
   * rewritten), and for offset 0.
   */
  atPrint: string | null;
}

/**
 * The byte length of a transcript's complete lines, and fingerprints at that end and at
 * `at` (where the wiki's cursor stands; 0 without one). A session still being written may
 * end in a torn line; a sync takes the transcript only up to its last newline, and the
 * rest is offered next time. For `.jsonl.zst` offsets count decompressed bytes, as the
 * sources reader does.
 */
export async function completeExtent(path: string, size: number, at: number): Promise<Extent> {
  return /\.zst$/i.test(path) ? zstdExtent(path, at) : plainExtent(path, size, at);
}

/** The fingerprint of a window of bytes ending at a line boundary. */
export function fingerprint(window: Uint8Array): string {
  return createHash("sha256").update(window).digest("hex").slice(0, 32);
}

async function plainExtent(path: string, size: number, at: number): Promise<Extent> {
  const handle = await open(path, "r");
  try {
    const end = await lastLineEnd(handle, size);
    return { end, endPrint: await printBefore(handle, end), atPrint: at <= end ? await printBefore(handle, at) : null };
  } finally {
    await handle.close();
  }
}

async function lastLineEnd(handle: FileHandle, size: number): Promise<number> {
  const buffer = Buffer.allocUnsafe(BLOCK);
  for (let end = size; end > 0; end -= BLOCK) {
    const start = Math.max(0, end - BLOCK);
    const { bytesRead } = await handle.read(buffer, 0, end - start, start);
    const index = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (index !== -1) return start + index + 1;
  }
  return 0;
}

/** Null unless `offset` follows a newline (a short read leaves zeros, which are none). */
async function printBefore(handle: FileHandle, offset: number): Promise<string | null> {
  const start = Math.max(0, offset - PRINT_BYTES);
  const buffer = Buffer.alloc(offset - start);
  await handle.read(buffer, 0, buffer.length, start);
  return windowPrint(buffer);
}

/** Null unless the window ends in a newline (an empty window does not). */
function windowPrint(window: Uint8Array): string | null {
  return window[window.length - 1] === NEWLINE ? fingerprint(window) : null;
}

/** One pass over the decompressed stream, keeping only the last `PRINT_BYTES` seen. */
async function zstdExtent(path: string, at: number): Promise<Extent> {
  const { Decompress } = await import("fzstd");
  let total = 0;
  let tail: Uint8Array = new Uint8Array(0);
  let end = 0;
  let endWindow: Uint8Array = new Uint8Array(0);
  let atWindow: Uint8Array = new Uint8Array(0);
  const decompressor = new Decompress((data) => {
    if (at > total && at <= total + data.length) atWindow = lastBytes(tail, data.subarray(0, at - total));
    const index = data.lastIndexOf(NEWLINE);
    if (index !== -1) {
      end = total + index + 1;
      endWindow = lastBytes(tail, data.subarray(0, index + 1));
    }
    tail = lastBytes(tail, data);
    total += data.length;
  });
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) decompressor.push(chunk, false);
  decompressor.push(new Uint8Array(0), true);
  return { end, endPrint: windowPrint(endWindow), atPrint: windowPrint(atWindow) };
}

/** The last `PRINT_BYTES` of `before` followed by `data`, as a copy that outlives both. */
function lastBytes(before: Uint8Array, data: Uint8Array): Uint8Array {
  const fromData = data.subarray(Math.max(0, data.length - PRINT_BYTES));
  const keep = Math.min(before.length, PRINT_BYTES - fromData.length);
  const joined = new Uint8Array(keep + fromData.length);
  joined.set(before.subarray(before.length - keep), 0);
  joined.set(fromData, keep);
  return joined;
}
