import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../../src/core/exec.js";
import type { CommandRunner } from "../../src/core/command.js";
import { GitReader } from "../../src/evidence/git.js";
import { WorkTrees } from "../../src/evidence/work-trees.js";

/** A warm process reuses what git said about the work tree while HEAD and its branch are unchanged. */

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** Git as drift runs it, counting the processes started. */
function countingGit(root: string): { reader: () => GitReader; started: () => number } {
  let started = 0;
  const counting: CommandRunner = (file, args, request) => {
    started++;
    return runCommand(file, args, request);
  };
  return { reader: () => new GitReader(counting, process.env, root), started: () => started };
}

describe("work trees remembered between drift reports", () => {
  test("an unchanged repository costs no git process; a commit, a branch switch and a new repository are seen", async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-work-trees-")));
    const root = join(dir, "repo");
    mkdirSync(root);
    const trees = new WorkTrees();
    const { reader, started } = countingGit(root);

    // Not a work tree yet, then one.
    expect(await trees.find(reader(), root)).toBeNull();
    const afterNone = started();
    expect(await trees.find(reader(), root)).toBeNull();
    expect(started()).toBe(afterNone);
    git(root, "init", "-q", "-b", "main");
    writeFileSync(join(root, "a.txt"), "one\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "one");
    const first = git(root, "rev-parse", "HEAD");
    expect((await trees.find(reader(), root))?.head).toBe(first);

    // Unchanged: no process.
    const warm = started();
    for (let i = 0; i < 3; i++) expect((await trees.find(reader(), root))?.head).toBe(first);
    expect(started()).toBe(warm);

    // A commit on the branch, then packed refs, then another branch.
    writeFileSync(join(root, "a.txt"), "two\n");
    git(root, "commit", "-q", "-am", "two");
    const second = git(root, "rev-parse", "HEAD");
    expect((await trees.find(reader(), root))?.head).toBe(second);
    git(root, "pack-refs", "--all");
    expect((await trees.find(reader(), root))?.head).toBe(second);
    git(root, "checkout", "-q", "-b", "other", first);
    expect((await trees.find(reader(), root))?.head).toBe(first);
    git(root, "checkout", "-q", "--detach", second);
    expect((await trees.find(reader(), root))?.head).toBe(second);
    const settled = started();
    expect((await trees.find(reader(), root))?.head).toBe(second);
    expect(started()).toBe(settled);
  });
});
