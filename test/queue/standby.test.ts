import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, ROOT, sandbox, waitFor, type Sandbox } from "../support/cli.js";
import {
  allRuns,
  checkAndCleanUpAfterEach,
  emptyRepo,
  events,
  expectOneRunAtATime,
  garden,
  hooks,
  lockHolderPids,
  parkedRun,
  parkedRuns,
  processAlive,
  queueProcesses,
  releaseQueue,
  waitForExits,
  waitForFile,
  waitForIdle,
  waitForStatus,
  workerLog,
} from "./support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

/** Starts `__run-executor --standby` as a worker would, with a pipe on stdin. */
function standby(b: Sandbox) {
  const child = spawn(process.execPath, [BIN, "__run-executor", "--standby"], { cwd: b.dir, env: b.env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const closed = new Promise<{ code: number | null; output: string }>((resolve) => child.on("close", (code) => resolve({ code, output })));
  /** Ends its stdin (after writing `input`, if given); its exit code and output once it has exited. */
  const finish = async (input?: string) => {
    child.stdin.end(input);
    return closed;
  };
  return { finish };
}

/** The hook that records (or, with kill, SIGKILLs) the standby a worker has just spawned. */
function standbyHook(b: Sandbox, pidFile: string, kill: boolean): string {
  const script = join(ROOT, "test/fixtures/hooks/standby.mjs");
  return `${process.execPath} ${script} "$PPID" ${join(b.state, "logs", "worker.log")} ${pidFile}${kill ? " --kill" : ""}`;
}

describe("standby executors", () => {
  test("a standby that reads end of input exits 0 without claiming anything, even with a run queued", async () => {
    box = sandbox();
    const run = await parkedRun(box, emptyRepo(box));
    releaseQueue(box); // a run waits and no worker holds the lock: only a dispatch may make a standby claim
    expect(await standby(box).finish()).toEqual({ code: 0, output: "" });
    expect(allRuns(box).map((r) => [r.run_id, r.status, r.claim_seq, r.executor_pid])).toEqual([[run.run_id, "queued", null, null]]);
    expect(events(box, run.run_id).map((e) => e.message)).toEqual(["queued garden"]);
  });

  test("a standby handed something that is not a dispatch exits 2 without claiming anything", async () => {
    box = sandbox();
    const run = await parkedRun(box, emptyRepo(box));
    releaseQueue(box);
    const { code, output } = await standby(box).finish(`${JSON.stringify({ runId: run.run_id })}\n`);
    expect(code).toBe(2);
    expect(output).toContain(`__run-executor: not a dispatch: {"runId":"${run.run_id}"}`);
    expect(allRuns(box).map((r) => [r.status, r.claim_seq])).toEqual([["queued", null]]);
  });

  test("a standby ends when its worker dies", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const started = join(box.dir, "agent-started");
    const release = join(box.dir, "release-agent");
    const standbyFile = join(box.dir, "standby.pid");
    const run = garden(box, root, {
      FAKE_CLAUDE_STARTED_FILE: started,
      FAKE_CLAUDE_RELEASE_FILE: release,
      ...hooks({ workerAfterSpawn: standbyHook(box, standbyFile, false) }),
    });
    const spare = Number(await waitForFile(standbyFile));
    await waitForFile(started);
    const executor = (await waitForStatus(box, run.run_id, ["running"])).executor_pid!;
    expect(spare).not.toBe(executor);
    expect(queueProcesses(box).sort((a, b) => a.pid - b.pid)).toEqual(
      [
        { pid: run.child_pid, role: "worker" },
        { pid: executor, role: "executor" },
        { pid: spare, role: "executor" },
      ].sort((a, b) => a.pid - b.pid),
    );
    process.kill(run.child_pid, "SIGKILL");
    // The worker's end of the standby's stdin closes with it: the standby reads end of input.
    await waitFor(() => !processAlive(spare), `standby ${spare} to exit after its worker died`);
    // The running executor is not the standby: it finishes its run on its own.
    expect(processAlive(executor)).toBe(true);
    writeFileSync(release, "");
    expect((await waitForStatus(box, run.run_id, ["done", "failed"])).status).toBe("done");
    await waitForExits([executor]);
    expect(allRuns(box).map((r) => r.claim_seq)).toEqual([1]);
  });

  test("a dispatch to a standby that died falls back to a fresh standby, and the run is executed", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const [a, b] = await parkedRuns(box, root, 2);
    const killed = join(box.dir, "killed-standby.pid");
    releaseQueue(box);
    // The worker's standby for the second run is SIGKILLed right after it is spawned.
    box.run(["jobs"], { env: hooks({ workerAfterSpawn: standbyHook(box, killed, true) }) });
    await waitForIdle(box);
    const dead = Number(await waitForFile(killed));
    const runs = allRuns(box);
    expect(runs.map((r) => [r.run_id, r.status])).toEqual([
      [a!.run_id, "done"],
      [b!.run_id, "done"],
    ]);
    expect(runs.map((r) => r.executor_pid)).not.toContain(dead);
    const [worker] = lockHolderPids(box);
    const log = workerLog(box);
    // The dispatch to the dead standby was tried and failed; then a fresh executor ran the run.
    const failed = `worker ${worker}: dispatch of run ${b!.run_id} to standby ${dead} failed (the standby has exited); starting a fresh executor`;
    const executed = `worker ${worker}: run ${b!.run_id} → executor ${runs[1]!.executor_pid}`;
    expect(log).toContain(failed);
    expect(log.indexOf(executed)).toBeGreaterThan(log.indexOf(failed));
    expect(log).not.toContain("could not start an executor");
    expect(expectOneRunAtATime(box)).toBe(2);
  });
});
