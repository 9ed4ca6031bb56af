import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { SourcePreparationError } from "../../src/sources/service.js";
import { gitRepo, makeService, tempDir, testEnv } from "./helpers.js";

function setup(extra: NodeJS.ProcessEnv = {}) {
  const dir = tempDir();
  const log = join(dir, "gh.jsonl");
  const repo = gitRepo();
  const service = makeService(testEnv(tempDir("ca-sources-home-"), { FAKE_GH_LOG: log, ...extra }));
  const prepare = async (address: string) => {
    const refs = await service.resolve([address], { cwd: repo, repositoryRoot: repo });
    return service.prepare(refs, { repositoryRoot: repo, workDir: join(dir, "run"), budgetChars: 1_000_000 });
  };
  const calls = () =>
    readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { argv: string[]; cwd: string; env: Record<string, string | null> })
      .filter((call) => call.argv[0] !== "auth");
  return { repo, prepare, calls };
}

describe("GitHub preparation", () => {
  test("a pull request: metadata, description, files, commits, discussion and patch, with --repo", async () => {
    const { repo, prepare, calls } = setup();
    const [brief] = await prepare("https://github.com/acme/widgets/pull/12");
    expect(brief).toMatchObject({ kind: "github_pr", title: "GitHub pull request acme/widgets#12: Add retry budget to the uploader", truncated: false });
    expect(brief!.content).toContain("# Pull request: Add retry budget to the uploader\n\n- URL: https://github.com/acme/widgets/pull/12\n- State: MERGED\n- Author: octocat (Mona Lisa)\n- Branches: retry-budget → main\n");
    expect(brief!.content).toContain("## Description\n\n```markdown\nUploads now retry with a budget.\n\n## Why\nFlaky networks.\n```");
    expect(brief!.content).toContain("## Files\n\n- src/upload.ts (+10/-2)");
    expect(brief!.content).toContain("## Commits\n\n- 0123456789ab Add retry budget\n\n  Caps retries at five.");
    expect(brief!.content).toContain("### reviewer at 2026-01-02T05:00:00Z\n\n```markdown\nWhy five?\n```");
    expect(brief!.content).toContain("### APPROVED by reviewer at 2026-01-03T00:00:00Z");
    expect(brief!.content).toContain("## Patch\n\n```diff\nFrom 0123456789abcdef0123");
    expect(calls().map((call) => call.argv)).toEqual([
      ["pr", "view", "12", "--repo", "acme/widgets", "--json", "title,state,author,body,url,createdAt,updatedAt,mergedAt,baseRefName,headRefName,commits,files,comments,reviews"],
      ["pr", "diff", "12", "--repo", "acme/widgets", "--patch", "--color", "never"],
    ]);
    expect(calls()[0]).toMatchObject({ cwd: repo, env: { GH_PROMPT_DISABLED: "1", NO_COLOR: "1" } });
  });

  test("an issue: metadata, labels, assignees and comments", async () => {
    const { prepare, calls } = setup();
    const [brief] = await prepare("github:acme/widgets/issues/7");
    expect(brief).toMatchObject({ kind: "github_issue", title: "GitHub issue acme/widgets#7: Uploads fail on flaky networks" });
    expect(brief!.content).toContain("- Closed: 2026-01-05T00:00:00Z\n- Labels: bug, network\n- Assignees: octocat");
    expect(brief!.content).toContain("### octocat at 2026-01-04T00:00:00Z\n\n```markdown\nFixed by #12.\n```");
    expect(brief!.hint).toMatch(/^An issue and its discussion/);
    expect(calls().map((call) => call.argv.slice(0, 5))).toEqual([["issue", "view", "7", "--repo", "acme/widgets"]]);
  });

  test("owner/repo#n asks gh whether n is a pull request", async () => {
    const { prepare, calls } = setup({ FAKE_GH_KIND: "pr" });
    const [brief] = await prepare("github:acme/widgets#12");
    expect(brief).toMatchObject({ kind: "github_pr", title: "GitHub pull request acme/widgets#12: Add retry budget to the uploader" });
    expect(calls()[0]!.argv).toEqual(["api", "repos/acme/widgets/issues/12", "--jq", 'has("pull_request")']);
    const issue = setup({ FAKE_GH_KIND: "issue" });
    const [asIssue] = await issue.prepare("github:acme/widgets#7");
    expect(asIssue!.kind).toBe("github_issue");
  });

  test("a bare number without a GitHub remote lets gh pick the repository", async () => {
    const { prepare, calls } = setup();
    const [brief] = await prepare("github:issue:7");
    expect(brief!.kind).toBe("github_issue");
    expect(calls()[0]!.argv.slice(0, 4)).toEqual(["issue", "view", "7", "--json"]);
  });

  test("gh failures and unreadable answers fail preparation with one line naming the address", async () => {
    const failing = setup({ FAKE_GH_SCENARIO: "fail", GH_TOKEN: "x" });
    const failure = await failing.prepare("github:pr:99999").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourcePreparationError);
    expect((failure as Error).message).toBe(
      "github:pr:99999: gh pr view failed: GraphQL: Could not resolve to an issue or pull request with the number of 99999. (repository.issueOrPullRequest)",
    );
    const garbled = setup({ FAKE_GH_SCENARIO: "bad-json" });
    expect(((await garbled.prepare("github:issue:3").catch((error: unknown) => error)) as Error).message).toBe(
      "github:issue:3: gh issue view returned unreadable JSON",
    );
  });
});
