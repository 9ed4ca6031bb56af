import { gitEnvironment, type CommandRunner } from "../core/command.js";

const GIT_TIMEOUT_MS = 30_000;

/** A branch and the commit it points at. */
export interface BranchTip {
  /** The full ref name: `refs/remotes/origin/main`, `refs/heads/main`, or `HEAD` when detached. */
  ref: string;
  commit: string;
}

/**
 * The tip of the branch whose movement sends the scheduled garden to the stale pages: the
 * remote's default branch as this clone knows it (`origin/HEAD`, else another remote's
 * `HEAD`), which every fetch or pull of the team's work moves; without one (no remote, or a
 * remote added by hand, until `git remote set-head origin --auto`), the branch HEAD is on,
 * which is the default branch of a repository nobody shares; a detached HEAD is its own tip.
 * Null outside git and before the first commit.
 */
export async function defaultBranchTip(run: CommandRunner, env: NodeJS.ProcessEnv, root: string): Promise<BranchTip | null> {
  const git = (args: string[]) => run("git", args, { cwd: root, env: gitEnvironment(env), timeoutMs: GIT_TIMEOUT_MS });
  const remotes = await git(["for-each-ref", "--format=%(refname)%00%(symref)%00%(objectname)", "refs/remotes/*/HEAD"]);
  if (remotes.code !== 0) return null;
  const remote = remoteDefault(remotes.stdout);
  if (remote !== null) return remote;
  const branch = await git(["symbolic-ref", "-q", "HEAD"]);
  const ref = branch.code === 0 && branch.stdout.trim() !== "" ? branch.stdout.trim() : "HEAD";
  const commit = await git(["rev-parse", "-q", "--verify", `${ref}^{commit}`]);
  return commit.code === 0 && commit.stdout.trim() !== "" ? { ref, commit: commit.stdout.trim() } : null;
}

/** `origin`'s default branch when it is known, else the first remote's. */
function remoteDefault(listing: string): BranchTip | null {
  const heads = listing
    .split("\n")
    .map((line) => line.split("\0"))
    .filter((fields): fields is [string, string, string] => fields.length === 3 && fields[1] !== "" && fields[2] !== "")
    .map(([name, ref, commit]) => ({ name, ref, commit }));
  const chosen = heads.find((head) => head.name === "refs/remotes/origin/HEAD") ?? heads[0];
  return chosen ? { ref: chosen.ref, commit: chosen.commit } : null;
}
