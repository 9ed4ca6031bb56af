/**
 * The state directory `uninstall` deletes. CODEALMANAC_HOME can point anywhere, so the
 * delete refuses places where a recursive removal would take the user's own files: the
 * filesystem root, the home folder or one of its parents, and any folder holding a
 * registered repository or a wiki.
 */
import { existsSync, rmSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";

export interface StateRootGuard {
  root: string;
  home: string;
  repositoryRoots: string[];
}

/** Why the root must not be deleted, or null when it may. */
export function stateRootHazard(guard: StateRootGuard): string | null {
  const root = resolve(guard.root);
  if (root === resolve(sep)) return "it is the filesystem root";
  if (contains(root, resolve(guard.home))) return "it is your home folder or contains it";
  const repository = guard.repositoryRoots.find((r) => contains(root, resolve(r)));
  if (repository) return `it contains the repository ${repository}`;
  if (existsSync(join(root, "almanac")) || existsSync(join(root, ".git"))) return "it looks like a repository";
  return null;
}

export function deleteStateRoot(root: string): void {
  rmSync(root, { recursive: true, force: true });
}

/** `inner` is `outer` or lies inside it. */
function contains(outer: string, inner: string): boolean {
  const rel = relative(outer, inner);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}
