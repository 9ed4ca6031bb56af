import type { FileRef, PageSource } from "./types.js";

export type { FileRef } from "./types.js";

/**
 * Normalizes a `type: file` source target into a repo-relative shape. Unlike the
 * reference, `.` segments are dropped anywhere (`a/./b` → `a/b`), since a shape
 * that keeps them can never match a real path.
 */
export function normalizeRefPath(raw: string): { shape: string; isDir: boolean } | null {
  const text = raw.trim().replace(/\\/g, "/");
  const rawSegments = text.split("/");
  const isDir = text.endsWith("/") || rawSegments[rawSegments.length - 1] === ".";
  const segments: string[] = [];
  for (const segment of rawSegments) {
    if (segment === "" || segment === ".") continue;
    // A ref that climbs out of the repository has no meaning inside it.
    if (segment === "..") return null;
    segments.push(segment);
  }
  if (segments.length === 0) return null;
  const shape = segments.join("/");
  return { shape: isDir ? `${shape}/` : shape, isDir };
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
