import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { runGit } from "../commands.js";
import type { SourceTools } from "../context.js";
import { isInsideWiki, realPathOr, relativeInside } from "../resolve/paths-common.js";
import { slashPath } from "../text.js";
import type { Candidate } from "./folder-selection.js";

/** A folder's candidate files, with paths relative to the folder. */
export interface Listing {
  source: "git" | "walk";
  candidates: Candidate[];
  notes: string[];
}

const IGNORED_FOLDERS = new Set([".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"]);
const IGNORED_NAMES = new Set([".gitignore", ".env", ".DS_Store"]);

/** Never material, tracked or not: tool folders, caches, and secrets-bearing `.env` files. */
export function isBuiltinIgnored(path: string): boolean {
  const parts = path.split("/");
  const name = parts[parts.length - 1] ?? "";
  if (parts.slice(0, -1).some((part) => IGNORED_FOLDERS.has(part))) return true;
  return IGNORED_NAMES.has(name) || name.startsWith(".env.") || name.endsWith(".pyc");
}

/**
 * Lists a folder inside the repository. In a git work tree, git answers directly (its
 * own ignore rules, the changed files from `git status`) without walking the tree;
 * outside git, a walk bounded by entry count honours the repository's `.gitignore`.
 * The wiki folder and the built-in ignores are excluded either way.
 */
export async function listFolder(folder: string, repositoryRootAsGiven: string, tools: SourceTools): Promise<Listing> {
  // The folder is a real path (resolved when queued); the root must be one too for the two to compare.
  const repositoryRoot = realPathOr(repositoryRootAsGiven);
  const listing = (await listWithGit(folder, tools)) ?? (await listByWalking(folder, repositoryRoot, tools));
  const keep = (candidate: Candidate) => {
    const fromRoot = relativeInside(repositoryRoot, join(folder, candidate.path));
    return !isBuiltinIgnored(candidate.path) && !(fromRoot !== null && isInsideWiki(fromRoot));
  };
  return { ...listing, candidates: listing.candidates.filter(keep) };
}

async function listWithGit(folder: string, tools: SourceTools): Promise<Listing | null> {
  const run = (args: string[]) => runGit(tools, args, { cwd: folder });
  const where = await run(["rev-parse", "--show-prefix"]);
  if (!where.ok) return null;
  const prefix = where.stdout.trim();
  const files = await run(["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--", "."]);
  if (!files.ok) return null;
  const status = await run(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", "."]);
  const changed = status.ok ? changedPaths(status.stdout) : new Set<string>();
  const names = [...new Set(nulSeparated(files.stdout, files.truncated))];
  const candidates = names
    .filter((name) => name.startsWith(prefix))
    .map((name) => ({ path: name.slice(prefix.length), changed: changed.has(name) }));
  const notes = [];
  if (files.truncated) notes.push("The folder's file list was too long to read whole; only its first part was considered.");
  if (!status.ok) notes.push(`Changed files are unknown (${status.reason}).`);
  return { source: "git", candidates, notes };
}

function nulSeparated(text: string, truncated: boolean): string[] {
  const entries = text.split("\0");
  // The last entry is empty after a final NUL, or a cut-off name when the output was truncated.
  entries.pop();
  if (truncated) entries.pop();
  return entries.filter((entry) => entry !== "");
}

/** Paths in `git status --porcelain=v1 -z`: `XY path`, renames and copies followed by their old path. */
export function changedPaths(porcelain: string): Set<string> {
  const changed = new Set<string>();
  const fields = porcelain.split("\0");
  for (let index = 0; index < fields.length; index += 1) {
    const field = fields[index]!;
    if (field.length < 4) continue;
    changed.add(field.slice(3));
    if (field[0] === "R" || field[0] === "C") index += 1;
  }
  return changed;
}

async function listByWalking(folder: string, repositoryRoot: string, tools: SourceTools): Promise<Listing> {
  const ignored = await gitignoreOf(repositoryRoot);
  const candidates: Candidate[] = [];
  const pending = [""];
  let entries = 0;
  while (pending.length > 0 && entries < tools.limits.folderWalkEntries) {
    const dir = pending.shift()!;
    for (const entry of await readSorted(join(folder, dir))) {
      if (++entries > tools.limits.folderWalkEntries) break;
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      const fromRoot = slashPath(relative(repositoryRoot, join(folder, path)));
      if (entry.isDirectory()) {
        if (!IGNORED_FOLDERS.has(entry.name) && !ignored(`${fromRoot}/`)) pending.push(path);
      } else if (entry.isFile() && !ignored(fromRoot)) {
        candidates.push({ path, changed: false });
      }
    }
  }
  const notes = pending.length > 0 ? [`The folder is large; the walk stopped after ${tools.limits.folderWalkEntries} entries.`] : [];
  return { source: "walk", candidates, notes };
}

/** Children sorted case-insensitively; symlinks are neither files nor folders here, so they are skipped. */
async function readSorted(dir: string) {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  } catch {
    return [];
  }
}

/** The repository's root `.gitignore` as a predicate; the matcher is loaded only for a walk. */
async function gitignoreOf(repositoryRoot: string): Promise<(path: string) => boolean> {
  let rules: string;
  try {
    rules = await readFile(join(repositoryRoot, ".gitignore"), "utf8");
  } catch {
    return () => false;
  }
  const { default: ignore } = await import("ignore");
  const matcher = ignore().add(rules);
  return (path) => path !== "" && !path.startsWith("..") && matcher.ignores(path);
}
