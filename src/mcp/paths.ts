import { realpathOrNull } from "../core/fs.js";
import { isAbsolute, relative, sep } from "node:path";
import { walkRepositoryPath } from "../wiki/repository-path.js";
import { expandHome } from "../core/paths.js";
import { invalid } from "../core/errors.js";

/**
 * A file or folder path as a tool received it, made repository-relative: a relative path
 * is taken from the repository root, an absolute one must lie inside the repository. A
 * path that leaves the repository is refused. A trailing slash (a folder) is kept.
 */
export function repositoryPath(input: string, root: string): string {
  const text = expandHome(input.trim()).replace(/\\/g, "/");
  if (text === "") throw invalid("path must not be empty");
  const rel = isAbsolute(text) ? insideRoot(text, root) : text;
  // path.relative drops a trailing slash, the only sign of a folder for a path that does not exist.
  const walked = rel === null ? null : walkRepositoryPath(text.endsWith("/") ? `${rel}/` : rel, { climb: "resolve" });
  if (walked === null) throw invalid(`path is outside the repository ${root}: ${input.trim()}`);
  if (walked.path === "") throw invalid("path names the repository root; name a file or folder inside it");
  return walked.path;
}

/** The path relative to the root, or null when it lies outside (also after resolving symlinks). */
function insideRoot(path: string, root: string): string | null {
  for (const candidate of [path, realpathOrNull(path)]) {
    if (candidate === null) continue;
    const rel = relative(root, candidate).split(sep).join("/");
    if (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel)) return rel === "" ? "." : rel;
  }
  return null;
}

