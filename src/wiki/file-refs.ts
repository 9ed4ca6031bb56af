import type { FileRef, PageSource } from "./types.js";
import { walkRepositoryPath } from "./repository-path.js";

export type { FileRef } from "./types.js";

/**
 * A `type: file` source target as a repo-relative shape (a folder ends in `/`), or null when
 * it names nothing inside the repository. Unlike the reference, `.` segments are dropped
 * anywhere (`a/./b` → `a/b`), since a shape that keeps them can never match a real path.
 */
export function normalizeRefPath(raw: string): { shape: string; isDir: boolean } | null {
  const walked = walkRepositoryPath(raw.trim(), { climb: "refuse" });
  if (walked === null || walked.path === "") return null;
  return { shape: walked.path, isDir: walked.isDir };
}

export function fileRefsFromSources(sources: readonly PageSource[]): FileRef[] {
  const byKey = new Map<string, FileRef>();
  for (const source of sources) {
    if (source.source_type !== "file" || source.target === null) continue;
    const normalized = normalizeRefPath(source.target);
    if (!normalized) continue;
    const ref: FileRef = {
      path: normalized.shape.toLowerCase(),
      original_path: normalized.shape,
      is_dir: normalized.isDir,
    };
    const key = `${ref.is_dir ? "d" : "f"}:${ref.path}`;
    if (!byKey.has(key)) byKey.set(key, ref);
  }
  return [...byKey.values()].sort(compareRefs);
}

function compareRefs(a: FileRef, b: FileRef): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return Number(a.is_dir) - Number(b.is_dir);
}
