import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import type { SourceLimits } from "../../src/sources/context.js";
import { SourcePreparationError } from "../../src/sources/service.js";
import { commit, git, gitRepo, makeService, tempDir, testEnv } from "./helpers.js";

function setup(limits: Partial<SourceLimits> = {}) {
  const repo = gitRepo({ "src/totals.ts": "export const total = (a, b) => a + b;\n" });
  const first = git(repo, "rev-parse", "HEAD");
  commit(repo, { "src/totals.ts": "export const total = (a, b) => a * b;\n" }, "Multiply totals\n\nAddition was a bug.");
  const service = makeService(testEnv(tempDir("ca-sources-home-")), limits);
  const run = { repositoryRoot: repo, workDir: tempDir("ca-sources-run-"), budgetChars: 1_000_000 };
  const brief = async (address: string) => (await service.prepare(await service.resolve([address], { cwd: repo, repositoryRoot: repo }), run))[0]!;
  return { repo, first, service, run, brief };
}

describe("git preparation", () => {
  test("a range shows its commits with stats, then the diff", async () => {
    const { first, repo, brief } = setup();
    const second = git(repo, "rev-parse", "HEAD");
    const result = await brief("git:range:main~1..main");
    expect(result).toMatchObject({ kind: "git_range", title: "Git range main~1..main", truncated: false });
    expect(result.content).toMatch(/^# Git range main~1\.\.main\n\n## Commits\n\n```\ncommit [0-9a-f]{40}\n/);
    expect(result.content).toContain("    Multiply totals\n    \n    Addition was a bug.\n");
    expect(result.content).toContain(" src/totals.ts | 2 +-\n");
    expect(result.content).toContain("## Diff\n\n```diff\ndiff --git a/src/totals.ts b/src/totals.ts\n");
    expect(result.content).toContain("-export const total = (a, b) => a + b;\n+export const total = (a, b) => a * b;\n");
    expect(result.notes).toEqual([`Range main~1..main was ${first}..${second} when the ingest was queued (1 commit).`]);
    expect(result.hint).toMatch(/^Commits and their combined diff/);
  });

  test("the run reads the pinned commits even when the branch has moved since", async () => {
    const { repo, service, run } = setup();
    const refs = await service.resolve(["git:range:main~1..main"], { cwd: repo, repositoryRoot: repo });
    commit(repo, { "src/later.ts": "later\n" }, "A later commit");
    const [result] = await service.prepare(refs, run);
    expect(result!.content).toContain("Multiply totals");
    expect(result!.content).not.toContain("later");
  });

  test("a single commit, the root commit included", async () => {
    const { first, brief } = setup();
    const result = await brief(`git:commit:${first}`);
    expect(result.kind).toBe("git_commit");
    expect(result.content).toContain("    initial\n");
    expect(result.content).toContain("+export const total = (a, b) => a + b;\n");
    expect(result.notes).toEqual([`Commit ${first} was ${first} when the ingest was queued.`]);
  });

  test("the working tree diff is the one seen when queued, even after the tree was reset", async () => {
    const { repo, service, run } = setup();
    writeFileSync(join(repo, "src/totals.ts"), "export const total = (a, b) => a - b;\n");
    const refs = await service.resolve(["git:diff"], { cwd: repo, repositoryRoot: repo });
    git(repo, "checkout", "--", ".");
    const [result] = await service.prepare(refs, run);
    expect(result!.content).toContain("## Changed files\n\n```\n src/totals.ts | 2 +-\n");
    expect(result!.content).toContain("+export const total = (a, b) => a - b;\n");
    expect(result!.notes[1]).toBe("Untracked files are not part of this diff.");
  });

  test("huge git output is cut at the output limit, and the brief says so", async () => {
    const { repo } = setup();
    commit(repo, { "big.txt": "line\n".repeat(5000) }, "big");
    const service = makeService(testEnv(tempDir("ca-sources-home-")), { commandOutputBytes: 2048 });
    const refs = await service.resolve(["git:commit:HEAD"], { cwd: repo, repositoryRoot: repo });
    const [result] = await service.prepare(refs, { repositoryRoot: repo, workDir: tempDir(), budgetChars: 1_000_000 });
    expect(result!.notes).toContain("git's output for the diff was cut at 2 KB.");
  });

  test("a git failure at run time fails preparation with one line naming the address", async () => {
    const { repo, service, run } = setup();
    const [ref] = await service.resolve(["git:range:main~1..main"], { cwd: repo, repositoryRoot: repo });
    const broken = { ...ref!, pinned: { from: "0".repeat(40), to: ref!.pinned!.to } };
    const failure = await service.prepare([broken], run).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SourcePreparationError);
    expect((failure as Error).message).toMatch(/^git:range:main~1\.\.main: git rev-list failed: fatal: .*0{40}/);
    expect((failure as Error).message).not.toContain("\n");
  });
});
