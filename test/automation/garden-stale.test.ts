import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { allRuns, holdQueue, writeDb } from "../queue/support.js";

/**
 * The scheduled garden's choice between the stale-targeted garden and the general one, in
 * real git repositories: the stale one when the default branch moved since the last
 * scheduled garden and drift finds stale pages, the general one (under the old rules)
 * otherwise.
 */
let box: Sandbox;
const HOUR = 3_600_000;

interface JobJson {
  run_id: string;
  kind: string;
  title: string;
  repository: string;
}
type GardenJson = { repository: string; mode: string; run_id?: string; stale_pages?: string[]; reason?: string };

/**
 * A git repository whose wiki page `arch/queue` cites src/queue.ts, committed ten hours ago;
 * with `clone`, a clone of a bare repository that commit was pushed to, so it knows its
 * remote's default branch (origin/HEAD), which is then the branch watched.
 */
function repository(name: string, options: { clone?: boolean } = {}) {
  const root = join(box.dir, name);
  const origin = join(box.dir, `${name}-origin.git`);
  let cwd = options.clone ? join(box.dir, `${name}-seed`) : root;
  const git = (args: string[], hoursAgo = 0) => {
    const date = new Date(Date.now() - hoursAgo * HOUR).toISOString();
    const result = spawnSync("git", args, { cwd, env: { ...box.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), text);
  };
  const commit = (message: string, hoursAgo: number) => {
    git(["add", "-A"], hoursAgo);
    git(["commit", "-q", "-m", message], hoursAgo);
    // Files written now would count as changed after any garden the tests record in the past.
    pastMtimes(cwd, hoursAgo);
    return git(["rev-parse", "HEAD"]);
  };
  mkdirSync(cwd, { recursive: true });
  git(["init", "-q", "-b", "main"]);
  write("src/queue.ts", "export const queue = 1;\n");
  write("src/other.ts", "export const other = 1;\n");
  writeWiki(cwd, {
    "arch/queue.md": page({ title: "Queue", topics: ["concepts"], sources: [{ id: "q", type: "file", path: "src/queue.ts" }], body: "# Queue\n\nThe queue [@q]." }),
  });
  commit("initial", 10);
  if (options.clone) {
    git(["init", "-q", "--bare", "-b", "main", origin]);
    git(["push", "-q", origin, "main"]);
    git(["clone", "-q", origin, root]);
    cwd = root;
    expect(git(["symbolic-ref", "refs/remotes/origin/HEAD"])).toBe("refs/remotes/origin/main");
    pastMtimes(root, 10);
  }
  box.run(["reindex"], { cwd: root });
  return { root, git, write, commit };
}

function pastMtimes(dir: string, hoursAgo: number): void {
  const past = new Date(Date.now() - hoursAgo * HOUR);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === ".git") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) pastMtimes(path, hoursAgo);
    else if (statSync(path).mtimeMs > past.getTime()) utimesSync(path, past, past);
  }
}

const scheduled = () => {
  const result = box.run(["__scheduled", "garden"]);
  expect(result.code, result.stderr).toBe(0);
  return result;
};
const jobs = () => box.run(["jobs", "--json", "--kind", "garden"]).json<JobJson[]>();
const lastGardens = () =>
  box.run(["automation", "status", "garden", "--json"]).json<{ statuses: { last_run: { gardens?: GardenJson[] } | null }[] }>().statuses[0]!.last_run!.gardens!;

/** Ends a run as the worker would have, `hoursAgo` in the past. */
function finish(runId: string, status: "done" | "failed", hoursAgo: number): void {
  writeDb(box, (db) => db.prepare("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?").run(status, Date.now() - hoursAgo * HOUR, runId));
}

/** The one garden the last scheduled run queued. */
function queuedByLastRun(): { job: JobJson; spec: { kind: string; title: string | null; guidance: string | null; stale_pages?: string[] }; note: GardenJson } {
  const [note] = lastGardens();
  expect(note!.run_id, JSON.stringify(note)).toBeDefined();
  const job = jobs().find((j) => j.run_id === note!.run_id)!;
  const row = allRuns(box).find((r) => r.run_id === note!.run_id)!;
  return { job, spec: JSON.parse(row.spec_json), note: note! };
}

beforeEach(() => {
  box = sandbox();
  box.run(["jobs"]);
  holdQueue(box);
});
afterEach(() => box.cleanup());

describe("the scheduled garden after the default branch moved", () => {
  it("queues the stale-targeted garden when drift finds stale pages, and records that it did", () => {
    const repo = repository("repo");
    scheduled();
    const first = queuedByLastRun();
    expect(first.note.mode).toBe("general");
    finish(first.job.run_id, "done", 2);

    repo.write("src/queue.ts", "export const queue = 2;\n");
    repo.commit("queue: change what the page cites", 1);
    const result = scheduled();
    const { job, spec, note } = queuedByLastRun();
    expect(note).toEqual({ repository: "repo", mode: "stale", run_id: job.run_id, stale_pages: ["arch/queue"] });
    expect(job).toMatchObject({ kind: "garden", title: "Garden stale page arch/queue", repository: "repo" });
    expect(spec.kind).toBe("garden");
    expect(spec.stale_pages).toEqual(["arch/queue"]);
    expect(result.stderr).toContain(`queued ${job.run_id} for repo: stale garden of 1 page (arch/queue)`);
    const status = box.run(["automation", "status", "garden"]).stdout;
    expect(status).toContain(`garden     repo: stale garden ${job.run_id} (1 stale page: arch/queue)`);
  });

  it("queues the general garden when the branch moved but no page is stale", () => {
    const repo = repository("repo");
    scheduled();
    finish(queuedByLastRun().job.run_id, "done", 2);

    repo.write("src/other.ts", "export const other = 2;\n");
    repo.commit("other: a file no page cites", 1);
    scheduled();
    const { job, spec, note } = queuedByLastRun();
    expect(note).toEqual({ repository: "repo", mode: "general", run_id: job.run_id });
    expect(job.title).toBe("Garden wiki");
    expect(spec.guidance).toBeNull();
    expect(spec.stale_pages).toBeUndefined();
  });

  it("a stale garden that failed does not count: the next run at the same tip targets the stale pages again", () => {
    const repo = repository("repo");
    scheduled();
    finish(queuedByLastRun().job.run_id, "done", 3);
    repo.write("src/queue.ts", "export const queue = 2;\n");
    repo.commit("queue: change what the page cites", 2);
    scheduled();
    const stale = queuedByLastRun();
    expect(stale.note.mode).toBe("stale");
    finish(stale.job.run_id, "failed", 1);
    scheduled();
    const again = queuedByLastRun();
    expect(again.note.mode).toBe("stale");
    expect(again.job.run_id).not.toBe(stale.job.run_id);
  });
});

describe("the scheduled garden when the default branch did not move", () => {
  it("follows the old rules even with a stale page: a change since the last garden queues the general garden, no change queues none", () => {
    const repo = repository("repo");
    scheduled();
    finish(queuedByLastRun().job.run_id, "done", 2);
    scheduled();
    expect(lastGardens()).toEqual([{ repository: "repo", mode: "skipped", reason: "no change since the last garden" }]);

    // Uncommitted: HEAD's branch is where it was, yet drift calls the page stale.
    repo.write("src/queue.ts", "export const queue = 3;\n");
    const drift = box.run(["drift", "--json"], { cwd: repo.root }).json<{ pages: { slug: string; status: string }[] }>();
    expect(drift.pages.map((p) => [p.slug, p.status])).toEqual([["arch/queue", "stale"]]);
    scheduled();
    const { job, note } = queuedByLastRun();
    expect(note).toEqual({ repository: "repo", mode: "general", run_id: job.run_id });
  });

  it("in a clone, the remote's default branch is the one watched: a local commit is not a move, a push is", () => {
    const repo = repository("repo", { clone: true });
    scheduled();
    finish(queuedByLastRun().job.run_id, "done", 3);

    repo.write("src/queue.ts", "export const queue = 2;\n");
    repo.commit("queue: change what the page cites", 2);
    scheduled();
    const local = queuedByLastRun();
    expect(local.note.mode).toBe("general");
    finish(local.job.run_id, "done", 1);

    repo.git(["push", "-q", "origin", "main"]);
    scheduled();
    const pushed = queuedByLastRun();
    expect(pushed.note).toEqual({ repository: "repo", mode: "stale", run_id: pushed.job.run_id, stale_pages: ["arch/queue"] });
  });
});
