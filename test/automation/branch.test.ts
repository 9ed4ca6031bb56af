import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { defaultBranchTip } from "../../src/automation/branch.js";
import { runCommand } from "../../src/core/exec.js";

let dir: string;
let env: NodeJS.ProcessEnv;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-branch-")));
  env = { ...process.env, HOME: dir, CODEALMANAC_HOME: join(dir, "state"), GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function git(cwd: string, ...args: string[]): string {
  const result = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
}

function repo(name: string): string {
  const root = join(dir, name);
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "commit", "-q", "--allow-empty", "-m", "one");
  return root;
}

const tip = (root: string) => defaultBranchTip(runCommand, env, root);

describe("the default branch's tip", () => {
  test("outside git, and before the first commit, there is none", async () => {
    const plain = join(dir, "plain");
    mkdirSync(plain);
    expect(await tip(plain)).toBeNull();
    const empty = join(dir, "empty");
    mkdirSync(empty);
    git(empty, "init", "-q", "-b", "main");
    expect(await tip(empty)).toBeNull();
  });

  test("without a remote, the branch HEAD is on; a detached HEAD is its own tip", async () => {
    const root = repo("solo");
    const first = git(root, "rev-parse", "HEAD");
    expect(await tip(root)).toEqual({ ref: "refs/heads/main", commit: first });
    git(root, "switch", "-q", "-c", "topic");
    git(root, "commit", "-q", "--allow-empty", "-m", "two");
    expect(await tip(root)).toEqual({ ref: "refs/heads/topic", commit: git(root, "rev-parse", "HEAD") });
    git(root, "switch", "-q", "--detach", first);
    expect(await tip(root)).toEqual({ ref: "HEAD", commit: first });
  });

  test("in a clone, the remote's default branch, wherever HEAD is; origin's before another remote's", async () => {
    const seed = repo("seed");
    const origin = join(dir, "origin.git");
    git(dir, "clone", "-q", "--bare", seed, origin);
    const clone = join(dir, "clone");
    git(dir, "clone", "-q", origin, clone);
    const pushed = git(clone, "rev-parse", "HEAD");
    git(clone, "switch", "-q", "-c", "topic");
    git(clone, "commit", "-q", "--allow-empty", "-m", "local");
    expect(await tip(clone)).toEqual({ ref: "refs/remotes/origin/main", commit: pushed });

    const mirror = join(dir, "mirror.git");
    git(dir, "clone", "-q", "--bare", seed, mirror);
    git(clone, "remote", "add", "another", mirror);
    git(clone, "fetch", "-q", "another");
    git(clone, "remote", "set-head", "another", "main");
    expect((await tip(clone))!.ref).toBe("refs/remotes/origin/main");
    git(clone, "remote", "remove", "origin");
    expect((await tip(clone))!.ref).toBe("refs/remotes/another/main");
  });
});
