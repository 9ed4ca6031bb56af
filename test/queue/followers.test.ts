import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { BIN, sandbox, type Sandbox } from "../support/cli.js";
import { openEvents, startViewer } from "../viewer/support.js";
import {
  checkAndCleanUpAfterEach,
  emptyRepo,
  processAlive,
  readRun,
  runWithGrandchild,
  sandboxProcesses,
  waitForExits,
  waitForFile,
  waitForStatus,
  writeDb,
} from "./support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

interface Follower {
  /** Resolves once the follower has printed something: it is in its loop. */
  printed: Promise<void>;
  exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** A CLI follower whose output can be watched while it runs. */
function follower(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Follower {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...box.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let markPrinted: () => void;
  const printed = new Promise<void>((resolve) => (markPrinted = resolve));
  child.stdout.on("data", (d) => {
    stdout += d;
    markPrinted();
  });
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  return { printed, exited };
}

/** The worker that holds the queue lock now. */
function lockHolder(): number {
  let pid = 0;
  writeDb(box, (db) => (pid = (db.prepare("SELECT pid FROM worker_lock").pluck().get() as number | undefined) ?? 0));
  return pid;
}

/** After the kill, nothing of the run is left: not the agent, not its grandchild (a viewer may still be serving). */
function expectNoAgentLeft(grandchild: number): void {
  expect(processAlive(grandchild)).toBe(false);
  const others = sandboxProcesses(box).filter((p) => p.role === "other" && !p.cmdline.includes(`${BIN} serve`));
  expect(others.map((p) => p.cmdline)).toEqual([]);
}

describe("followers recover a run whose worker and executor are gone, instead of waiting forever", () => {
  test("jobs attach ends with the failed outcome, and the agent is gone", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const { run, grandchild, executor } = await runWithGrandchild(box, root);
    const attach = follower(["jobs", "attach", run.run_id], root);
    await attach.printed;
    process.kill(run.child_pid, "SIGKILL");
    process.kill(executor, "SIGKILL");
    const { code, stdout } = await attach.exited;
    // attach exits as --wait does: the run failed, so 1.
    expect(code).toBe(1);
    expect(stdout).toContain("status: failed");
    // The reaper's error event shows the failure; the final `error:` line does not repeat it.
    expect(stdout).toContain(`✕ Error\n  executor ${executor} is gone; the run was interrupted before it finished\n`);
    expect(stdout.match(/is gone; the run was interrupted/g)).toHaveLength(1);
    expect(readRun(box, run.run_id)?.status).toBe("failed");
    expectNoAgentLeft(grandchild);
  });

  test("a lifecycle command's --wait ends with the failed run record, and the agent is gone", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const grandchildFile = join(box.dir, "grandchild.pid");
    const started = join(box.dir, "agent-started");
    const waiting = follower(["garden", "--using", "claude", "--wait", "--json"], root, {
      FAKE_CLAUDE_SCENARIO: "spawn-grandchild",
      FAKE_CLAUDE_GRANDCHILD_PID_FILE: grandchildFile,
      FAKE_CLAUDE_STARTED_FILE: started,
    });
    const grandchild = Number(await waitForFile(grandchildFile));
    await waitForFile(started);
    const worker = lockHolder();
    let runId = "";
    writeDb(box, (db) => (runId = db.prepare("SELECT run_id FROM runs").pluck().get() as string));
    const executor = (await waitForStatus(box, runId, ["running"])).executor_pid!;
    process.kill(worker, "SIGKILL");
    process.kill(executor, "SIGKILL");
    await waitForExits([worker, executor]);
    const { code, stdout } = await waiting.exited;
    expect(code).toBe(1);
    const record = JSON.parse(stdout) as { run_id: string; status: string; failure_category: string };
    expect(record).toMatchObject({ run_id: runId, status: "failed", failure_category: "internal_error" });
    expectNoAgentLeft(grandchild);
  });

  test("the viewer's job stream sends the failed outcome and ends, and the agent is gone", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const { run, grandchild, executor } = await runWithGrandchild(box, root);
    const viewer = await startViewer(box, { cwd: root });
    const stream = await openEvents(viewer, `/api/jobs/${run.run_id}/events?after=0`);
    expect(stream.status).toBe(200);
    // The first batch has arrived: the stream is following.
    expect(await stream.next()).not.toBeNull();
    process.kill(run.child_pid, "SIGKILL");
    process.kill(executor, "SIGKILL");
    const rest = await stream.rest();
    const end = rest.find((e) => e.event === "end");
    expect(end && JSON.parse(end.data)).toMatchObject({ status: "failed" });
    expectNoAgentLeft(grandchild);
    viewer.child.kill("SIGTERM");
    await viewer.exited;
  });

  test("a follower of a queued run whose worker died wakes a new one, and the run is drained", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const { run, grandchild, executor } = await runWithGrandchild(box, root);
    // A second run waits behind the first; then the worker and executor die.
    const second = box.run(["garden", "--using", "claude", "--json"], { cwd: root }).json<{ run_id: string; child_pid: number }>();
    await waitForExits([second.child_pid]);
    const attach = follower(["jobs", "attach", second.run_id], root);
    await attach.printed;
    process.kill(run.child_pid, "SIGKILL");
    process.kill(executor, "SIGKILL");
    const { code, stdout } = await attach.exited;
    expect(code).toBe(0);
    expect(stdout).toContain("status: done");
    expect(readRun(box, run.run_id)?.status).toBe("failed");
    expect(processAlive(grandchild)).toBe(false);
  });
});
