import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runCommand } from "../../src/core/exec.js";
import { commitSubject, commitWikiChanges, SUBJECT_LIMIT } from "../../src/lifecycle/wiki-commit.js";
import { takeSnapshot } from "../../src/lifecycle/write-boundary.js";

let dir: string;
let home: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-wiki-commit-")));
  home = join(dir, "home");
  mkdirSync(home);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const IDENTITY = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" };

/** A private HOME and no system config, so only what a test sets up applies. */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  for (const key of Object.keys(env)) if (/^GIT_(AUTHOR|COMMITTER)_/.test(key)) delete env[key];
  return env;
}

const withIdentity = (): NodeJS.ProcessEnv => ({ ...baseEnv(), ...IDENTITY });

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", env: withIdentity() });
}

function write(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
}

function repo(at = join(dir, "repo")): string {
  mkdirSync(at, { recursive: true });
  git(at, "init", "-q", "-b", "main");
  write(at, "src/app.ts", "export {};\n");
  write(at, "almanac/README.md", "# Home\n");
  write(at, "almanac/old.md", "# Old\n");
  write(at, "almanac/topics.yaml", "topics: []\n");
  git(at, "add", ".");
  git(at, "commit", "-q", "-m", "initial");
  return at;
}

/** Snapshot, let the "agent" work, then commit as the runner does. */
async function runAndCommit(root: string, agent: () => void, env = withIdentity(), summary = "Added the queue page") {
  const before = await takeSnapshot(root, runCommand, env);
  expect(before).not.toBeNull();
  agent();
  return commitWikiChanges({ root, before: before!, subject: commitSubject(summary) }, runCommand, env);
}

const head = (root: string) => git(root, "rev-parse", "HEAD").trim();
const status = (root: string) => git(root, "status", "--porcelain=v1", "--untracked-files=all");
const committedFiles = (root: string) => git(root, "show", "--name-status", "--format=", "HEAD").trim().split("\n");

describe("the product's commit of a run's wiki changes", () => {
  test("commits exactly the files the run changed under almanac/; what the user staged outside stays staged and uncommitted", async () => {
    const root = repo();
    write(root, "src/staged.ts", "the user's staged work\n");
    git(root, "add", "src/staged.ts");
    write(root, "src/app.ts", "the user's unstaged edit\n");
    write(root, "almanac/drafts/mine.md", "# The user's draft, not the run's\n");
    const start = head(root);

    const outcome = await runAndCommit(root, () => {
      write(root, "almanac/concepts/queue.md", "# Queue\n");
      write(root, "almanac/README.md", "# Home, edited\n");
      write(root, "almanac/topics.yaml", "topics:\n  - slug: concepts\n");
      write(root, "almanac/diagrams/flow.svg", "<svg/>\n");
      unlinkSync(join(root, "almanac/old.md"));
    });

    expect(outcome).toMatchObject({ kind: "committed", subject: "almanac: Added the queue page", files: 5 });
    if (outcome.kind !== "committed") return;
    expect(outcome.sha).toBe(head(root));
    expect(git(root, "rev-parse", "HEAD~1").trim()).toBe(start);
    expect(git(root, "log", "-1", "--format=%B").trim()).toBe("almanac: Added the queue page");
    expect(committedFiles(root).sort()).toEqual(
      ["A\talmanac/concepts/queue.md", "A\talmanac/diagrams/flow.svg", "D\talmanac/old.md", "M\talmanac/README.md", "M\talmanac/topics.yaml"].sort(),
    );
    // The user's index and working tree outside the run's files are exactly as they were.
    expect(status(root).split("\n").filter(Boolean).sort()).toEqual(["A  src/staged.ts", " M src/app.ts", "?? almanac/drafts/mine.md"].sort());
  });

  test("a page the user had dirty and the run edited again is committed; one it did not touch is not", async () => {
    const root = repo();
    write(root, "almanac/README.md", "# Home, the user's edit\n");
    write(root, "almanac/old.md", "# Old, the user's edit\n");
    const outcome = await runAndCommit(root, () => write(root, "almanac/README.md", "# Home, the user's edit, then the agent's\n"));
    expect(outcome).toMatchObject({ kind: "committed", files: 1 });
    expect(committedFiles(root)).toEqual(["M\talmanac/README.md"]);
    expect(status(root).trim()).toBe("M almanac/old.md");
  });

  test("nothing changed under almanac/ → no commit", async () => {
    const root = repo();
    const start = head(root);
    const outcome = await runAndCommit(root, () => write(root, "src/app.ts", "outside only\n"));
    expect(outcome).toEqual({ kind: "unchanged" });
    expect(head(root)).toBe(start);
  });

  test("odd file names are committed as the files they are, not as patterns or pathspec magic", async () => {
    // Relative to the work tree's top, every path starts with the repository's folder, here `:docs`.
    const top = repo(join(dir, "top"));
    const root = join(top, ":docs");
    write(root, "almanac/README.md", "# Docs\n");
    git(top, "add", ".");
    git(top, "commit", "-q", "-m", "docs");
    write(root, "almanac/[x].md", "# decoy\n");
    git(root, "add", "almanac/[x].md");
    git(root, "commit", "-q", "-m", "decoy");
    write(root, "almanac/x.md", "# a file the pattern [x].md would match\n");
    write(root, "almanac/untouched *.md", "# user's\n");
    const outcome = await runAndCommit(root, () => {
      write(root, "almanac/*.md", "# star\n");
      write(root, "almanac/:colon.md", "# colon\n");
      write(root, "almanac/with space é.md", "# space\n");
    });
    expect(outcome).toMatchObject({ kind: "committed", files: 3 });
    expect(execFileSync("git", ["show", "--name-only", "--format=", "-z", "HEAD"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean).sort()).toEqual(
      [":docs/almanac/*.md", ":docs/almanac/:colon.md", ":docs/almanac/with space é.md"].sort(),
    );
    expect(status(root).split("\n").filter(Boolean).sort()).toEqual(['?? ":docs/almanac/untouched *.md"', "?? :docs/almanac/x.md"].sort());
  });

  test("an unborn branch gets the wiki as its first commit", async () => {
    const root = join(dir, "fresh");
    mkdirSync(root);
    git(root, "init", "-q", "-b", "main");
    write(root, "src/app.ts", "export {};\n");
    const outcome = await runAndCommit(root, () => write(root, "almanac/README.md", "# Home\n"));
    expect(outcome).toMatchObject({ kind: "committed", files: 1 });
    expect(committedFiles(root)).toEqual(["A\talmanac/README.md"]);
    expect(status(root).trim()).toBe("?? src/app.ts");
  });

  test("a repository in a subfolder of a bigger work tree commits its own almanac/ only", async () => {
    const top = repo(join(dir, "mono"));
    const root = join(top, "packages", "api");
    write(root, "almanac/README.md", "# API\n");
    git(top, "add", ".");
    git(top, "commit", "-q", "-m", "api");
    const outcome = await runAndCommit(root, () => {
      write(root, "almanac/guide.md", "# Guide\n");
      write(top, "almanac/README.md", "# Top, touched from the package\n");
    });
    expect(outcome).toMatchObject({ kind: "committed", files: 1 });
    expect(committedFiles(top)).toEqual(["A\tpackages/api/almanac/guide.md"]);
    expect(status(top).trim()).toBe("M almanac/README.md");
  });

  describe("when git cannot commit, nothing is committed, the files stay, and the index is as it was", () => {
    async function refused(root: string, prepare: () => void, env = withIdentity()) {
      write(root, "src/staged.ts", "staged by the user\n");
      git(root, "add", "src/staged.ts");
      const start = head(root);
      const outcome = await runAndCommit(
        root,
        () => {
          prepare();
          write(root, "almanac/new.md", "# New\n");
          write(root, "almanac/README.md", "# Home, edited\n");
        },
        env,
      );
      expect(head(root)).toBe(start);
      expect(status(root)).toContain("?? almanac/new.md");
      expect(status(root)).toContain(" M almanac/README.md");
      expect(status(root)).toContain("A  src/staged.ts");
      return outcome;
    }

    test("detached HEAD", async () => {
      const root = repo();
      const outcome = await refused(root, () => git(root, "checkout", "-q", "--detach"));
      expect(outcome).toEqual({ kind: "skipped", reason: "HEAD is detached (there is no branch to commit to)", files: 2 });
    });

    test("a merge in progress", async () => {
      const root = repo();
      git(root, "checkout", "-q", "-b", "side");
      write(root, "src/app.ts", "side\n");
      git(root, "commit", "-qam", "side");
      git(root, "checkout", "-q", "main");
      write(root, "src/app.ts", "main\n");
      git(root, "commit", "-qam", "main");
      spawnSync("git", ["merge", "-q", "side"], { cwd: root, env: withIdentity(), stdio: "ignore" });
      expect(existsSync(join(root, ".git", "MERGE_HEAD"))).toBe(true);
      const before = await takeSnapshot(root, runCommand, withIdentity());
      write(root, "almanac/new.md", "# New\n");
      const outcome = await commitWikiChanges({ root, before: before!, subject: "almanac: x" }, runCommand, withIdentity());
      expect(outcome).toEqual({ kind: "skipped", reason: "a merge is in progress", files: 1 });
      expect(existsSync(join(root, ".git", "MERGE_HEAD"))).toBe(true);
    });

    test("no user identity", async () => {
      const root = repo();
      // Without this, git may guess an identity from the host name on some machines.
      git(root, "config", "user.useConfigOnly", "true");
      const outcome = await refused(root, () => undefined, baseEnv());
      expect(outcome).toEqual({ kind: "skipped", reason: "git has no user identity here (set user.name and user.email)", files: 2 });
    });

    test("signing that fails", async () => {
      const root = repo();
      git(root, "config", "commit.gpgsign", "true");
      git(root, "config", "gpg.program", join(root, "no-such-gpg"));
      const outcome = await refused(root, () => undefined);
      expect(outcome).toMatchObject({ kind: "skipped", files: 2, reason: expect.stringMatching(/^git commit failed: .*gpg/) });
    });
  });

  test("no hook runs, not even one the run itself wrote into the work tree", async () => {
    const root = repo();
    // Hooks kept in the work tree (as husky does), where an agent can write.
    git(root, "config", "core.hooksPath", ".hooks");
    const marker = join(dir, "hook-ran");
    const outcome = await runAndCommit(root, () => {
      for (const name of ["pre-commit", "commit-msg", "post-commit"]) {
        write(root, `.hooks/${name}`, `#!/bin/sh\necho ${name} >> '${marker}'\nexit 1\n`);
        chmodSync(join(root, ".hooks", name), 0o755);
      }
      const hook = join(root, ".git", "hooks", "pre-commit");
      writeFileSync(hook, `#!/bin/sh\necho git-hooks >> '${marker}'\nexit 1\n`);
      chmodSync(hook, 0o755);
      write(root, "almanac/new.md", "# New\n");
    });
    expect(outcome).toMatchObject({ kind: "committed", files: 1 });
    expect(existsSync(marker)).toBe(false);
    expect(committedFiles(root)).toEqual(["A\talmanac/new.md"]);
  });

  test("the subject is one bounded line", () => {
    expect(commitSubject("Added the queue page\nand more detail")).toBe("almanac: Added the queue page");
    expect(commitSubject("\n\n  Tabs\tand   spaces \u0007bell  ")).toBe("almanac: Tabs and spaces bell");
    expect(commitSubject("   ")).toBe("almanac: wiki update");
    const long = commitSubject("word ".repeat(40));
    expect(long.length).toBe(SUBJECT_LIMIT);
    expect(long.endsWith("…")).toBe(true);
    expect(long.startsWith("almanac: word word")).toBe(true);
  });
});
