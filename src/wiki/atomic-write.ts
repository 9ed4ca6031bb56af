import { randomHex } from "../core/crypto.js";
import { closeSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * Replaces `path` so that readers see either the old or the new content, never
 * a torn file: write a hidden temp file beside it, flush it to disk, rename it
 * over the original. The original's permission bits are kept.
 */
export function writeFileAtomic(path: string, content: string): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomHex(8)}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, "wx", existingMode(path) ?? 0o666);
    writeSync(fd, content, null, "utf8");
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, path);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    removeQuietly(temp);
    throw error;
  }
  syncDirectory(dir);
}

function existingMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // The write already failed; that error is the one worth reporting.
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Nothing to clean up when the temp file was never created.
  }
}

/** Makes the rename itself durable; some platforms cannot open directories, which is fine. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Best effort only.
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}
