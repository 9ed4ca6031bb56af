import { runGit, type ToolOutcome } from "../commands.js";
import type { PrepareContext, SourceTools } from "../context.js";
import { unavailable } from "../errors.js";
import { parseRevisionRange } from "../git-ranges.js";
import type { SourceRef } from "../model.js";
import { counted, fenced, formatCount, formatSize } from "../text.js";
import type { Material, Preparer } from "./material.js";

/** More commits than this and the log shows only the newest; the diff still covers all. */
const MAX_LOGGED_COMMITS = 300;

const DIFF_OPTIONS = ["--no-ext-diff", "--no-textconv", "--no-color", "-M"];

/** Sections read from git, always against the SHAs pinned when the run was queued. */
export const prepareGit: Preparer = async (ref, ctx, tools) => {
  const git = (args: string[]) => gitOutput(ref, ctx, tools, args);
  const pinned = ref.pinned ?? {};
  if (ref.kind === "git_commit") {
    const sha = pinned.to!;
    const log = await git(["log", "-1", "--stat", "--date=iso-strict", sha]);
    const diff = await git(["show", "--format=", ...DIFF_OPTIONS, "--diff-merges=first-parent", sha]);
    return gitMaterial(ref, [["Commit", log], ["Diff", diff]], [`Commit ${ref.revision} was ${sha} when the ingest was queued.`], tools);
  }
  if (ref.kind === "git_range") {
    const operator = parseRevisionRange(ref.revision ?? "")?.operator ?? "..";
    const range = `${pinned.from}${operator}${pinned.to}`;
    const count = Number.parseInt((await git(["rev-list", "--count", range])).text.trim(), 10);
    const log = await git(["log", "--stat", "--date=iso-strict", `--max-count=${MAX_LOGGED_COMMITS}`, range]);
    const diff = await git(["diff", ...DIFF_OPTIONS, range]);
    const notes = [`Range ${ref.revision} was ${range} when the ingest was queued (${counted(count, "commit")}).`];
    if (count > MAX_LOGGED_COMMITS) notes.push(`The log shows the newest ${MAX_LOGGED_COMMITS} of ${formatCount(count)} commits; the diff covers them all.`);
    return gitMaterial(ref, [["Commits", log], ["Diff", diff]], notes, tools);
  }
  const stat = await git(["diff", "--stat", "--no-color", pinned.from!, pinned.to!]);
  const diff = await git(["diff", ...DIFF_OPTIONS, pinned.from!, pinned.to!]);
  const against = ref.revision ? `${ref.revision} (${pinned.from})` : `HEAD (${pinned.from})`;
  const notes = [
    `The working tree was captured when the ingest was queued (as commit ${pinned.to}) and is compared with ${against}; it may have changed since.`,
    "Untracked files are not part of this diff.",
  ];
  return gitMaterial(ref, [["Changed files", stat], ["Diff", diff]], notes, tools);
};

interface GitText {
  text: string;
  truncated: boolean;
}

async function gitOutput(ref: SourceRef, ctx: PrepareContext, tools: SourceTools, args: string[]): Promise<GitText> {
  ctx.signal?.throwIfAborted();
  const outcome: ToolOutcome = await runGit(tools, args, { cwd: ctx.repositoryRoot });
  if (!outcome.ok) throw unavailable(outcome.reason);
  return { text: outcome.stdout, truncated: outcome.truncated };
}

function gitMaterial(ref: SourceRef, sections: [string, GitText][], notes: string[], tools: SourceTools): Material {
  const rendered = sections.map(([name, output]) => `## ${name}\n\n${output.text.trim() === "" ? "(no output)" : fenced(output.text, name === "Diff" ? "diff" : "")}`);
  const cut = sections.filter(([, output]) => output.truncated).map(([name]) => name.toLowerCase());
  if (cut.length > 0) notes.push(`git's output for the ${cut.join(" and ")} was cut at ${formatSize(tools.limits.commandOutputBytes)}.`);
  return { text: `# ${ref.title}\n\n${rendered.join("\n\n")}\n`, notes, cut: "head" };
}
