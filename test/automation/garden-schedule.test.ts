import { spawnSync } from "node:child_process";
import { rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { allRuns, holdQueue, writeDb } from "../queue/support.js";

let box: Sandbox;
const HOUR = 3_600_000;

/** Commits everything with a committer date `hoursAgo` in the past. */
function commitAt(root: string, hoursAgo: number, message: string): void {
  const date = new Date(Date.now() - hoursAgo * HOUR).toISOString();
  const env = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x", GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  const git = (...args: string[]) => spawnSync("git", args, { cwd: root, env, stdio: "ignore" });
  if (git("rev-parse", "--git-dir").status !== 0) git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", message);
}

function wiki(name: string): string {
  const root = writeWiki(join(box.dir, name), {});
  commitAt(root, 10, "initial");
  // Everything in the repository predates the garden runs the tests record below.
  const past = new Date(Date.now() - 10 * HOUR);
  for (const file of ["almanac/README.md", "almanac/topics.yaml"]) utimesSync(join(root, file), past, past);
  box.run(["reindex"], { cwd: root });
  return root;
}

/** A garden run of `root` that ended `done` at `finishedAt`. */
function gardenDone(root: string, finishedAt: number): void {
  const receipt = box.run(["garden", "--using", "claude", "--json"], { cwd: root }).json<{ run_id: string }>();
  writeDb(box, (db) => db.prepare("UPDATE runs SET status = 'done', finished_at = ? WHERE run_id = ?").run(finishedAt, receipt.run_id));
}

const gardens = (root: string) => allRuns(box).filter((r) => r.kind === "garden" && r.repository_root === root);
const scheduled = () => box.run(["__scheduled", "garden"]);

beforeEach(() => {
  box = sandbox();
  box.run(["jobs"]);
  holdQueue(box);
});
afterEach(() => box.cleanup());

describe("the scheduled garden", () => {
  it("queues a garden for a wiki never gardened, and for one changed since its last garden, and for nothing else", () => {
    const fresh = wiki("fresh");
    const quiet = wiki("quiet");
    const edited = wiki("edited");
    const committed = wiki("committed");
    const busy = wiki("busy");
    const gone = wiki("gone");
    const now = Date.now();
    for (const root of [quiet, edited, committed]) gardenDone(root, now - HOUR);
    box.run(["garden", "--using", "claude", "--json"], { cwd: busy });
    rmSync(gone, { recursive: true, force: true });
    writeFileSync(join(edited, "almanac", "notes.md"), "# Notes\n");
    writeFileSync(join(committed, "code.ts"), "export {};\n");
    utimesSync(join(committed, "code.ts"), new Date(now - 3 * HOUR), new Date(now - 3 * HOUR));
    commitAt(committed, 0.5, "code");

    const before = new Set(allRuns(box).map((r) => r.run_id));
    const result = scheduled();
    expect(result.code).toBe(0);
    const queued = allRuns(box).filter((r) => !before.has(r.run_id));
    expect(new Set(queued.map((r) => r.repository_root))).toEqual(new Set([fresh, edited, committed]));
    expect(gardens(quiet)).toHaveLength(1);
    expect(gardens(busy)).toHaveLength(1);
    expect(result.stderr).toContain("skipped quiet: no change since the last garden");
    expect(result.stderr).toContain("skipped busy: a garden run is already queued or running");
    expect(result.stderr).toMatch(/skipped gone: root is missing/);
  });

  it("an uncommitted edit to the code counts as a change; an older one does not", () => {
    const root = wiki("repo");
    writeFileSync(join(root, "draft.ts"), "export {};\n");
    const old = new Date(Date.now() - 5 * HOUR);
    utimesSync(join(root, "draft.ts"), old, old);
    gardenDone(root, Date.now() - 2 * HOUR);
    scheduled();
    expect(gardens(root)).toHaveLength(1);
    writeFileSync(join(root, "draft.ts"), "export const changed = 1;\n");
    scheduled();
    expect(gardens(root)).toHaveLength(2);
  });

  it("records its run, so automation status can say how it last went", () => {
    wiki("repo");
    scheduled();
    const status = box.run(["automation", "status", "garden", "--json"]).json<{ statuses: { task: string; last_run: { exit_code: number } | null }[] }>();
    expect(status.statuses[0]!.last_run?.exit_code).toBe(0);
  });
});
