import { closeSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../core/sqlite.js";
import { openFileWithin, realpathOrNull } from "../../core/fs.js";
import { fileLines, parseLineRange } from "../../wiki/evidence.js";
import { normalizeRefPath } from "../../wiki/file-refs.js";

/** A file source whose `lines` cite what is not there: a folder, or lines past the file's end. */
export type RangeFinding =
  | { kind: "folder"; slug: string; source_id: string; path: string; lines: string }
  | { kind: "past_end"; slug: string; source_id: string; path: string; lines: string; line_count: number };

/**
 * Checks every cited line range against the working tree. A range written on a path ending
 * in `/` never reaches the index (the page reports it); this catches a folder named without
 * the slash, and a file shorter than the range. A missing file is `dead_refs`' finding, and a
 * file that leads outside the repository is not read. Each file is read once per call.
 */
export function rangeFindings(db: Db, repositoryRoot: string): RangeFinding[] {
  const rows = db
    .prepare(
      `SELECT page_slug AS slug, source_id, target, lines FROM page_sources
       WHERE source_type = 'file' AND lines IS NOT NULL AND target IS NOT NULL ORDER BY page_slug, ordinal`,
    )
    .all() as { slug: string; source_id: string; target: string; lines: string }[];
  if (rows.length === 0) return [];
  const realRoot = realpathOrNull(repositoryRoot) ?? repositoryRoot;
  const counts = new Map<string, number | "folder" | null>();
  const findings: RangeFinding[] = [];
  for (const row of rows) {
    const shape = normalizeRefPath(row.target);
    const parsed = parseLineRange(row.lines);
    if (shape === null || "error" in parsed) continue;
    let count = counts.get(shape.shape);
    if (count === undefined) counts.set(shape.shape, (count = lineCountOf(join(repositoryRoot, shape.shape), realRoot)));
    const at = { slug: row.slug, source_id: row.source_id, path: shape.shape, lines: row.lines };
    if (count === "folder") findings.push({ kind: "folder", ...at });
    else if (count !== null && parsed.range.end > count) findings.push({ kind: "past_end", ...at, line_count: count });
  }
  return findings;
}

/** The file's line count as fingerprints count lines, "folder", or null when it cannot be read here. */
function lineCountOf(path: string, realRoot: string): number | "folder" | null {
  try {
    if (statSync(path).isDirectory()) return "folder";
    const { fd } = openFileWithin(path, realRoot);
    try {
      return fileLines(readFileSync(fd, "utf8")).length;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}
