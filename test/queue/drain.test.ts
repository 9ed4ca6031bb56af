import { describe, expect, test } from "vitest";
import { join } from "node:path";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { BIN, ROOT, page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { allRuns, checkAndCleanUpAfterEach, events, holdQueue, parkedRuns, waitForExits, readRun, releaseQueue, waitForFile, waitForIdle, waitForStatus, workerLog, type Receipt } from "./support.js";

let box: Sandbox;
// After each test: no worker, executor or agent of the sandbox outlives the queue's work
// (checked before the sandbox cleanup, which kills every process carrying its state directory).
checkAndCleanUpAfterEach(() => box);

function repo(b: Sandbox): string {
  return writeWiki(join(b.dir, "repo"), {
    "notes.md": page({ title: "Notes", summary: "Raw notes", topics: ["concepts"], sources: [], body: "# Notes\n\nSome notes." }),
  });
}

describe("queue drain", () => {
  test("ingest queues a durable run, returns at once, and a detached worker runs the agent", async () => {
    box = sandbox();
    const root = repo(box);
    const newPage = "---\ntitle: Ingested\nsummary: From notes\ntopics: [concepts]\nsources: []\n---\n# Ingested\n\nLearned from the notes.\n";
    writeFileSync(join(root, "meeting.md"), "# Meeting\n\nWe decided to batch writes.\n");
    const result = box.run(["ingest", "meeting.md", "--using", "claude", "--guidance", "be brief", "--json"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/ingested.md": newPage }) },
    });
    expect(result.code).toBe(0);
    const receipt = result.json<Receipt>();
    expect(Object.keys(receipt).sort()).toEqual(["child_pid", "repository", "run_id", "runs_ahead", "status"]);
    expect(receipt).toMatchObject({ repository: "repo", runs_ahead: 0, status: "queued" });
    expect(receipt.run_id).toMatch(/^ingest-\d{14}-[0-9a-f]{8}$/);

    const done = await waitForStatus(box, receipt.run_id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", failure_category: null });
    expect(events(box, receipt.run_id).map((e) => e.message).slice(0, 4)).toEqual([
      "queued ingest",
      "running",
      "prepared 1 source",
      "starting claude 2.1.332 with model claude-sonnet-5",
    ]);
    expect(events(box, receipt.run_id).at(-1)).toMatchObject({ kind: "status", message: "done" });

    const show = box.run(["jobs", "show", receipt.run_id, "--json"]).json<{ page_changes: unknown; log_path: string }>();
    expect(show.page_changes).toEqual({ created: ["concepts/ingested"], updated: [], deleted: [] });
    expect(readFileSync(show.log_path, "utf8")).toContain("claimed run");
    const search = box.run(["search", "learned", "--json"], { cwd: root }).json<{ slug: string }[]>();
    expect(search.map((h) => h.slug)).toEqual(["concepts/ingested"]);
  });

  test("a run queued at the idle-handoff seam is drained by the current worker", async () => {
    box = sandbox();
    const root = repo(box);
    const out = join(box.dir, "seam.json");
    const hook = `${process.execPath} ${join(ROOT, "test/fixtures/hooks/seam-producer.mjs")} ${BIN} ${root} ${out}`;
    const first = box.run(["garden", "--using", "claude", "--json"], {
      cwd: root,
      env: { CODEALMANAC_TEST_HOOKS: JSON.stringify({ beforeIdleRelease: hook }) },
    });
    const firstReceipt = first.json<Receipt>();
    const seam = JSON.parse(await waitForFile(out)) as { receipt: Receipt; secondWorkerExited: boolean };
    expect(seam.secondWorkerExited).toBe(true);
    await waitForIdle(box);
    const runs = allRuns(box);
    expect(runs.map((r) => [r.run_id, r.status])).toEqual([
      [firstReceipt.run_id, "done"],
      [seam.receipt.run_id, "done"],
    ]);
    // Both runs were executed under the first worker's lock: the second worker lost it and left.
    expect(runs[0]!.worker_token).toBe(runs[1]!.worker_token);
    const log = workerLog(box);
    expect(log).toContain(`worker ${seam.receipt.child_pid}: the queue is drained by worker ${firstReceipt.child_pid}; exiting`);
    expect(log).toContain(`worker ${firstReceipt.child_pid}: run ${seam.receipt.run_id} → executor`);
  });

  test("a bounded drain stops after its count and a later wake-up drains the rest", async () => {
    box = sandbox();
    const root = repo(box);
    box.run(["jobs"]); // creates the state database
    holdQueue(box);
    const a = box.run(["garden", "--using", "claude", "--json"], { cwd: root }).json<Receipt>();
    const b = box.run(["garden", "--using", "claude", "--json"], { cwd: root }).json<Receipt>();
    expect(b.runs_ahead).toBe(1);
    await waitForExits([a.child_pid, b.child_pid]);
    releaseQueue(box);
    const drained = box.run(["__run-worker", "--max-runs", "1"]);
    expect(drained.code).toBe(0);
    expect(JSON.parse(drained.stdout.trim())).toEqual({ lock_acquired: true, ending: "max_runs", processed: [a.run_id] });
    expect(readRun(box, a.run_id)?.status).toBe("done");
    expect(readRun(box, b.run_id)?.status).toBe("queued");
    // Any `jobs` read that sees queued work and no live worker starts one.
    box.run(["jobs"]);
    await waitForStatus(box, b.run_id, ["done"]);
  });

  test("runs are claimed first in, first out", async () => {
    box = sandbox();
    const root = repo(box);
    const receipts = await parkedRuns(box, root, 4);
    const ids = receipts.map((r) => r.run_id);
    releaseQueue(box);
    box.run(["jobs"]);
    await waitForIdle(box);
    const runs = allRuns(box);
    expect(runs.map((r) => r.run_id)).toEqual(ids);
    expect(runs.map((r) => r.claim_seq)).toEqual([1, 2, 3, 4]);
    expect(runs.every((r) => r.status === "done")).toBe(true);
  });

  test("a codex run drives codex to done and records its thread and rollout", async () => {
    box = sandbox();
    const root = repo(box);
    const codexHome = join(box.dir, "codex-home");
    mkdirSync(codexHome);
    const receipt = box.run(["garden", "--using", "codex", "--json"], { cwd: root, env: { CODEX_HOME: codexHome } }).json<Receipt>();
    const done = await waitForStatus(box, receipt.run_id, ["failed", "done"]);
    expect(done).toMatchObject({ status: "done", harness_kind: "codex" });
    expect(done.harness_session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(done.transcript_path).toMatch(new RegExp(`^${codexHome}/sessions/.*-${done.harness_session_id}\\.jsonl$`));
  });

  test("a codex older than 0.44 fails at readiness with the upgrade line", async () => {
    box = sandbox();
    const root = repo(box);
    const receipt = box.run(["garden", "--using", "codex", "--json"], { cwd: root, env: { FAKE_CODEX_VERSION: "0.43.0" } }).json<Receipt>();
    const failed = await waitForStatus(box, receipt.run_id, ["failed", "done"]);
    expect(failed).toMatchObject({ status: "failed", failure_category: "harness_readiness" });
    expect(failed.error).toBe(
      "harness codex is not available: codex 0.43.0 is older than 0.44.0 and prints a --json stream CodeAlmanac cannot read — upgrade Codex: npm install -g @openai/codex@latest; or retry with --using claude",
    );
  });

  test("an agent that is not logged in fails the run as provider_execution with the fix", async () => {
    box = sandbox();
    const root = repo(box);
    const receipt = box
      .run(["garden", "--using", "claude", "--json"], { cwd: root, env: { FAKE_CLAUDE_SCENARIO: "not-logged-in" } })
      .json<Receipt>();
    const failed = await waitForStatus(box, receipt.run_id, ["failed", "done"]);
    expect(failed.failure_category).toBe("provider_execution");
    expect(failed.error).toMatch(/Not logged in/);
  });

  test("a run that introduces a broken link fails validation; pre-existing problems do not", async () => {
    box = sandbox();
    const root = writeWiki(join(box.dir, "repo"), {
      "old.md": page({ title: "Old", topics: ["concepts"], sources: [], body: "# Old\n\nSee [gone](gone-page)." }),
    });
    const broken = "---\ntitle: New\ntopics: [concepts]\nsources: []\n---\n# New\n\nSee [missing](nowhere).\n";
    const bad = box
      .run(["garden", "--using", "claude", "--json"], {
        cwd: root,
        env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/new.md": broken }) },
      })
      .json<Receipt>();
    const failed = await waitForStatus(box, bad.run_id, ["failed", "done"]);
    expect(failed).toMatchObject({ status: "failed", failure_category: "wiki_validation" });
    expect(failed.error).toBe("validation failed: broken_links: Markdown page link target does not exist: nowhere (new)");

    const ok = box.run(["garden", "--using", "claude", "--json"], { cwd: root }).json<Receipt>();
    expect((await waitForStatus(box, ok.run_id, ["failed", "done"])).status).toBe("done");
  });
});
