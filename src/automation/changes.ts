import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { gitEnvironment, type CommandRunner } from "../core/command.js";

const GIT_TIMEOUT_MS = 30_000;

/**
 * Did anything a garden would care about change after `since`? A commit (its committer
 * time), an uncommitted edit (the file's mtime), or a wiki page. Outside git only the
 * wiki can be judged, and an answer we cannot give counts as a change: a needless garden
 * costs less than a wiki that silently stops being tended.
 */
export async function changedSince(run: CommandRunner, env: NodeJS.ProcessEnv, root: string, since: number): Promise<boolean> {
  if (newestMtime(join(root, "almanac"), since)) return true;
  const git = (args: string[]) => run("git", args, { cwd: root, env: gitEnvironment(env), timeoutMs: GIT_TIMEOUT_MS });
  const head = await git(["log", "-1", "--format=%ct"]);
  if (head.code !== 0) return true;
  if (Number(head.stdout.trim()) * 1000 > since) return true;
  const status = await git(["status", "--porcelain", "-z", "--untracked-files=all"]);
  if (status.code !== 0) return true;
  for (const entry of status.stdout.split("\0")) {
    const path = entry.slice(3);
    if (path !== "" && mtimeOf(join(root, path)) > since) return true;
  }
  return false;
}

/** True as soon as one file under `dir` was modified after `since`. */
function newestMtime(dir: string, since: number): boolean {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (newestMtime(path, since)) return true;
    } else if (mtimeOf(path) > since) {
      return true;
    }
  }
  return false;
}

function mtimeOf(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
