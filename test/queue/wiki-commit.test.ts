/**
 * After a run, through the whole queue with the fake claude: the product commits the wiki
 * changes (and nothing else), git's refusals are warnings on a run that is still done, and the
 * agent's `codealmanac` commands are this installation's, permitted exactly as the prompt says.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { commitAll, page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { allRuns, checkAndCleanUpAfterEach, type JobRecord } from "./support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

const newPage = page({ title: "Ingested", summary: "From notes", topics: ["concepts"], sources: [], body: "# Ingested\n\nLearned from the notes." });

function gitRepo(b: Sandbox): string {
  const root = writeWiki(join(b.dir, "repo"), {});
  writeFileSync(join(root, "notes.md"), "# Notes\n\nThe queue is first in, first out.\n");
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "app.ts"), "export {};\n");
  return commitAll(root);
}

function git(root: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8", env: box.env });
}

interface Step {
  kind: string;
  tool?: string;
  target?: string;
  status?: string;
  error: boolean;
  body?: string;
  output?: unknown;
}

const steps = (runId: string) => box.run(["jobs", "logs", runId, "--json"]).json<Step[]>();

describe("the product commits a successful run's wiki changes", () => {
  test("the page is committed as `almanac: <summary>` with nothing else; a file the user staged stays staged", () => {
    box = sandbox();
    const root = gitRepo(box);
    writeFileSync(join(root, "src", "staged.ts"), "the user's staged work\n");
    git(root, "add", "src/staged.ts");
    const start = git(root, "rev-parse", "HEAD").trim();
    const files = { "almanac/concepts/ingested.md": newPage, "src/app.ts": "export const tampered = true;\n" };
    const record = box
      .run(["ingest", "notes.md", "--using", "claude", "--wait", "--json"], {
        cwd: root,
        env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify(files), FAKE_CLAUDE_RESULT_TEXT: "Added the ingested page\n\nDetails follow." },
      })
      .json<JobRecord>();

    expect(record).toMatchObject({ status: "done", commits: [], outside_changes: [{ path: "src/app.ts", change: "modified" }] });
    const sha = git(root, "rev-parse", "HEAD").trim();
    expect(record.wiki_commit).toEqual({ sha, subject: "almanac: Added the ingested page", files: 1 });
    expect(git(root, "rev-parse", "HEAD~1").trim()).toBe(start);
    expect(git(root, "log", "-1", "--format=%B").trim()).toBe("almanac: Added the ingested page");
    expect(git(root, "show", "--name-only", "--format=", "HEAD").trim()).toBe("almanac/concepts/ingested.md");
    expect(git(root, "diff", "--cached", "--name-only").trim()).toBe("src/staged.ts");
    expect(git(root, "status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual(["A  src/staged.ts", " M src/app.ts"].sort());

    expect(box.run(["jobs", "show", record.run_id]).stdout).toContain(`committed:  ${sha.slice(0, 12)} almanac: Added the ingested page (1 file)\n`);
    expect(box.run(["jobs", "logs", record.run_id]).stdout).toContain(`· Committed ${sha.slice(0, 12)} almanac: Added the ingested page\n`);
  });

  test("auto_commit = false: nothing is committed and the page stays in the working tree", () => {
    box = sandbox();
    const root = gitRepo(box);
    mkdirSync(box.state, { recursive: true });
    writeFileSync(join(box.state, "config.toml"), "auto_commit = false\n");
    const start = git(root, "rev-parse", "HEAD").trim();
    const record = box
      .run(["garden", "--using", "claude", "--wait", "--json"], { cwd: root, env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/ingested.md": newPage }) } })
      .json<JobRecord>();
    expect(record).toMatchObject({ status: "done", wiki_commit: null });
    expect(git(root, "rev-parse", "HEAD").trim()).toBe(start);
    expect(git(root, "status", "--porcelain").trim()).toBe("?? almanac/concepts/");
    expect(box.run(["jobs", "logs", record.run_id]).stdout).toContain("· Nothing committed: with auto_commit off, the wiki changes stay in the working tree\n");
  });

  test("git without a user identity: the run is still done, with a warning saying why nothing was committed", () => {
    box = sandbox();
    rmSync(join(box.home, ".gitconfig"));
    const root = gitRepo(box);
    // Without this, git may make up an identity from the host name on some machines.
    git(root, "config", "user.useConfigOnly", "true");
    const start = git(root, "rev-parse", "HEAD").trim();
    const record = box
      .run(["garden", "--using", "claude", "--wait", "--json"], { cwd: root, env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/ingested.md": newPage }) } })
      .json<JobRecord>();
    expect(record).toMatchObject({ status: "done", wiki_commit: null, page_changes: { created: ["concepts/ingested"] } });
    expect(git(root, "rev-parse", "HEAD").trim()).toBe(start);
    expect(steps(record.run_id).filter((s) => s.kind === "warning").map((s) => s.body)).toEqual([
      "nothing committed (1 changed file under almanac/ left in the working tree): git has no user identity here (set user.name and user.email)",
    ]);
    expect(existsSync(join(root, "almanac", "concepts", "ingested.md"))).toBe(true);
  });

  test("a run that fails its validation gate commits nothing", () => {
    box = sandbox();
    const root = gitRepo(box);
    const start = git(root, "rev-parse", "HEAD").trim();
    const broken = page({ title: "Broken", summary: "Links nowhere", topics: ["concepts"], sources: [], body: "# Broken\n\nSee [the void](void.md)." });
    const record = box
      .run(["garden", "--using", "claude", "--wait", "--json"], { cwd: root, env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/broken.md": broken }) } })
      .json<JobRecord>();
    expect(record).toMatchObject({ status: "failed", failure_category: "wiki_validation", wiki_commit: null });
    expect(git(root, "rev-parse", "HEAD").trim()).toBe(start);
  });

  test("a repository outside git: done, with a warning that nothing could be committed", () => {
    box = sandbox();
    const root = writeWiki(join(box.dir, "plain"), {});
    const record = box.run(["garden", "--using", "claude", "--wait", "--json"], { cwd: root }).json<JobRecord>();
    expect(record).toMatchObject({ status: "done", wiki_commit: null });
    expect(steps(record.run_id).filter((s) => s.kind === "warning").map((s) => s.body)).toContain(`nothing committed: ${root} is not in a git work tree`);
  });
});

describe("the agent's codealmanac commands", () => {
  test("validate, search and show run this installation's CLI; anything else the prompt does not name is refused", () => {
    box = sandbox();
    const root = gitRepo(box);
    // No codealmanac on the sandbox's PATH but the run's own.
    expect(spawnSync("sh", ["-c", "command -v codealmanac"], { env: box.env }).status).not.toBe(0);
    const commands = [
      "codealmanac validate --json",
      "codealmanac validate",
      "codealmanac search learned --slugs",
      "codealmanac show concepts/ingested --lead",
      "codealmanac ingest notes.md",
      "git commit --allow-empty -m sneaky",
      "git status --short",
    ];
    const record = box
      .run(["garden", "--using", "claude", "--wait", "--json"], {
        cwd: root,
        env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/ingested.md": newPage }), FAKE_CLAUDE_BASH: JSON.stringify(commands) },
      })
      .json<JobRecord>();
    expect(record.status).toBe("done");
    const shell = steps(record.run_id).filter((s) => s.kind === "tool" && s.tool === "shell");
    expect(shell.map((s) => [s.target, s.status])).toEqual([
      ["codealmanac validate --json", "completed"],
      ["codealmanac validate", "completed"],
      ["codealmanac search learned --slugs", "completed"],
      ["codealmanac show concepts/ingested --lead", "completed"],
      ["codealmanac ingest notes.md", "failed"],
      ["git commit --allow-empty -m sneaky", "failed"],
      ["git status --short", "completed"],
    ]);
    // The agent's index started from a copy of the run's: its first command parsed only the page the agent wrote.
    const index = (JSON.parse(String(shell[0]!.output ?? "{}")) as { index: { changed: number; pages_indexed: number } }).index;
    expect(index).toMatchObject({ changed: 1, pages_indexed: 2 });
    const outputs = shell.map((s) => JSON.stringify(s.output ?? s.body ?? ""));
    expect(outputs[1]).toContain("validate: ok");
    expect(outputs[2]).toContain("concepts/ingested");
    expect(outputs[3]).toContain("Learned from the notes.");
    // The agent's commands had a state root of their own, gone with the run; the user's ledger holds only the run.
    expect(readdirSync(join(box.state, "runs", record.run_id))).not.toContain("agent");
    expect(allRuns(box).map((run) => run.run_id)).toEqual([record.run_id]);
    // Only the product committed.
    expect(git(root, "log", "--format=%s").trim().split("\n")).toEqual(["almanac: Updated the wiki.", "initial"]);
  });
});
