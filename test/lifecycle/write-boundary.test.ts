import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runCommand } from "../../src/core/exec.js";
import { compareSnapshots, describeOutside, headCommit, takeSnapshot } from "../../src/lifecycle/write-boundary.js";

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-boundary-")));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" },
  });
}

function write(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
}

function repo(at = dir): string {
  mkdirSync(at, { recursive: true });
  git(at, "init", "-q", "-b", "main");
  write(at, "src/app.ts", "export {};\n");
  write(at, "almanac/README.md", "# Home\n");
  git(at, "add", ".");
  git(at, "commit", "-q", "-m", "initial");
  return at;
}

async function around(root: string, agent: () => void, env: NodeJS.ProcessEnv = process.env) {
  const before = await takeSnapshot(root, runCommand, env);
  expect(before).not.toBeNull();
  agent();
  const after = await takeSnapshot(root, runCommand, env);
  return compareSnapshots(before!, after!, root, runCommand, env);
}

describe("git snapshots around a run", () => {
  test("edits inside almanac/ are not reported; edits outside are, by kind", async () => {
    const root = repo();
    write(root, "notes.txt", "dirty before the run\n");
    const changes = await around(root, () => {
      write(root, "almanac/new-page.md", "# New\n");
      write(root, "almanac/README.md", "# Home, edited\n");
      write(root, "src/app.ts", "export const changed = 1;\n");
      write(root, "src/added.ts", "export {};\n");
    });
    expect(changes.outside).toEqual([
      { path: "src/added.ts", change: "added" },
      { path: "src/app.ts", change: "modified" },
    ]);
    expect(changes.commits).toEqual([]);
    expect(describeOutside(changes)).toBe("the agent changed 2 files outside almanac/: src/added.ts (added), src/app.ts (modified)");
  });

  test("a file already dirty before the run is reported only if the run changed it again", async () => {
    const root = repo();
    write(root, "src/app.ts", "user's uncommitted work\n");
    const untouched = await around(root, () => write(root, "almanac/page.md", "# P\n"));
    expect(untouched.outside).toEqual([]);
    const touched = await around(root, () => write(root, "src/app.ts", "user's uncommitted work, then the agent's edit\n"));
    expect(touched.outside).toEqual([{ path: "src/app.ts", change: "modified" }]);
  });

  test("commits made during the run are recorded, and files they changed outside almanac/ are reported", async () => {
    const root = repo();
    const changes = await around(root, () => {
      write(root, "almanac/page.md", "# P\n");
      git(root, "add", "almanac/page.md");
      git(root, "commit", "-q", "-m", "almanac: add page");
      unlinkSync(join(root, "src/app.ts"));
      git(root, "commit", "-q", "-am", "remove app");
    });
    expect(changes.commits.map((c) => c.subject)).toEqual(["remove app", "almanac: add page"]);
    expect(changes.commits[0]!.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(changes.outside).toEqual([{ path: "src/app.ts", change: "deleted" }]);
  });

  test("a rewritten history is noted", async () => {
    const root = repo();
    write(root, "a.txt", "a\n");
    git(root, "add", "a.txt");
    git(root, "commit", "-q", "-m", "second");
    const changes = await around(root, () => {
      git(root, "reset", "-q", "--hard", "HEAD~1");
      write(root, "b.txt", "b\n");
      git(root, "add", "b.txt");
      git(root, "commit", "-q", "-m", "replacement");
    });
    expect(changes.notes.join("\n")).toMatch(/history was rewritten/);
    expect(changes.commits.map((c) => c.subject)).toEqual(["replacement"]);
  });

  test("a repository in a subfolder of a git work tree: its own almanac/ is the wiki, paths are relative to it", async () => {
    const top = repo();
    const root = join(top, "packages", "api");
    write(root, "almanac/README.md", "# API\n");
    write(root, "server.ts", "export {};\n");
    git(top, "add", ".");
    git(top, "commit", "-q", "-m", "api package");
    const changes = await around(root, () => {
      write(root, "almanac/page.md", "# P\n");
      write(root, "server.ts", "export const x = 1;\n");
      write(top, "almanac/README.md", "# edited the top-level wiki\n");
    });
    expect(changes.outside).toEqual([
      { path: "../../almanac/README.md", change: "modified" },
      { path: "server.ts", change: "modified" },
    ]);
  });

  test("a folder that is not a git work tree has no snapshot", async () => {
    const plain = join(dir, "plain");
    mkdirSync(plain);
    expect(await takeSnapshot(plain, runCommand, process.env)).toBeNull();
  });

  test("a GIT_DIR inherited from a git hook does not point the snapshot at another repository", async () => {
    const root = repo();
    const other = repo(join(dir, "other"));
    const changes = await around(root, () => write(root, "src/app.ts", "export const changed = 1;\n"), {
      ...process.env,
      GIT_DIR: join(other, ".git"),
      GIT_WORK_TREE: other,
    });
    expect(changes.outside).toEqual([{ path: "src/app.ts", change: "modified" }]);
  });
});

describe("headCommit, the commit an evidence stamp names", () => {
  test("the commit HEAD names, from the repository root or a folder below it", async () => {
    const root = repo(join(dir, "repo"));
    const sha = git(root, "rev-parse", "HEAD").trim();
    expect(await headCommit(root, runCommand, process.env)).toBe(sha);
    expect(await headCommit(join(root, "src"), runCommand, process.env)).toBe(sha);
  });

  test("none outside git, and none before the first commit", async () => {
    mkdirSync(join(dir, "plain"));
    expect(await headCommit(join(dir, "plain"), runCommand, process.env)).toBeNull();
    mkdirSync(join(dir, "unborn"));
    git(join(dir, "unborn"), "init", "-q", "-b", "main");
    expect(await headCommit(join(dir, "unborn"), runCommand, process.env)).toBeNull();
  });

  test("a GIT_DIR inherited from a hook does not point it at another repository", async () => {
    const root = repo(join(dir, "repo"));
    const other = repo(join(dir, "other"));
    git(other, "commit", "-q", "--allow-empty", "-m", "second");
    const env = { ...process.env, GIT_DIR: join(other, ".git") };
    expect(await headCommit(root, runCommand, env)).toBe(git(root, "rev-parse", "HEAD").trim());
  });
});
