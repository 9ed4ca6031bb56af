import { runGh } from "../commands.js";
import type { PrepareContext, SourceTools } from "../context.js";
import { unavailable } from "../errors.js";
import type { SourceRef } from "../model.js";
import { formatSize } from "../text.js";
import { renderIssue, renderPullRequest, type GithubRecord } from "./github-render.js";
import type { Material, Preparer } from "./material.js";

const PR_FIELDS = "title,state,author,body,url,createdAt,updatedAt,mergedAt,baseRefName,headRefName,commits,files,comments,reviews";
const ISSUE_FIELDS = "title,state,author,body,url,createdAt,updatedAt,closedAt,labels,assignees,comments";

export const prepareGithub: Preparer = async (ref, ctx, tools) => {
  const gh = ghIn(ref, ctx, tools);
  const isPullRequest = ref.kind === "github_pr" || (ref.kindPending === true && (await gh.isPullRequest()));
  return isPullRequest ? preparePullRequest(ref, gh, tools) : prepareIssue(ref, gh);
};

type Gh = ReturnType<typeof ghIn>;

async function preparePullRequest(ref: SourceRef, gh: Gh, tools: SourceTools): Promise<Material> {
  const view = await gh.json(["pr", "view", ...gh.target, "--json", PR_FIELDS]);
  const diff = await gh.text(["pr", "diff", ...gh.target, "--patch", "--color", "never"]);
  const notes = diff.truncated ? [`The patch was cut at ${formatSize(tools.limits.commandOutputBytes)}.`] : [];
  const title = `GitHub pull request ${gh.label}: ${String(view.title ?? "")}`.trimEnd();
  return { title, kind: "github_pr", text: renderPullRequest(view, diff.stdout), notes, cut: "head" };
}

async function prepareIssue(ref: SourceRef, gh: Gh): Promise<Material> {
  const view = await gh.json(["issue", "view", ...gh.target, "--json", ISSUE_FIELDS]);
  const title = `GitHub issue ${gh.label}: ${String(view.title ?? "")}`.trimEnd();
  return { title, kind: "github_issue", text: renderIssue(view), notes: [], cut: "head" };
}

/** gh in the repository root, always told the repository when the ref names one. */
function ghIn(ref: SourceRef, ctx: PrepareContext, tools: SourceTools) {
  const number = String(ref.number);
  const target = ref.repository ? [number, "--repo", ref.repository] : [number];
  const run = async (args: string[]) => {
    ctx.signal?.throwIfAborted();
    const outcome = await runGh(tools, args, { cwd: ctx.repositoryRoot });
    if (!outcome.ok) throw unavailable(outcome.reason);
    return outcome;
  };
  return {
    target,
    label: `${ref.repository ?? ""}#${number}`,
    text: run,
    async json(args: string[]): Promise<GithubRecord> {
      const outcome = await run(args);
      try {
        const value: unknown = JSON.parse(outcome.stdout);
        if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as GithubRecord;
      } catch {
        // reported below
      }
      throw unavailable(`gh ${args.slice(0, 2).join(" ")} returned unreadable JSON`);
    },
    /** GitHub serves pull requests as issues too; the issue record says which it is. */
    async isPullRequest(): Promise<boolean> {
      const outcome = await run(["api", `repos/${ref.repository}/issues/${number}`, "--jq", 'has("pull_request")']);
      return outcome.stdout.trim() === "true";
    },
  };
}
