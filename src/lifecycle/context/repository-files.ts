import { readdirSync, type Dirent } from "node:fs";
import { join } from "node:path";
import { gitEnvironment, type CommandRunner } from "../../core/command.js";

/**
 * The repository's files, as paths relative to the root with `/` separators. Git knows
 * them without a walk and honours .gitignore; outside a work tree (or without git) a
 * breadth-first walk skips the usual dependency and build folders and stops at a cap.
 */
export interface RepositoryFiles {
  source: "git" | "walk";
  paths: string[];
  /** False when the listing stopped at its cap, so counts are lower bounds. */
  complete: boolean;
}

export const GIT_FILE_CAP = 200_000;
export const WALK_FILE_CAP = 50_000;
const GIT_TIMEOUT_MS = 30_000;
const GIT_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Folders that hold dependencies, build output or tool state rather than the project. */
const SKIPPED_FOLDERS = new Set([
  "node_modules",
  "vendor",
  "dist",
  "build",
  "target",
  "out",
  "coverage",
  "venv",
  "__pycache__",
  "bower_components",
  "Pods",
]);

/** Hidden folders are tool state, except the one that holds CI workflows. */
const KEPT_HIDDEN_FOLDERS = new Set([".github"]);

/**
 * `excludedFolders` are root-level folders left out of the listing (the wiki itself, when
 * surveying the code it describes).
 */
export async function listRepositoryFiles(
  root: string,
  run: CommandRunner,
  excludedFolders: ReadonlySet<string>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RepositoryFiles> {
  const listing = (await listWithGit(root, run, env)) ?? walkRepository(root, WALK_FILE_CAP, excludedFolders);
  return { ...listing, paths: listing.paths.filter((path) => !inFolder(path, excludedFolders)) };
}

function inFolder(path: string, rootFolders: ReadonlySet<string>): boolean {
  const slash = path.indexOf("/");
  return slash > 0 && rootFolders.has(path.slice(0, slash));
}

async function listWithGit(root: string, run: CommandRunner, env: NodeJS.ProcessEnv): Promise<RepositoryFiles | null> {
  const result = await run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    env: gitEnvironment(env),
    timeoutMs: GIT_TIMEOUT_MS,
    maxOutputBytes: GIT_OUTPUT_BYTES,
  });
  if (result.code !== 0) return null;
  const entries = result.stdout.split("\0");
  // The last entry is empty after a complete listing, or cut mid-path after a truncated one.
  entries.pop();
  const paths = [...new Set(entries)];
  const complete = !result.truncated && paths.length <= GIT_FILE_CAP;
  return { source: "git", paths: paths.slice(0, GIT_FILE_CAP), complete };
}

export function walkRepository(root: string, cap: number, excludedFolders: ReadonlySet<string> = new Set()): RepositoryFiles {
  const paths: string[] = [];
  const folders = [""];
  for (let next = 0; next < folders.length; next++) {
    const folder = folders[next]!;
    for (const entry of readFolder(join(root, folder))) {
      const rel = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        const excluded = folder === "" && excludedFolders.has(entry.name);
        if (!excluded && !isSkippedFolder(entry.name)) folders.push(rel);
        continue;
      }
      // Symbolic links are listed, never followed, so a link cannot loop the walk.
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (paths.length >= cap) return { source: "walk", paths, complete: false };
      paths.push(rel);
    }
  }
  return { source: "walk", paths, complete: true };
}

function readFolder(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}

function isSkippedFolder(name: string): boolean {
  if (name.startsWith(".")) return !KEPT_HIDDEN_FOLDERS.has(name);
  return SKIPPED_FOLDERS.has(name);
}
