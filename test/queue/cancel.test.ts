import { describe, expect, onTestFinished, test } from "vitest";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { sandbox, waitFor, type Sandbox } from "../support/cli.js";
import { readProcessStartTime } from "../../src/core/processes/index.js";
import { checkAndCleanUpAfterEach, emptyRepo, events, garden, parkedRun, processAlive, readRun, runWithGrandchild, waitForFile, waitForIdle, waitForStatus, writeDb } from "./support.js";

let box: Sandbox;
// After each test: no worker, executor or agent of the sandbox outlives the queue's work
// (checked before the sandbox cleanup, which kills every process carrying its state directory).
checkAndCleanUpAfterEach(() => box);

describe("cancellation", () => {
  test("a queued run is cancelled atomically and a second cancel changes nothing", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    const first = box.run(["jobs", "cancel", run.run_id, "--json"]);
    expect(first.code).toBe(0);
    expect(first.json()).toMatchObject({ changed: true, record: { run_id: run.run_id, status: "cancelled" } });
    const again = box.run(["jobs", "cancel", run.run_id]);
    expect(again.stdout).toBe(`job already cancelled: ${run.run_id}\n`);
    expect(events(box, run.run_id).map((e) => e.message)).toEqual(["queued garden", "cancelled"]);
  });

  test("a running run is cancelled with its whole tree, including a grandchild in its own session", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const { run, grandchild, executor } = await runWithGrandchild(box, root);
    const result = box.run(["jobs", "cancel", run.run_id]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(`cancelled ${run.run_id}\n`);
    expect(result.code).toBe(0);
    expect(processAlive(grandchild)).toBe(false);
    expect(processAlive(executor)).toBe(false);
    expect(readRun(box, run.run_id)?.status).toBe("cancelled");
    const messages = events(box, run.run_id).map((e) => e.message);
    expect(messages.slice(0, 2)).toEqual(["queued garden", "running"]);
    expect(messages.slice(-2)).toEqual(["cancellation requested", "cancelled"]);
    await waitForIdle(box);
  });

  test("cancel sends SIGTERM first and waits out the grace period before any SIGKILL", async () => {
    // A grace far longer than the agent needs: only a cancel that waits for it lets the agent finish cleaning up.
    box = sandbox({ CODEALMANAC_TEST_WORKER_TIMING: JSON.stringify({ cancelGraceMs: 120_000 }) });
    const root = emptyRepo(box);
    const started = join(box.dir, "agent.pid");
    const term = join(box.dir, "agent-term");
    const release = join(box.dir, "agent-release");
    const run = garden(box, root, { FAKE_CLAUDE_SCENARIO: "graceful-term", FAKE_CLAUDE_STARTED_FILE: started, FAKE_CLAUDE_TERM_FILE: term, FAKE_CLAUDE_RELEASE_FILE: release });
    const agent = Number(await waitForFile(started));
    const cancelling = box.runAsync(["jobs", "cancel", run.run_id]);
    await waitForFile(term);
    writeFileSync(release, "");
    const result = await cancelling;
    expect(result.stdout).toBe(`cancelled ${run.run_id}\n`);
    expect(readFileSync(`${term}.cleaned`, "utf8")).toBe("cleaned");
    expect(processAlive(agent)).toBe(false);
    await waitForIdle(box);
  });

  test("an agent that ignores SIGTERM is killed after the grace period", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const started = join(box.dir, "agent.pid");
    const run = garden(box, root, { FAKE_CLAUDE_SCENARIO: "ignore-sigterm", FAKE_CLAUDE_STARTED_FILE: started });
    const agent = Number(await waitForFile(started));
    const result = box.run(["jobs", "cancel", run.run_id, "--json"]);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ changed: true, record: { status: "cancelled" } });
    expect(processAlive(agent)).toBe(false);
  });

  test("cancellation is refused for a reused pid and the stranger is never signalled", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    // Not a sandbox process, so the sandbox cleanup would not reach it: killed at the end.
    const stranger = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    onTestFinished(() => void stranger.kill("SIGKILL"));
    await waitFor(() => readProcessStartTime(stranger.pid!), "the stranger to start");
    writeDb(box, (db) =>
      db
        .prepare(
          `UPDATE runs SET status = 'running', started_at = 1, execution_id = 'exec-old', executor_pid = ?,
             executor_start_time = '1', executor_pgid = ? WHERE run_id = ?`,
        )
        .run(stranger.pid, stranger.pid, run.run_id),
    );
    const result = box.run(["jobs", "cancel", run.run_id]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(new RegExp(`^codealmanac: refusing to signal pid ${stranger.pid}: it is no longer run`));
    expect(processAlive(stranger.pid!)).toBe(true);
    expect(readRun(box, run.run_id)).toMatchObject({ status: "running" });
    expect(readRun(box, run.run_id)?.cancel_requested_at).not.toBeNull();
    // The intent is durable: the next `jobs` read sees the executor gone and finishes it.
    expect(box.run(["jobs", "show", run.run_id, "--json"]).json()).toMatchObject({ status: "cancelled" });
    expect(processAlive(stranger.pid!)).toBe(true);
  });

  test("a canceller SIGKILLed between the stop and the final write still ends in cancelled", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const started = join(box.dir, "agent.pid");
    const run = garden(box, root, { FAKE_CLAUDE_SCENARIO: "hang", FAKE_CLAUDE_STARTED_FILE: started });
    await waitForFile(started);
    await waitForStatus(box, run.run_id, ["running"]);
    const result = box.run(["jobs", "cancel", run.run_id], {
      env: { CODEALMANAC_TEST_HOOKS: JSON.stringify({ cancelBeforeFinish: "kill -9 $PPID" }) },
    });
    expect(result.signal).toBe("SIGKILL");
    const final = await waitForStatus(box, run.run_id, ["cancelled", "failed", "done"]);
    expect(final.status).toBe("cancelled");
  });

  test("a canceller SIGKILLed right after recording intent: the worker carries the cancellation out", async () => {
    box = sandbox({ CODEALMANAC_TEST_WORKER_TIMING: JSON.stringify({ abandonedCancelMs: 1_000 }) });
    const root = emptyRepo(box);
    const started = join(box.dir, "agent.pid");
    const run = garden(box, root, { FAKE_CLAUDE_SCENARIO: "hang", FAKE_CLAUDE_STARTED_FILE: started });
    const agent = Number(await waitForFile(started));
    await waitForStatus(box, run.run_id, ["running"]);
    const result = box.run(["jobs", "cancel", run.run_id], {
      env: { CODEALMANAC_TEST_HOOKS: JSON.stringify({ cancelAfterIntent: "kill -9 $PPID" }) },
    });
    expect(result.signal).toBe("SIGKILL");
    expect(processAlive(agent)).toBe(true);
    const final = await waitForStatus(box, run.run_id, ["cancelled", "failed", "done"]);
    expect(final.status).toBe("cancelled");
    await waitFor(() => !processAlive(agent), "the agent to be stopped");
  });
});
