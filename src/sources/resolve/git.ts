import { invalid } from "../../core/errors.js";
import { runGit } from "../commands.js";
import type { ResolveContext, SourceTools } from "../context.js";
import { parseRevisionRange } from "../git-ranges.js";
import type { SourceRef } from "../model.js";

/**
 * Git addresses are checked and pinned when the run is queued: every revision is
 * resolved to a commit SHA stored in the ref, so the run reads what the user saw even
 * if branches move, and the working tree is captured as a commit object by
 * `git stash create` (which touches neither the tree nor the stash list).
 */
export async function resolveGitRange(address: string, spec: string, ctx: ResolveContext, tools: SourceTools): Promise<SourceRef> {
  if (spec === "") throw invalid(`git range address needs a range or a revision: ${address}`);
  const range = parseRevisionRange(spec);
  if (!range) return resolveGitCommit(address, spec, ctx, tools);
  const git = await gitIn(ctx, tools);
  const from = await git.commit(range.from);
  const to = await git.commit(range.to);
  if ((await git.countCommits(`${from}${range.operator}${to}`)) === 0) throw invalid(`git range has no commits: ${spec}`);
  return { address, kind: "git_range", title: `Git range ${spec}`, revision: spec, pinned: { from, to } };
}

export async function resolveGitCommit(address: string, revision: string, ctx: ResolveContext, tools: SourceTools): Promise<SourceRef> {
  if (revision === "") throw invalid(`git commit address needs a revision: ${address}`);
  const git = await gitIn(ctx, tools);
  const sha = await git.commit(revision);
  return { address, kind: "git_commit", title: `Git commit ${revision}`, revision, pinned: { to: sha } };
}

/** `git:diff` (the working tree against HEAD) or `git:diff:<target>` (the working tree against target). */
export async function resolveGitDiff(address: string, target: string, ctx: ResolveContext, tools: SourceTools): Promise<SourceRef> {
  if (target.includes("..")) throw invalid(`git:diff takes one revision; use git:range:<A..B> for a range: ${address}`);
  const git = await gitIn(ctx, tools);
  const head = await git.head();
  const from = target === "" ? head : await git.commit(target);
  const to = (await git.snapshotWorkingTree()) ?? head;
  if (!(await git.differ(from, to))) {
    throw invalid(target === "" ? "nothing to diff: the working tree has no changes to tracked files" : `nothing to diff: the working tree matches ${target}`);
  }
  const title = target === "" ? "Git diff of the working tree" : `Git diff of the working tree against ${target}`;
  return { address, kind: "git_diff", title, ...(target !== "" ? { revision: target } : {}), pinned: { from, to } };
}

/** The few git questions queue time asks, run in the repository root. */
async function gitIn(ctx: ResolveContext, tools: SourceTools) {
  const cwd = ctx.repositoryRoot;
  const run = (args: string[]) => runGit(tools, args, { cwd });
  const inside = await run(["rev-parse", "--is-inside-work-tree"]);
  if (!inside.ok) {
    throw invalid(inside.result?.notFound ? "git not found on PATH" : `not a git repository: ${ctx.repositoryRoot}`);
  }
  if (inside.stdout.trim() !== "true") throw invalid(`not a git repository: ${ctx.repositoryRoot}`);

  const commit = async (revision: string): Promise<string> => {
    // A leading dash would be read as an option, never as a revision.
    const outcome = revision.startsWith("-") ? null : await run(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]);
    const sha = outcome?.ok ? outcome.stdout.trim() : "";
    if (sha === "") throw invalid(`unknown git revision: ${revision}`);
    return sha;
  };

  return {
    commit,
    async head(): Promise<string> {
      const outcome = await run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
      if (!outcome.ok || outcome.stdout.trim() === "") throw invalid(`repository has no commits yet: ${ctx.repositoryRoot}`);
      return outcome.stdout.trim();
    },
    async countCommits(range: string): Promise<number> {
      const outcome = await run(["rev-list", "--count", range]);
      if (!outcome.ok) throw invalid(`cannot read git range ${range}: ${outcome.reason}`);
      return Number.parseInt(outcome.stdout.trim(), 10);
    },
    /** A commit holding the working tree's tracked files, or null when they match HEAD. */
    async snapshotWorkingTree(): Promise<string | null> {
      const outcome = await run(["stash", "create"]);
      if (!outcome.ok) throw invalid(`cannot snapshot the working tree: ${outcome.reason}`);
      return outcome.stdout.trim() || null;
    },
    async differ(from: string, to: string): Promise<boolean> {
      if (from === to) return false;
      const outcome = await run(["diff", "--quiet", "--no-ext-diff", from, to]);
      if (outcome.ok) return false;
      if (outcome.result?.code === 1) return true;
      throw invalid(`cannot compare ${from} with the working tree: ${outcome.reason}`);
    },
  };
}
