import type { Db } from "../core/sqlite.js";
import { readMeta } from "./meta.js";
import { pathsOfSlots, RACY_WINDOW_MS, slugOfScanned, type ScanSnapshot, type ScannedFile, type WikiScan } from "./scan.js";

/**
 * What a refresh must look at when the scan could list its changes itself: the folder
 * layout is the snapshot's, so every file kept its slot, and the scan already compared
 * each slot's size and mtime with the snapshot's. Every refresh writes the snapshot and
 * the manifest's stamps from the same scan, in one transaction, so a file whose slot did
 * not change still has the stat its manifest row records: only the changed slots, and the
 * rows whose stamp is racy, need comparing, and the refresh need not load every row.
 */
export interface ListedChanges {
  /** Files whose stat changed, and files whose manifest row is racy, with their current stat. */
  present: Map<string, ScannedFile>;
  /** Files whose slot is empty now (they vanished while the scan walked). */
  gone: string[];
}

/**
 * The changes of `scan` against `previous`, the snapshot it compared itself with; null when
 * the scan could not list them (layout changed, too many) or the snapshot stored now is not
 * `previous` (another process refreshed since): the caller then compares every file.
 */
export function listedChanges(db: Db, scan: WikiScan, previous: ScanSnapshot | null): ListedChanges | null {
  if (!previous || scan.changedSlots === null) return null;
  const stored = readMeta<ScanSnapshot>(db, SNAPSHOT_KEY);
  if (!stored || stored.checkedAt !== previous.checkedAt || stored.stats !== previous.stats) return null;
  const present = new Map<string, ScannedFile>();
  const gone: string[] = [];
  for (const [slot, rel] of pathsOfSlots(scan.listings, scan.changedSlots)) {
    const size = scan.stats[slot * 2]!;
    const mtimeMs = scan.stats[slot * 2 + 1]!;
    if (Number.isNaN(size)) gone.push(rel);
    else present.set(rel, scannedFile(scan.almanacPath, rel, size, mtimeMs));
  }
  const racy = db
    .prepare(`SELECT rel_path, size, mtime_ms FROM files WHERE mtime_ms + ${RACY_WINDOW_MS} > checked_at`)
    .raw()
    .all() as [string, number, number][];
  for (const [rel, size, mtimeMs] of racy) {
    if (!present.has(rel) && !gone.includes(rel)) present.set(rel, scannedFile(scan.almanacPath, rel, size, mtimeMs));
  }
  return { present, gone };
}

/** The files that map to some slugs, with their stat as the manifest records it (the current one, for unchanged slots). */
export function filesOfSlugs(db: Db, almanacPath: string, slugs: string[]): ScannedFile[] {
  const rows = db
    .prepare("SELECT rel_path, size, mtime_ms FROM files WHERE slug IN (SELECT value FROM json_each(?))")
    .raw()
    .all(JSON.stringify(slugs)) as [string, number, number][];
  return rows.map(([rel, size, mtimeMs]) => scannedFile(almanacPath, rel, size, mtimeMs));
}

function scannedFile(almanacPath: string, relPath: string, size: number, mtimeMs: number): ScannedFile {
  return { relPath, absPath: `${almanacPath}/${relPath}`, size, mtimeMs, slug: slugOfScanned(relPath) };
}

/** The meta row holding the last refresh's ScanSnapshot (IndexWriter stores it). */
export const SNAPSHOT_KEY = "scan_snapshot";
