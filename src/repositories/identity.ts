import { existsSync, realpathSync } from "node:fs";
import { isDirectory, isFile } from "../core/fs.js";
import { sha256Hex } from "../core/crypto.js";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../core/paths.js";

/** Expands `~`, makes absolute and resolves symlinks, tolerating missing components. */
export function normalizeRoot(path: string, cwd: string = process.cwd()): string {
  const expanded = expandHome(path);
  const absolute = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
  return realpathLoose(absolute);
}

function realpathLoose(path: string): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = realpathSync(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

export function repositoryIdFor(root: string): string {
  return "repo_" + sha256Hex(root).slice(0, 16);
}

export const ALMANAC_DIR = "almanac";

export function almanacPathFor(root: string): string {
  return join(root, ALMANAC_DIR);
}

/** A directory is an initialized wiki when almanac/README.md and almanac/topics.yaml are files. */
export function isInitializedRoot(root: string): boolean {
  return isFile(join(root, ALMANAC_DIR, "README.md")) && isFile(join(root, ALMANAC_DIR, "topics.yaml"));
}

export type RepositoryStatus = "available" | "missing_repo" | "missing_almanac";

export function repositoryStatus(root: string): RepositoryStatus {
  if (!isDirectory(root)) return "missing_repo";
  return isInitializedRoot(root) ? "available" : "missing_almanac";
}

export function pathExists(path: string): boolean {
  return existsSync(path);
}
