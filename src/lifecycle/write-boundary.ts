/**
 * The after-the-fact half of the write boundary: a git snapshot of the repository before
 * and after a run tells which commits the run made and which files outside `almanac/`
 * it changed, and which files under `almanac/` the product's commit takes (wiki-commit.ts).
 * (The before-the-fact half is each agent CLI's own sandbox.)
 */
import { lstatSync } from "node:fs";
import { join, relative, sep } from "node:path";
import type { CommandRunner } from "../core/command.js";
import { commandFailureLine, gitEnvironment } from "../core/command.js";
import type { FileChange, RunChanges } from "../runs/model.js";

const GIT_TIMEOUT_MS = 30_000;
const COMMIT_LIMIT = 100;
const PATH_LIMIT = 200;

interface Entry {
  /** Porcelain XY status. */
  status: string;
  /** size:mtime of the working-tree file, or "-" when it does not exist. */
  stamp: string;
}

export interface GitSnapshot {
  /** The git work tree's top folder (may hold the repository root below it). */
  top: string;
  head: string | null;
  /** Paths relative to `top`, with `/`. */
  dirty: Map<string, Entry>;
}

/** Null when the repository is not a git work tree (then nothing can be compared). */
export async function takeSnapshot(root: string, git: CommandRunner, env: NodeJS.ProcessEnv): Promise<GitSnapshot | null> {
  const run = gitIn(root, git, env);
  const top = await run(["rev-parse", "--show-toplevel"]);
  if (top.code !== 0) return null;
  const head = await run(["rev-parse", "--verify", "--quiet", "HEAD"]);
  const status = await run(["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]);
  if (status.code !== 0) throw new Error(`git status failed: ${commandFailureLine(status)}`);
  const topPath = top.stdout.trim();
  const dirty = new Map<string, Entry>();
  for (const record of status.stdout.split("\0")) {
    if (record.length < 4) continue;
    const path = record.slice(3);
    dirty.set(path, { status: record.slice(0, 2), stamp: stamp(join(topPath, path)) });
  }
  return { top: topPath, head: head.code === 0 ? head.stdout.trim() : null, dirty };
}

const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The commit HEAD names now, or null outside a git work tree or before the first commit. */
export async function headCommit(root: string, git: CommandRunner, env: NodeJS.ProcessEnv): Promise<string | null> {
  const head = await gitIn(root, git, env)(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  const sha = head.stdout.trim();
  return head.code === 0 && COMMIT_ID.test(sha) ? sha : null;
}

/**
 * What changed between two snapshots: commits made in between, and files outside the
 * wiki folder that were added, modified or deleted (in the working tree or by those commits).
 */
export async function compareSnapshots(
  before: GitSnapshot,
  after: GitSnapshot,
  root: string,
  git: CommandRunner,
  env: NodeJS.ProcessEnv,
): Promise<RunChanges> {
  const run = gitIn(root, git, env);
  const prefix = relative(after.top, root).split(sep).filter((p) => p !== "").join("/");
  const wiki = wikiPrefix(after.top, root);
  const changed = new Map<string, FileChange>();
  const commits: RunChanges["commits"] = [];
  const notes: string[] = [];

  if (after.head && after.head !== before.head) {
    const range = before.head ? `${before.head}..${after.head}` : after.head;
    const log = await run(["log", "--format=%H%x09%s", `--max-count=${COMMIT_LIMIT}`, range]);
    for (const line of log.stdout.split("\n")) {
      const [sha, ...subject] = line.split("\t");
      if (sha) commits.push({ sha, subject: subject.join("\t") });
    }
    if (before.head) {
      const ancestor = await run(["merge-base", "--is-ancestor", before.head, after.head]);
      if (ancestor.code === 1) notes.push(`HEAD moved from ${before.head.slice(0, 12)} to a commit that does not contain it (history was rewritten)`);
    }
    const diff = await run(["diff", "--name-status", "--no-renames", "-z", before.head ?? emptyTree(), after.head]);
    const fields = diff.stdout.split("\0");
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const path = fields[i + 1]!;
      changed.set(path, fields[i] === "A" ? "added" : fields[i] === "D" ? "deleted" : "modified");
    }
  } else if (!after.head && before.head) {
    notes.push("HEAD no longer points at a commit");
  }

  for (const [path, change] of workingTreeChanges(before, after)) changed.set(path, change);
  for (const path of before.dirty.keys()) {
    // Dirty before, clean now: reverted, or committed (then the commit diff named it).
    if (!after.dirty.has(path) && !changed.has(path)) changed.set(path, "modified");
  }

  const outside = [...changed]
    .filter(([path]) => !path.startsWith(wiki))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, change]) => ({ path: prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : `${relativeUp(prefix)}${path}`, change }));
  if (outside.length > PATH_LIMIT) notes.push(`${outside.length - PATH_LIMIT} more changed paths not listed`);
  return { commits, outside: outside.slice(0, PATH_LIMIT), notes };
}

/**
 * Paths dirty in `after` that the time in between changed: not dirty in `before`, or dirty
 * with another status or stamp. The user's own uncommitted work, left alone, is not among them.
 */
function workingTreeChanges(before: GitSnapshot, after: GitSnapshot): Map<string, FileChange> {
  const changed = new Map<string, FileChange>();
  for (const [path, entry] of after.dirty) {
    const earlier = before.dirty.get(path);
    if (earlier && earlier.status === entry.status && earlier.stamp === entry.stamp) continue;
    changed.set(path, classify(entry, earlier));
  }
  return changed;
}

/** One file under the wiki folder that changed in the working tree between two snapshots. */
export interface WikiFileChange {
  /** Relative to the work tree's top folder, with `/`. */
  path: string;
  change: FileChange;
  /** Untracked now: git must be told about it before it can be committed. */
  untracked: boolean;
}

/** The wiki folder (`almanac/`, or `<prefix>/almanac/` in a bigger work tree) relative to the top folder. */
export function wikiPrefix(top: string, root: string): string {
  const prefix = relative(top, root).split(sep).filter((p) => p !== "").join("/");
  return prefix === "" ? "almanac/" : `${prefix}/almanac/`;
}

/**
 * What changed under the wiki folder between two snapshots, in the working tree: the files a
 * run's commit takes. A file the user had left dirty there, and that nothing touched since,
 * is not among them.
 */
export function wikiChanges(before: GitSnapshot, after: GitSnapshot, root: string): WikiFileChange[] {
  const wiki = wikiPrefix(after.top, root);
  return [...workingTreeChanges(before, after)]
    .filter(([path]) => path.startsWith(wiki))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, change]) => ({ path, change, untracked: after.dirty.get(path)?.status === "??" }));
}

function classify(entry: Entry, earlier: Entry | undefined): FileChange {
  if (entry.stamp === "-") return "deleted";
  if (!earlier && (entry.status === "??" || entry.status.startsWith("A"))) return "added";
  return "modified";
}

/** Paths outside the repository root (but inside the git work tree) are shown relative to the root. */
function relativeUp(prefix: string): string {
  return prefix === "" ? "" : "../".repeat(prefix.split("/").length);
}

function stamp(path: string): string {
  try {
    const stat = lstatSync(path);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch {
    return "-";
  }
}

function emptyTree(): string {
  return "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
}

/** `git -C <root> …`; untranslated output, since some of it is matched as text. */
function gitIn(root: string, git: CommandRunner, env: NodeJS.ProcessEnv) {
  const gitEnv = { ...gitEnvironment(env), LC_ALL: "C" };
  return (args: string[]) => git("git", ["-C", root, ...args], { timeoutMs: GIT_TIMEOUT_MS, env: gitEnv });
}

/** One line for the run's warning event. */
export function describeOutside(changes: RunChanges): string | null {
  if (changes.outside.length === 0) return null;
  const shown = changes.outside.slice(0, 5).map((c) => `${c.path} (${c.change})`);
  const more = changes.outside.length > 5 ? `, and ${changes.outside.length - 5} more` : "";
  const count = changes.outside.length;
  return `the agent changed ${count} file${count === 1 ? "" : "s"} outside almanac/: ${shown.join(", ")}${more}`;
}
