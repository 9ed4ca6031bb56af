import { realpathSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { slashPath } from "../text.js";
import { homeOf } from "../transcripts/locate.js";

/** The wiki's own folder at the repository root: never material for itself. */
export const WIKI_FOLDER = "almanac";

/** `~` and `~/…` expand to HOME, as a shell would have done had the path been unquoted. */
export function expandHome(path: string, env: NodeJS.ProcessEnv): string {
  if (path === "~") return homeOf(env);
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homeOf(env), path.slice(2));
  return path;
}

/** The real path when it can be had (symlinks resolved), else the path as given. */
export function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Path of `path` relative to `root` with `/` separators, or null when it lies outside. */
export function relativeInside(root: string, path: string): string | null {
  const rel = relative(root, path);
  if (rel === "") return "";
  if (rel === ".." || rel.startsWith(`..${"/"}`) || rel.startsWith("..\\") || isAbsolute(rel)) return null;
  return slashPath(rel);
}

/** Repository-relative display of a path inside the repository (both sides realpath'd). */
export function repositoryDisplay(path: string, repositoryRoot: string): string | undefined {
  const rel = relativeInside(realPathOr(repositoryRoot), realPathOr(path));
  if (rel === null) return undefined;
  return rel === "" ? "." : rel;
}

export function isInsideWiki(display: string): boolean {
  return display === WIKI_FOLDER || display.startsWith(`${WIKI_FOLDER}/`);
}
