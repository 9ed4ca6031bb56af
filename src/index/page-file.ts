import { closeSync, readSync } from "node:fs";
import { sha256Hasher } from "../core/crypto.js";
import { openFileWithin } from "../core/fs.js";
import { MAX_INDEXED_BYTES } from "./layout.js";

/**
 * Every read of a page file (and of topics.yaml) goes through here: opened without
 * following a swapped-in link and checked on its descriptor to be a regular file inside
 * the wiki (src/core/fs.ts `openFileWithin`), and read no further than the 2 MB the
 * index covers, so a huge page costs the same bounded read every time, indexing included.
 */

export interface PageHead {
  /** The file's first bytes: all of it, or `limit` bytes cut back to a whole UTF-8 character. */
  bytes: Buffer;
  /** The size and mtime of the file that was read (from its descriptor). */
  size: number;
  mtimeMs: number;
  /** The file holds more than `bytes`. */
  truncated: boolean;
  /** The content hash, when asked for (see readPageHead). */
  hash?: string;
}

/**
 * The first `limit` bytes of a page inside `wikiRoot` (the wiki folder's real path).
 * With `scratch`, they are read into a buffer this thread reuses, valid only until its next
 * scratch read: a build reads every page once and keeps none of their bytes, and a new
 * buffer a page was most of what its threads allocated outside their heaps.
 * With `hash`, its content hash: SHA-256 of the whole file, or for a file longer than
 * `limit`, of the bytes read, the size and the mtime. The index holds nothing from
 * past the cut, so a change there matters only as a change, which the size or mtime
 * shows; hashing the rest would read the whole file again on every change.
 */
export function readPageHead(path: string, wikiRoot: string, options: { limit?: number; hash?: boolean; scratch?: boolean } = {}): PageHead {
  const limit = options.limit ?? MAX_INDEXED_BYTES;
  const { fd, stat } = openFileWithin(path, wikiRoot);
  try {
    const size = Math.min(stat.size, limit);
    const bytes = readFrom(fd, options.scratch ? scratchBytes(size) : Buffer.allocUnsafe(size), 0);
    const truncated = stat.size > bytes.length;
    const head: PageHead = { bytes: truncated ? wholeCharacters(bytes) : bytes, size: stat.size, mtimeMs: stat.mtimeMs, truncated };
    if (options.hash) head.hash = contentHash(bytes, truncated ? stat : null);
    return head;
  } finally {
    closeSync(fd);
  }
}

/** A whole page as text, for the rewrites that must keep every byte (tag, topic renames). */
export function readWholePage(path: string, wikiRoot: string): string {
  return readPageHead(path, wikiRoot, { limit: Infinity }).bytes.toString("utf8");
}

/** A page's content hash as the parser computes it (see readPageHead); null when it cannot be read. */
export function hashPageFile(path: string, wikiRoot: string): string | null {
  try {
    return readPageHead(path, wikiRoot, { hash: true, scratch: true }).hash!;
  } catch {
    return null;
  }
}

/** The line a reader is shown with a truncated page. */
export function truncationNote(size: number): string {
  return `this page is ${(size / 1024 / 1024).toFixed(1)} MB; only its first ${MAX_INDEXED_BYTES / 1024 / 1024} MB are shown`;
}

/** Grown on first use: only parsing and hashing read into it, which most commands never do. */
let scratch = Buffer.alloc(0);

/** The scratch buffer's first `size` bytes (at most `MAX_INDEXED_BYTES`, so it stays bounded). */
function scratchBytes(size: number): Buffer {
  if (size > scratch.length) scratch = Buffer.allocUnsafe(Math.max(size, scratch.length * 2));
  return scratch.subarray(0, size);
}

/** Fills `buffer` from `position` on, stopping early at the end of the file. */
function readFrom(fd: number, buffer: Buffer, position: number): Buffer {
  let filled = 0;
  while (filled < buffer.length) {
    const n = readSync(fd, buffer, filled, buffer.length - filled, position + filled);
    if (n === 0) break;
    filled += n;
  }
  return filled === buffer.length ? buffer : buffer.subarray(0, filled);
}

function contentHash(bytes: Buffer, cut: { size: number; mtimeMs: number } | null): string {
  const hash = sha256Hasher();
  hash.update(bytes);
  if (cut !== null) hash.update(Buffer.from(`\0cut at ${bytes.length} of ${cut.size} bytes, mtime ${cut.mtimeMs}`));
  return hash.hex();
}

/** Drops a UTF-8 character the cut split, so the prefix decodes like the start of the whole file. */
function wholeCharacters(bytes: Buffer): Buffer {
  let start = bytes.length - 1;
  while (start >= 0 && bytes.length - start < 4 && (bytes[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return bytes;
  const lead = bytes[start]!;
  const width = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return bytes.length - start < width ? bytes.subarray(0, start) : bytes;
}
