import { statSync } from "node:fs";
import type { Db } from "../core/sqlite.js";
import { trace } from "../core/trace.js";
import { readMeta } from "./meta.js";
import { foldersUnchanged, isRacy, type ScanSnapshot } from "./scan.js";
import { SNAPSHOT_KEY } from "./changes.js";
import { lookupSlug } from "./views/pages.js";
import type { ProductError } from "../core/errors.js";

/**
 * `show` of an unknown page, answered without refreshing the index when that provably
 * gives the same answer. A miss and its did-you-mean suggestions depend only on which
 * slugs are pages, and a refresh could change that only by
 *  - a page file added, removed or renamed: its folder's mtime changes, so every folder
 *    must still have the mtime the last refresh's snapshot recorded (outside the racy window);
 *  - a file that is not a page (unreadable, binary, not UTF-8; or a route's loser) becoming
 *    one: every such file must still have the size and mtime the manifest recorded;
 *  - a page that the answer names or tried (the slug asked for, letter-case matches, the
 *    suggestions) ceasing to be one: those slugs' files must be as recorded too.
 * A page that the answer does not name ceasing to be one cannot change it (suggestions are
 * the best three; dropping another leaves them). These are the guarantees of the stat-based
 * refresh (almanac/decisions/incremental-index-refresh.md), checked for the few files the
 * answer depends on instead of all of them. Returns null when anything is not as recorded:
 * the caller then refreshes and answers as usual.
 */
export function provenMiss(db: Db, almanacPath: string, input: string): ProductError | null {
  try {
    return prove(db, almanacPath, input);
  } catch {
    return null; // a shortcut that fails is no answer: the caller refreshes and answers as usual
  }
}

function prove(db: Db, almanacPath: string, input: string): ProductError | null {
  const read = db.transaction(() => {
    // A known page goes the usual way at once, before the snapshot is read.
    const found = lookupSlug(db, input);
    if ("slug" in found) return null;
    const snapshot = readMeta<ScanSnapshot>(db, SNAPSHOT_KEY);
    if (!snapshot) return null;
    const stamps = db
      .prepare(
        `SELECT rel_path, size, mtime_ms, checked_at FROM files INDEXED BY files_not_page WHERE state != 'page'
         UNION SELECT rel_path, size, mtime_ms, checked_at FROM files WHERE slug IN (SELECT value FROM json_each(?))`,
      )
      .raw()
      .all(JSON.stringify(found.involved)) as [string, number, number, number][];
    return { snapshot, error: found.missing, stamps };
  });
  const answer = read();
  if (!answer) return null;
  if (!foldersUnchanged(almanacPath, answer.snapshot)) return null;
  for (const [rel, size, mtimeMs, checkedAt] of answer.stamps) {
    const stat = statSync(`${almanacPath}/${rel}`, { throwIfNoEntry: false });
    if (!stat || stat.size !== size || stat.mtimeMs !== mtimeMs || isRacy(mtimeMs, checkedAt)) return null;
  }
  trace(`show: miss proven without a refresh (${answer.stamps.length} files checked)`);
  return answer.error;
}
