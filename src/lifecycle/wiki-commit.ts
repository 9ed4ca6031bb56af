/**
 * The product's commit of a run's wiki changes (`auto_commit`). The agent never writes to git;
 * after a successful run, CodeAlmanac commits the files the run changed under `almanac/`, and
 * only those, with a pathspec-limited commit (`git commit --only`): whatever the user had staged
 * elsewhere stays staged and out of the commit, and their own uncommitted work in `almanac/`
 * that the run did not touch is left alone. When git cannot commit here (detached HEAD, a merge
 * or rebase in progress, no identity, signing that fails), nothing is committed, the agent's
 * work stays in the working tree, and the caller reports why. The repository's hooks do not
 * run for this commit (see below).
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { CommandResult, CommandRunner } from "../core/command.js";
import { commandFailureLine, gitEnvironment } from "../core/command.js";
import { takeSnapshot, wikiChanges, type GitSnapshot, type WikiFileChange } from "./write-boundary.js";

/** A commit subject stays one readable line in `git log --oneline`. */
export const SUBJECT_LIMIT = 72;
export const SUBJECT_PREFIX = "almanac: ";

const GIT_TIMEOUT_MS = 30_000;
/** A commit may sign (gpg, ssh) or wait on a lock: longer than a plain git command. */
const COMMIT_TIMEOUT_MS = 120_000;

export type WikiCommitOutcome =
  | { kind: "committed"; sha: string; subject: string; files: number }
  /** Nothing under almanac/ changed during the run. */
  | { kind: "unchanged" }
  /** Something changed, but git could not or must not commit it here; the files stay in the working tree. */
  | { kind: "skipped"; reason: string; files: number };

/** `almanac: <summary>`: the summary's first line, control characters and runs of spaces collapsed, cut to fit. */
export function commitSubject(summary: string): string {
  const line = summary.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
  // eslint-disable-next-line no-control-regex
  const text = line.replace(/[\u0000-\u001f\u007f]+/g, " ").replace(/\s+/g, " ").trim() || "wiki update";
  const room = SUBJECT_LIMIT - SUBJECT_PREFIX.length;
  return SUBJECT_PREFIX + (text.length <= room ? text : `${text.slice(0, room - 1).trimEnd()}…`);
}

/**
 * Commits what changed under the wiki folder since `before` (the snapshot taken before the
 * agent started), with `subject` as the whole message. Never throws for git's own refusals:
 * they come back as `skipped` with the reason.
 */
export async function commitWikiChanges(
  request: { root: string; before: GitSnapshot; subject: string },
  git: CommandRunner,
  env: NodeJS.ProcessEnv,
): Promise<WikiCommitOutcome> {
  const after = await takeSnapshot(request.root, git, env);
  if (!after) return { kind: "skipped", reason: `${request.root} is no longer in a git work tree`, files: 0 };
  const changes = wikiChanges(request.before, after, request.root);
  if (changes.length === 0) return { kind: "unchanged" };
  const files = changes.length;
  const run = gitAtTop(after.top, git, env);

  const blocker = await commitBlocker(after.top, run);
  if (blocker) return { kind: "skipped", reason: blocker, files };

  const untracked = changes.filter((c) => c.untracked);
  if (untracked.length > 0) {
    const add = await run(["add", "--pathspec-from-file=-", "--pathspec-file-nul"], pathList(untracked));
    if (add.code !== 0) return { kind: "skipped", reason: `git add failed: ${failure(add)}`, files };
  }
  // --only: the commit holds these paths as they are in the working tree and nothing else
  // the index holds, so files the user staged stay staged, uncommitted. No hook runs: the
  // agent could write what a hook executes (a hooks folder in the work tree, a script or
  // package a hook calls, ignored files under node_modules/), and this commit would run it
  // outside the agent's sandbox.
  const commit = await run(
    ["-c", "core.hooksPath=/dev/null", "commit", "--quiet", "--only", "-m", request.subject, "--pathspec-from-file=-", "--pathspec-file-nul"],
    pathList(changes),
    COMMIT_TIMEOUT_MS,
  );
  if (commit.code !== 0) {
    // Leave the index as it was: the new files go back to untracked (and stay on disk).
    if (untracked.length > 0) await run(["rm", "--cached", "--quiet", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"], pathList(untracked));
    return { kind: "skipped", reason: commitFailure(commit), files };
  }
  const head = await run(["log", "-1", "--format=%H%x00%s"]);
  const [sha = "", subject = request.subject] = head.stdout.trim().split("\0");
  return { kind: "committed", sha, subject, files };
}

/** Why git must not commit here now, or null. */
async function commitBlocker(top: string, run: GitAtTop): Promise<string | null> {
  const states: [string, string][] = [
    ["MERGE_HEAD", "a merge is in progress"],
    ["rebase-merge", "a rebase is in progress"],
    ["rebase-apply", "a rebase or git am is in progress"],
    ["CHERRY_PICK_HEAD", "a cherry-pick is in progress"],
    ["REVERT_HEAD", "a revert is in progress"],
  ];
  const where = await run(["rev-parse", ...states.flatMap(([name]) => ["--git-path", name])]);
  if (where.code !== 0) return `git rev-parse failed: ${failure(where)}`;
  const paths = where.stdout.split("\n").filter((line) => line !== "");
  for (const [index, [, reason]] of states.entries()) {
    const path = paths[index];
    if (path && existsSync(resolve(top, path))) return reason;
  }
  const branch = await run(["symbolic-ref", "--quiet", "HEAD"]);
  if (branch.code !== 0) return "HEAD is detached (there is no branch to commit to)";
  return null;
}

function commitFailure(result: CommandResult): string {
  if (result.timedOut) return `git commit did not finish within ${COMMIT_TIMEOUT_MS / 1000} s`;
  const text = `${result.stderr}\n${result.stdout}`;
  if (/Please tell me who you are|unable to auto-detect email address|empty ident name/i.test(text)) {
    return "git has no user identity here (set user.name and user.email)";
  }
  return `git commit failed: ${failure(result)}`;
}

function failure(result: CommandResult): string {
  return commandFailureLine(result, 300) || `exit ${result.code ?? result.signal ?? "unknown"}`;
}

/** NUL-separated paths for `--pathspec-from-file=- --pathspec-file-nul`: any file name, any count. */
function pathList(changes: readonly WikiFileChange[]): string {
  return changes.map((c) => `${c.path}\0`).join("");
}

type GitAtTop = (args: string[], input?: string, timeoutMs?: number) => Promise<CommandResult>;

/** `git --literal-pathspecs -C <top> …`, so a page named `*.md` or `:x.md` is that file and nothing more. */
function gitAtTop(top: string, git: CommandRunner, env: NodeJS.ProcessEnv): GitAtTop {
  const gitEnv = { ...gitEnvironment(env), LC_ALL: "C" };
  return (args, input, timeoutMs = GIT_TIMEOUT_MS) =>
    git("git", ["--literal-pathspecs", "-C", top, ...args], { timeoutMs, env: gitEnv, ...(input !== undefined ? { input } : {}) });
}
