import { existsSync } from "node:fs";
import { isDirectory, isFile, isPathInside, realpathLoose, realpathOrNull } from "../core/fs.js";
import { ProductError } from "../core/errors.js";
import { sha256Hex } from "../core/crypto.js";
import { isAbsolute, join, resolve } from "node:path";
import { expandHome } from "../core/paths.js";

/** Expands `~`, makes absolute and resolves symlinks, tolerating missing components. */
export function normalizeRoot(path: string, cwd: string = process.cwd()): string {
  const expanded = expandHome(path);
  const absolute = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
  return realpathLoose(absolute);
}

export function repositoryIdFor(root: string): string {
  return "repo_" + sha256Hex(root).slice(0, 16);
}

export const ALMANAC_DIR = "almanac";

export function almanacPathFor(root: string): string {
  return join(root, ALMANAC_DIR);
}

/**
 * almanac/'s real path. Git commits symlinks, so a checkout's almanac/ can lead anywhere;
 * a wiki that resolves outside its repository is refused, which keeps every read and
 * write of the wiki (CLI, MCP, viewer, runs) inside the repository. A link to a folder
 * inside the repository is fine.
 */
export function containedAlmanacPath(root: string): string {
  const almanac = almanacPathFor(root);
  const realRoot = realpathOrNull(root) ?? root;
  const real = realpathOrNull(almanac) ?? almanac;
  if (!isPathInside(real, realRoot)) {
    throw new ProductError(
      "validation_failed",
      `the wiki folder ${almanac} resolves to ${real}, outside its repository ${realRoot}; refusing to read or write it (make almanac/ a folder inside the repository)`,
    );
  }
  return real;
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
