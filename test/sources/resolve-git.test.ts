import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { commit, git, gitRepo, makeService, resolveError, tempDir, testEnv } from "./helpers.js";

function setup() {
  const repo = gitRepo({ "src/app.ts": "export const app = 1;\n" });
  const first = git(repo, "rev-parse", "HEAD");
  const second = commit(repo, { "src/app.ts": "export const app = 2;\n" }, "second");
  const service = makeService(testEnv(tempDir("ca-sources-home-")));
  return { repo, first, second, service, ctx: { cwd: repo, repositoryRoot: repo } };
}

describe("git ranges and commits", () => {
  test("a range is pinned to the commits it named when queued", async () => {
    const { repo, first, second, service, ctx } = setup();
    const [ref] = await service.resolve(["git:range:main~1..main"], ctx);
    expect(ref).toEqual({ address: "git:range:main~1..main", kind: "git_range", title: "Git range main~1..main", revision: "main~1..main", pinned: { from: first, to: second } });
    commit(repo, { "src/app.ts": "export const app = 3;\n" }, "third");
    const [later] = await service.resolve(["git:range:main~1..main"], ctx);
    expect(later!.pinned!.from).toBe(second);
  });

  test("symmetric ranges, open ends and bare ranges are accepted", async () => {
    const { first, second, service, ctx } = setup();
    const refs = await service.resolve(["git:range:HEAD~1...HEAD", `git:range:${first}..`, "HEAD~1..HEAD"], ctx);
    expect(refs.map((ref) => [ref.kind, ref.pinned])).toEqual([
      ["git_range", { from: first, to: second }],
      ["git_range", { from: first, to: second }],
      ["git_range", { from: first, to: second }],
    ]);
    expect(refs[2]!.title).toBe("Git range HEAD~1..HEAD");
  });

  test("a single revision is a commit, in either spelling", async () => {
    const { first, service, ctx } = setup();
    const refs = await service.resolve(["git:range:HEAD~1", "git:commit:HEAD~1"], ctx);
    for (const ref of refs) expect(ref).toMatchObject({ kind: "git_commit", revision: "HEAD~1", pinned: { to: first } });
    expect(refs[1]!.title).toBe("Git commit HEAD~1");
  });

  test("unknown revisions, empty ranges and bad forms are one-line errors", async () => {
    const { repo, service } = setup();
    expect(await resolveError(service, ["git:range:main..nope"], repo)).toBe("unknown git revision: nope");
    expect(await resolveError(service, ["git:commit:--all"], repo)).toBe("unknown git revision: --all");
    expect(await resolveError(service, ["git:range:main..main"], repo)).toBe("git range has no commits: main..main");
    expect(await resolveError(service, ["git:range:"], repo)).toBe("git range address needs a range or a revision: git:range:");
    expect(await resolveError(service, ["git:commit:"], repo)).toBe("git commit address needs a revision: git:commit:");
    expect(await resolveError(service, ["git:log:main"], repo)).toBe(
      "invalid git address: git:log:main (expected git:range:<A..B>, git:commit:<rev>, git:diff or git:diff:<rev>)",
    );
    expect(await resolveError(service, ["nope..main"], repo)).toBe("path not found: nope..main (nor a git range: unknown git revision: nope)");
  });

  test("git addresses outside a git repository are refused", async () => {
    const plain = tempDir();
    const service = makeService(testEnv(tempDir("ca-sources-home-")));
    expect(await resolveError(service, ["git:range:main..HEAD"], plain)).toBe(`not a git repository: ${plain}`);
    expect(await resolveError(service, ["git:diff"], plain)).toBe(`not a git repository: ${plain}`);
  });

  test("git missing from PATH is named", async () => {
    const { repo } = setup();
    const service = makeService(testEnv(tempDir("ca-sources-home-"), { PATH: tempDir() }));
    expect(await resolveError(service, ["git:range:main~1..main"], repo)).toBe("git not found on PATH");
  });
});

describe("git diffs", () => {
  test("the working tree is pinned as a commit without touching the tree, the index or the stash", async () => {
    const { repo, second, service, ctx } = setup();
    writeFileSync(join(repo, "src/app.ts"), "export const app = 'dirty';\n");
    const [ref] = await service.resolve(["git:diff"], ctx);
    expect(ref).toMatchObject({ kind: "git_diff", title: "Git diff of the working tree", pinned: { from: second } });
    expect(ref!.revision).toBeUndefined();
    const snapshot = ref!.pinned!.to!;
    expect(git(repo, "show", `${snapshot}:src/app.ts`)).toBe("export const app = 'dirty';");
    expect(git(repo, "stash", "list")).toBe("");
    expect(git(repo, "status", "--porcelain")).toBe("M src/app.ts");
    expect(readFileSync(join(repo, "src/app.ts"), "utf8")).toBe("export const app = 'dirty';\n");
  });

  test("a clean working tree has nothing to diff", async () => {
    const { repo, service } = setup();
    expect(await resolveError(service, ["git:diff"], repo)).toBe("nothing to diff: the working tree has no changes to tracked files");
    expect(await resolveError(service, ["git:diff:HEAD"], repo)).toBe("nothing to diff: the working tree matches HEAD");
  });

  test("git:diff:<target> compares the working tree with a pinned target", async () => {
    const { first, second, service, ctx } = setup();
    const [ref] = await service.resolve(["git:diff:HEAD~1"], ctx);
    expect(ref).toMatchObject({ kind: "git_diff", revision: "HEAD~1", title: "Git diff of the working tree against HEAD~1", pinned: { from: first, to: second } });
  });

  test("a range in git:diff and a repository without commits are refused", async () => {
    const { repo, service } = setup();
    expect(await resolveError(service, ["git:diff:main..HEAD"], repo)).toBe(
      "git:diff takes one revision; use git:range:<A..B> for a range: git:diff:main..HEAD",
    );
    const empty = join(tempDir(), "empty");
    git(tempDir(), "init", "-q", empty);
    expect(await resolveError(service, ["git:diff"], empty)).toBe(`repository has no commits yet: ${empty}`);
  });

  test("a repository's GIT_DIR inherited from a hook does not redirect git", async () => {
    const { repo, second } = setup();
    const other = gitRepo({ "x.txt": "x\n" });
    const service = makeService(testEnv(tempDir("ca-sources-home-"), { GIT_DIR: join(other, ".git") }));
    const [ref] = await service.resolve(["git:commit:HEAD"], { cwd: repo, repositoryRoot: repo });
    expect(ref!.pinned!.to).toBe(second);
  });
});
