import { readdirSync, statSync, type Dirent } from "node:fs";
import type { TranscriptApp, TranscriptFile } from "./model.js";

/**
 * A folder's entries; a folder that is missing or unreadable has none. Listing uses the
 * synchronous calls on purpose: for ten thousand small stats they cost a third of the
 * promise-based ones, and a sync that finds nothing new is mostly this listing.
 */
export async function entriesOf(dir: string): Promise<Dirent[]> {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** A symlink may point at a folder; `stat` (not the entry type) decides for those. */
export function mayBeDirectory(entry: Dirent): boolean {
  return entry.isDirectory() || entry.isSymbolicLink();
}

export function mayBeFile(entry: Dirent): boolean {
  return entry.isFile() || entry.isSymbolicLink();
}

/**
 * Collects transcript candidates by their stat alone, never opening them: those
 * modified before `modifiedSinceMs` are only counted.
 */
export class Collector {
  readonly files: TranscriptFile[] = [];
  inactive = 0;
  subagentFiles = 0;

  constructor(private readonly modifiedSinceMs: number | undefined) {}

  async consider(app: TranscriptApp, path: string): Promise<void> {
    let stats;
    try {
      stats = statSync(path, { throwIfNoEntry: false });
    } catch {
      return; // unreadable
    }
    if (!stats?.isFile()) return; // gone since the folder was listed, a dangling link, or not a file
    if (this.modifiedSinceMs !== undefined && stats.mtimeMs < this.modifiedSinceMs) {
      this.inactive += 1;
      return;
    }
    this.files.push({ app, path, size: stats.size, mtimeMs: stats.mtimeMs });
  }
}
