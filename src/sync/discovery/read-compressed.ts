import type { TranscriptLineReader } from "./identity.js";
import { readInto } from "./file-io.js";
import { READ_LIMITS } from "./limits.js";
import { ActivityScan, headExhausted, headSplitter } from "./line-feed.js";

export class InvalidZstdError extends Error {}

/**
 * Reads a `.jsonl.zst` rollout (Codex compresses rollouts idle for a week). A zstd
 * stream cannot be read from the end, so it is decompressed through once: the head
 * goes to the reader until the identity is known, and only the last decompressed
 * bytes are kept for the activity scan, whatever the file's size.
 */
export async function readCompressedTranscript(fd: number, size: number, reader: TranscriptLineReader): Promise<number | null> {
  const splitter = headSplitter(reader);
  const tail = new RecentBytes(READ_LIMITS.compressedTailBytes);
  let headBytes = 0;
  let headOpen = true;
  await decompress(fd, size, (chunk) => {
    if (headOpen) {
      splitter.push(chunk);
      headBytes += chunk.length;
      headOpen = !headExhausted(splitter, headBytes);
    }
    tail.push(chunk);
  });
  if (headOpen) splitter.end();
  if (!reader.identified) return null;
  const scan = new ActivityScan(reader);
  scan.scan(tail.bytes(), tail.complete);
  return scan.latest;
}

async function decompress(fd: number, size: number, onData: (chunk: Buffer) => void): Promise<void> {
  const { Decompress } = await import("fzstd");
  const decompressor = new Decompress((data) => {
    if (data.length > 0) onData(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  let position = 0;
  for (;;) {
    // fzstd may hold on to an input chunk between pushes, so each read gets a new buffer.
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(READ_LIMITS.compressedChunkBytes, size - position)));
    const bytesRead = await readInto(fd, buffer, 0, buffer.length, position);
    position += bytesRead;
    const last = bytesRead === 0 || position >= size;
    pushCompressed(decompressor, buffer.subarray(0, bytesRead), last);
    if (last) return;
  }
}

function pushCompressed(decompressor: { push(chunk: Uint8Array, final?: boolean): void }, chunk: Uint8Array, final: boolean): void {
  try {
    decompressor.push(chunk, final);
  } catch (error) {
    throw new InvalidZstdError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** The last `limit` (or a little more) bytes of a stream, kept as the chunks they came in. */
class RecentBytes {
  private chunks: Buffer[] = [];
  private kept = 0;
  private dropped = false;

  constructor(private readonly limit: number) {}

  /** Whether the kept bytes are the whole stream. */
  get complete(): boolean {
    return !this.dropped;
  }

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.chunks.length > 1 && this.kept - this.chunks[0]!.length >= this.limit) {
      this.kept -= this.chunks.shift()!.length;
      this.dropped = true;
    }
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.kept);
  }
}
