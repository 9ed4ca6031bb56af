import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { BIN, sandbox, type Sandbox } from "../support/cli.js";
import { dirname, join } from "node:path";
import { newRunId } from "../../src/runs/ids.js";
import type { RunSpec } from "../../src/runs/spec.js";
import { RunStore } from "../../src/runs/store.js";
import {
  checkAndCleanUpAfterEach,
  emptyRepo,
  parkedRun,
  parkedRuns,
  readRun,
  releaseQueue,
  waitForExits,
  waitForIdle,
  waitForStatus,
  writeDb,
  garden as queueGarden,
} from "./support.js";

let box: Sandbox;
// After each test: no worker, executor or agent of the sandbox outlives the queue's work
// (checked before the sandbox cleanup, which kills every process carrying its state directory).
checkAndCleanUpAfterEach(() => box);

const RUN_FIELDS = [
  "cancellation_requested_at",
  "change_notes",
  "commits",
  "created_at",
  "error",
  "execution",
  "failure_category",
  "finished_at",
  "harness_transcript",
  "kind",
  "log_path",
  "outside_changes",
  "page_changes",
  "repository",
  "repository_id",
  "retry_of",
  "run_id",
  "secret_findings",
  "stale_pages",
  "started_at",
  "status",
  "summary",
  "title",
  "updated_at",
  "wiki_commit",
];

/**
 * Queues `count` more runs like `runId` (same repository and spec), written through the
 * product's RunStore into the sandbox's state database: far faster than a CLI call each.
 * Returns their ids, oldest first.
 */
function enqueueLikeRun(b: Sandbox, runId: string, count: number): string[] {
  const spec = JSON.parse(readRun(b, runId)!.spec_json) as RunSpec;
  const ids: string[] = [];
  writeDb(b, (db) => {
    const runs = new RunStore(db);
    const template = runs.requireRun(runId);
    for (let i = 0; i < count; i++) {
      const now = template.createdAt + i + 1;
      const id = newRunId("garden", now);
      runs.enqueueRun({
        runId: id,
        repositoryId: template.repositoryId,
        repositoryName: template.repositoryName,
        repositoryRoot: template.repositoryRoot,
        kind: "garden",
        title: template.title,
        spec,
        logPath: join(dirname(template.logPath), `${id}.log`),
        now,
      });
      ids.push(id);
    }
  });
  return ids;
}

function setup(b: Sandbox) {
  const root = emptyRepo(b);
  return { root, garden: (env: NodeJS.ProcessEnv = {}) => queueGarden(b, root, env) };
}

describe("jobs", () => {
  test("list, show and logs describe a finished run", async () => {
    box = sandbox();
    const { garden } = setup(box);
    const run = garden();
    await waitForStatus(box, run.run_id, ["done"]);
    await waitForIdle(box);

    const list = box.run(["jobs", "--json"]);
    expect(list.code).toBe(0);
    const records = list.json<Record<string, unknown>[]>();
    expect(records).toHaveLength(1);
    expect(Object.keys(records[0]!).sort()).toEqual(RUN_FIELDS);
    expect(records[0]).toMatchObject({ run_id: run.run_id, kind: "garden", status: "done", repository: "repo", title: "Garden wiki" });
    expect(records[0]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

    const human = box.run(["jobs"]);
    expect(human.stdout.split("\n")[0]).toMatch(/^ID\s+WIKI\s+KIND\s+STATUS\s+ELAPSED\s+TITLE$/);
    expect(human.stdout).toContain(run.run_id);
    expect(box.run(["jobs", "list", "--json"]).json()).toEqual(records);

    const show = box.run(["jobs", "show", run.run_id]);
    expect(show.stdout).toMatch(new RegExp(`^job:\\s+${run.run_id}$`, "m"));
    expect(show.stdout).toMatch(/^status:\s+done$/m);
    expect(show.stdout).toMatch(/^log file:\s+\S+\.log$/m);
    expect(show.stdout).toMatch(/^session:\s+claude [0-9a-f-]{36}$/m);

    const logs = box.run(["jobs", "logs", run.run_id, "--json"]).json<{ kind: string; title: string }[]>();
    expect(logs[0]).toMatchObject({ kind: "status", title: "Queued Garden" });
    expect(logs.at(-1)).toMatchObject({ kind: "status", title: "Done" });
    expect(JSON.stringify(logs)).not.toContain("harness_event");
    expect(box.run(["jobs", "logs", run.run_id]).stdout).toContain("· Queued Garden");
  });

  test("filters: --wiki, --status, --kind, --limit and --all", async () => {
    box = sandbox();
    const { root } = setup(box);
    const runs = await parkedRuns(box, root, 3);
    box.run(["jobs", "cancel", runs[0]!.run_id]);
    const ids = (args: string[]) => box.run(["jobs", ...args, "--json"]).json<{ run_id: string }[]>().map((r) => r.run_id);
    expect(ids([])).toEqual(runs.map((r) => r.run_id).reverse());
    expect(ids(["--limit", "1"])).toEqual([runs[2]!.run_id]);
    expect(ids(["--all"])).toHaveLength(3);
    expect(ids(["--status", "cancelled"])).toEqual([runs[0]!.run_id]);
    expect(ids(["--status", "queued,cancelled", "--kind", "garden"])).toHaveLength(3);
    expect(ids(["--kind", "build"])).toEqual([]);
    expect(ids(["--wiki", "repo"])).toHaveLength(3);
    expect(box.run(["jobs", "--wiki", "nope"]).stderr).toBe("codealmanac: repository not found: nope\n");
    expect(box.run(["jobs", "--status", "weird"]).code).toBe(1);
    expect(box.run(["jobs", "--limit", "-1"]).code).toBe(1);
    expect(box.run(["jobs", "--status", "queued", "--wiki", "repo"]).code).toBe(0);
  });

  test("shows the newest 100 by default; --limit and --all reach the rest", async () => {
    box = sandbox();
    const { root } = setup(box);
    const first = await parkedRun(box, root);
    const more = enqueueLikeRun(box, first.run_id, 104);
    const newestFirst = [first.run_id, ...more].reverse();
    const ids = (args: string[]) => box.run(["jobs", ...args, "--json"]).json<{ run_id: string }[]>().map((r) => r.run_id);
    expect(ids([])).toEqual(newestFirst.slice(0, 100));
    expect(ids(["--limit", "103"])).toEqual(newestFirst.slice(0, 103));
    expect(ids(["--all"])).toEqual(newestFirst);
    const rows = box.run(["jobs"]).stdout.trimEnd().split("\n");
    expect(rows).toHaveLength(101); // the header and 100 jobs
    expect(rows.slice(1).map((row) => row.split(/\s+/)[0])).toEqual(newestFirst.slice(0, 100));
  });

  test("an empty ledger prints `# 0 jobs` on stderr", () => {
    box = sandbox();
    const result = box.run(["jobs"]);
    expect(result).toMatchObject({ code: 0, stdout: "", stderr: "# 0 jobs\n" });
    expect(box.run(["jobs", "--json"]).stdout).toBe("[]\n");
  });

  test("path-shaped run ids are rejected with exit 1 and nothing on stdout", () => {
    box = sandbox();
    for (const sub of ["show", "logs", "attach", "cancel", "retry"]) {
      const result = box.run(["jobs", sub, "../secret"]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^codealmanac: invalid run id "\.\.\/secret"/);
    }
    expect(box.run(["jobs", "show", "garden-1-deadbeef"]).stderr).toBe("codealmanac: run not found: garden-1-deadbeef\n");
  });

  test("attach follows a run to its end; --json streams one compact object per update", async () => {
    box = sandbox();
    const { garden } = setup(box);
    const note = "---\ntitle: Note\ntopics: [concepts]\nsources: []\n---\n# Note\n\nA note.\n";
    const run = garden({ FAKE_CLAUDE_DELAY_MS: "300", FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/note.md": note }) });
    const human = await box.runAsync(["jobs", "attach", run.run_id]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("· Queued Garden");
    expect(human.stdout).toContain("● Wrote");
    expect(human.stdout.trimEnd().split("\n").slice(-2)).toEqual(["status: done", "summary: Updated the wiki."]);

    const json = await box.runAsync(["jobs", "attach", run.run_id, "--json"]);
    const lines = json.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { terminal: boolean; events: { sequence: number }[] });
    expect(lines.at(-1)!.terminal).toBe(true);
    const sequences = lines.flatMap((l) => l.events.map((e) => e.sequence));
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(json.stdout).not.toContain(":null");
  });

  test("attach exits as --wait does: 1 when the run failed", async () => {
    box = sandbox();
    const { garden } = setup(box);
    const failed = garden({ FAKE_CLAUDE_SCENARIO: "crash" });
    const followed = await box.runAsync(["jobs", "attach", failed.run_id]);
    expect(followed.stdout).toMatch(/^status: failed$/m);
    expect(followed.code).toBe(1);
    expect((await box.runAsync(["jobs", "attach", failed.run_id, "--json"])).code).toBe(1);
  });

  test("a run is named by its id, a unique start of it or of its hex part, or `latest`; `jobs show` alone shows the newest", async () => {
    box = sandbox();
    const { root } = setup(box);
    const [older, newer] = (await parkedRuns(box, root, 2)).map((r) => r.run_id);
    const shown = (args: string[]) => box.run(["jobs", "show", ...args, "--json"]).json<{ run_id: string }>().run_id;
    expect(shown([])).toBe(newer);
    expect(shown(["latest"])).toBe(newer);
    const hex = older!.slice(-8);
    expect(shown([hex])).toBe(older);
    expect(shown([hex.slice(0, 5)])).toBe(older);
    expect(shown([older!.slice(0, -1)])).toBe(older);
    const ambiguous = box.run(["jobs", "show", "garden-"]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toBe(`codealmanac: run id "garden-" is ambiguous: it matches ${newer}, ${older}; give more of it\n`);
    expect(box.run(["jobs", "show", hex.slice(0, 3)]).stderr).toBe(`codealmanac: run not found: ${hex.slice(0, 3)}\n`);
    const cancelled = box.run(["jobs", "cancel", hex, "--json"]).json<{ record: { run_id: string; status: string } }>();
    expect(cancelled.record).toMatchObject({ run_id: older, status: "cancelled" });
    // It never ran: no elapsed time, however long it waited in the queue.
    writeDb(box, (db) => db.prepare("UPDATE runs SET created_at = created_at - 4000 WHERE run_id = ?").run(older));
    const row = box.run(["jobs"]).stdout.split("\n").find((line) => line.startsWith(older!));
    expect(row).toMatch(/\scancelled\s+—\s/);
    // A cancelled run ends attach as it ends --wait: exit 1.
    const attached = await box.runAsync(["jobs", "attach", hex]);
    expect(attached.stdout).toMatch(/^status: cancelled$/m);
    expect(attached.code).toBe(1);
    expect(box.run(["jobs", "logs", "latest", "--json"]).code).toBe(0);
    releaseQueue(box);
    box.run(["jobs", "cancel", "latest"]);
    await waitForIdle(box);
  });

  for (const mode of ["human", "json"] as const) {
    test(`Ctrl-C detaches from attach without touching the run (${mode})`, async () => {
      box = sandbox();
      const { root } = setup(box);
      const run = await parkedRun(box, root);
      const args = [BIN, "jobs", "attach", run.run_id, ...(mode === "json" ? ["--json"] : [])];
      const child = spawn(process.execPath, args, { cwd: box.dir, env: box.env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stderr.on("data", (d) => (stderr += d));
      const firstOutput = new Promise<void>((resolve) => child.stdout.on("data", (d) => ((stdout += d), resolve())));
      const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      await firstOutput;
      child.kill("SIGINT");
      expect(await closed).toBe(130);
      expect(stderr).toBe("");
      if (mode === "human") {
        expect(stdout.endsWith(`detached — job continues in background\ncancel: codealmanac jobs cancel ${run.run_id}\n`)).toBe(true);
      } else {
        const lines = stdout.trimEnd().split("\n");
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0]!)).toMatchObject({ terminal: false });
      }
      expect(readRun(box, run.run_id)?.status).toBe("queued");
    });
  }

  test("retry queues a failed run's spec again as a new run; prune removes old finished runs", async () => {
    box = sandbox();
    const { garden } = setup(box);
    const failed = garden({ FAKE_CLAUDE_SCENARIO: "crash" });
    await waitForStatus(box, failed.run_id, ["failed"]);
    await waitForIdle(box);
    const retried = box.run(["jobs", "retry", failed.run_id, "--json"]);
    expect(retried.code).toBe(0);
    const receipt = retried.json<{ run_id: string; retry_of: string; status: string }>();
    expect(receipt).toMatchObject({ retry_of: failed.run_id, status: "queued" });
    await waitForStatus(box, receipt.run_id, ["done"]);
    expect(box.run(["jobs", "show", receipt.run_id, "--json"]).json()).toMatchObject({ retry_of: failed.run_id });
    expect(box.run(["jobs", "retry", receipt.run_id]).stderr).toMatch(/only a failed or cancelled job can be retried/);

    await waitForIdle(box);
    writeDb(box, (db) => db.prepare("UPDATE runs SET created_at = 1000 WHERE run_id = ?").run(failed.run_id));
    expect(box.run(["jobs", "prune", "--older-than", "30d", "--json"]).json()).toEqual({ pruned: 1, older_than: "30d" });
    expect(readRun(box, failed.run_id)).toBeUndefined();
    expect(box.run(["jobs", "prune"]).code).toBe(2);
    expect(box.run(["jobs", "prune", "--older-than", "soon"]).code).toBe(1);
  });

  test("retry queues a cancelled run's spec again, and the new run is the one that executes", async () => {
    box = sandbox();
    const { root } = setup(box);
    const cancelled = await parkedRun(box, root);
    expect(box.run(["jobs", "cancel", cancelled.run_id]).stdout).toBe(`cancelled ${cancelled.run_id}\n`);
    const retried = box.run(["jobs", "retry", cancelled.run_id, "--json"]);
    expect(retried.code).toBe(0);
    const receipt = retried.json<{ run_id: string; retry_of: string; status: string; child_pid: number }>();
    expect(receipt).toMatchObject({ retry_of: cancelled.run_id, status: "queued" });
    expect(receipt.run_id).not.toBe(cancelled.run_id);
    expect(readRun(box, receipt.run_id)?.spec_json).toBe(readRun(box, cancelled.run_id)?.spec_json);
    await waitForExits([receipt.child_pid]); // the parked queue turned that worker away

    releaseQueue(box);
    box.run(["jobs"]); // wakes a worker for the stranded retry
    await waitForStatus(box, receipt.run_id, ["done"]);
    await waitForIdle(box);
    expect(readRun(box, cancelled.run_id)).toMatchObject({ status: "cancelled", claim_seq: null });
    expect(box.run(["jobs", "show", receipt.run_id, "--json"]).json()).toMatchObject({ status: "done", retry_of: cancelled.run_id });
  });

  test("forget refuses while a repository has active jobs", async () => {
    box = sandbox();
    const { root } = setup(box);
    const run = await parkedRun(box, root);
    const refused = box.run(["forget", "repo"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/repo has 1 queued or running job/);
    box.run(["jobs", "cancel", run.run_id]);
    expect(box.run(["forget", "repo"]).code).toBe(0);
    expect(box.run(["jobs", "--json"]).json<{ repository: string }[]>()[0]!.repository).toBe("repo");
  });
});
