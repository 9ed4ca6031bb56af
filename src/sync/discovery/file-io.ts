import { close, constants, fstat, open, read, stat, type Stats } from "node:fs";

/**
 * The few file calls discovery makes, on Node's callback API: for ten thousand small
 * reads it costs measurably less than `fs/promises` file handles, and the calls still
 * run concurrently on the thread pool (a cold disk is not read one file at a time).
 */
export function openForReading(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // Non-blocking, so a FIFO put in a transcript's place cannot hang the open.
    open(path, constants.O_RDONLY | constants.O_NONBLOCK, (error, fd) => (error ? reject(error) : resolve(fd)));
  });
}

export function statOf(fd: number): Promise<Stats> {
  return new Promise((resolve, reject) => fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats))));
}

export function statPath(path: string): Promise<Stats> {
  return new Promise((resolve, reject) => stat(path, (error, stats) => (error ? reject(error) : resolve(stats))));
}

export function readInto(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
}

export function closeQuietly(fd: number): Promise<void> {
  return new Promise((resolve) => close(fd, () => resolve()));
}

/** Reads up to `length` bytes at `position` (fewer when the file is shorter now), into `reuse` when it is big enough. */
export async function readAt(fd: number, position: number, length: number, reuse?: Buffer): Promise<Buffer> {
  const buffer = reuse !== undefined && reuse.length >= length ? reuse : Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const bytesRead = await readInto(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
