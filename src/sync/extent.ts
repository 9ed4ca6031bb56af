import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";

const BLOCK = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * The byte length of a transcript's complete lines: the offset just after its last
 * newline. A session still being written may end in a torn line; a sync takes the
 * transcript only up to here, and the rest is offered next time. For `.jsonl.zst` the
 * offset counts decompressed bytes, as the sources reader does.
 */
export async function completeExtent(path: string, size: number): Promise<number> {
  return /\.zst$/i.test(path) ? zstdExtent(path) : plainExtent(path, size);
}

async function plainExtent(path: string, size: number): Promise<number> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(BLOCK);
    for (let end = size; end > 0; end -= BLOCK) {
      const start = Math.max(0, end - BLOCK);
      const { bytesRead } = await handle.read(buffer, 0, end - start, start);
      const index = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
      if (index !== -1) return start + index + 1;
    }
    return 0;
  } finally {
    await handle.close();
  }
}

async function zstdExtent(path: string): Promise<number> {
  const { Decompress } = await import("fzstd");
  let total = 0;
  let lastNewlineEnd = 0;
  const decompressor = new Decompress((data) => {
    const index = data.lastIndexOf(NEWLINE);
    if (index !== -1) lastNewlineEnd = total + index + 1;
    total += data.length;
  });
  for await (const chunk of createReadStream(path, { highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>) decompressor.push(chunk, false);
  decompressor.push(new Uint8Array(0), true);
  return lastNewlineEnd;
}
