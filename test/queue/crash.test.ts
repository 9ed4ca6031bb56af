import { describe, expect, test } from "vitest";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { sandbox, waitFor, type Sandbox } from "../support/cli.js";
import {
  allRuns,
  checkAndCleanUpAfterEach,
  emptyRepo,
  events,
  expectOneRunAtATime,
  garden,
  hooks,
  parkedRun,
  processAlive,
  readRun,
  releaseQueue,
  runWithGrandchild,
  waitForExits,
  waitForFile,
  waitForIdle,
  waitForStatus,
  workerLog,
  writeDb,
} from "./support.js";

let box: Sandbox;
// After each test: no worker, executor or agent of the sandbox outlives the queue's work
// (checked before the sandbox cleanup, which kills every process carrying its state directory).
checkAndCleanUpAfterEach(() => box);

describe("crashes", () => {
  test("a SIGKILLed worker's lock is taken at once; its live executor is adopted, not doubled", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const started = join(box.dir, "agent-started");
    const release = join(box.dir, "release-agent");
    // The agent holds at its last step until the test releases it, so the run is still
    // running when the next worker arrives, however slow or fast the machine.
    const first = garden(box, root, { FAKE_CLAUDE_STARTED_FILE: started, FAKE_CLAUDE_RELEASE_FILE: release });
    await waitForFile(started);
    process.kill(first.child_pid, "SIGKILL");
    await waitForExits([first.child_pid]);

    const second = garden(box, root);
    // The new worker takes the dead worker's lock immediately instead of exiting.
    await waitFor(() => workerLog(box).includes(`worker ${second.child_pid}: acquired the queue lock`), "takeover");
    await waitFor(() => workerLog(box).includes(`worker ${second.child_pid}: adopting run ${first.run_id}`), "adoption");
    // Adopting means waiting: nothing new is claimed while the adopted run's agent still works.
    expect(allRuns(box).map((r) => r.status)).toEqual(["running", "queued"]);
    writeFileSync(release, "");
    await waitForIdle(box);
    const runs = allRuns(box);
    expect(runs.map((r) => r.status)).toEqual(["done", "done"]);
    expect(runs.map((r) => r.claim_seq)).toEqual([1, 2]);
    // The adopted run finished before the next one was claimed: never two at once.
    expect(expectOneRunAtATime(box)).toBe(2);
  });

  test("a SIGKILLed worker's fresh heartbeat does not stop a jobs read from waking a worker for the queued rest", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const started = join(box.dir, "agent-started");
    const release = join(box.dir, "release-agent");
    const first = garden(box, root, { FAKE_CLAUDE_STARTED_FILE: started, FAKE_CLAUDE_RELEASE_FILE: release });
    await waitForFile(started);
    const second = garden(box, root);
    await waitForExits([second.child_pid]);
    process.kill(first.child_pid, "SIGKILL");
    await waitForExits([first.child_pid]);
    // The orphaned executor finishes its run on its own; nobody drains the second one.
    writeFileSync(release, "");
    await waitForStatus(box, first.run_id, ["done"]);
    expect(readRun(box, second.run_id)?.status).toBe("queued");
    // Well within stale_after of the dead worker's last heartbeat.
    expect(box.run(["jobs"]).code).toBe(0);
    await waitForStatus(box, second.run_id, ["done"]);
    await waitForIdle(box);
  });

  test("a SIGKILLed executor's agent tree is killed and the run fails naming the executor", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const { run, grandchild, executor } = await runWithGrandchild(box, root);
    process.kill(executor, "SIGKILL");
    const failed = await waitForStatus(box, run.run_id, ["failed"]);
    expect(failed.failure_category).toBe("internal_error");
    expect(failed.error).toBe(`executor ${executor} was killed by SIGKILL without finishing the run`);
    await waitFor(() => !processAlive(grandchild), "the agent's grandchild to die");
    expect(expectOneRunAtATime(box)).toBe(1);
  });

  test("when worker and executor both die, the next `jobs` read terminalizes the run and kills the agent", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const { run, grandchild, executor } = await runWithGrandchild(box, root);
    process.kill(run.child_pid, "SIGKILL");
    process.kill(executor, "SIGKILL");
    await waitForExits([run.child_pid, executor]);
    expect(readRun(box, run.run_id)?.status).toBe("running");

    const jobs = box.run(["jobs", "--json"]);
    expect(jobs.code).toBe(0);
    const record = jobs.json<{ run_id: string; status: string; error: string }[]>()[0]!;
    expect(record).toMatchObject({ run_id: run.run_id, status: "failed" });
    expect(record.error).toBe(`executor ${executor} is gone; the run was interrupted before it finished`);
    await waitFor(() => !processAlive(grandchild), "the orphaned agent to die");
    expect(expectOneRunAtATime(box)).toBe(1);
  });

  test("a run that exceeds runs.timeout is stopped and fails with category timeout", async () => {
    // config.toml takes a minute at least; the test knob sets runs.timeout in milliseconds.
    box = sandbox({ CODEALMANAC_TEST_RUN_LIMITS: JSON.stringify({ runTimeoutMs: 2_000 }) });
    const root = emptyRepo(box);
    const started = join(box.dir, "agent.pid");
    const run = garden(box, root, { FAKE_CLAUDE_SCENARIO: "ignore-sigterm", FAKE_CLAUDE_STARTED_FILE: started });
    const agent = Number(await waitForFile(started));
    const failed = await waitForStatus(box, run.run_id, ["failed", "done"]);
    expect(failed).toMatchObject({ status: "failed", failure_category: "timeout" });
    expect(failed.error).toBe("run exceeded runs.timeout (2s)");
    expect(processAlive(agent)).toBe(false);
    await waitForIdle(box);
    expect(expectOneRunAtATime(box)).toBe(1);
  });

  test("a malformed spec fails its own run and the worker drains the rest", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const bad = await parkedRun(box, root);
    const good = garden(box, root);
    await waitForExits([good.child_pid]);
    writeDb(box, (db) => db.prepare("UPDATE runs SET spec_json = '{not json' WHERE run_id = ?").run(bad.run_id));
    releaseQueue(box);
    box.run(["jobs"]);
    await waitForIdle(box);
    const failed = readRun(box, bad.run_id)!;
    expect(failed).toMatchObject({ status: "failed", failure_category: "internal_error" });
    // Its reason is in its transcript too, just before the status, like every other failure's.
    expect(events(box, bad.run_id).map((e) => e.message)).toEqual(["queued garden", failed.error, "failed"]);
    expect(readRun(box, good.run_id)?.status).toBe("done");
    expect(expectOneRunAtATime(box)).toBe(1);
  });
});

describe("a stalled worker", () => {
  test("a worker stopped past stale_after loses the lock and never claims again once resumed", async () => {
    box = sandbox({ CODEALMANAC_TEST_WORKER_TIMING: JSON.stringify({ staleAfterMs: 1_000, heartbeatMs: 200 }) });
    const root = emptyRepo(box);
    const started = join(box.dir, "agent-started");
    const release = join(box.dir, "release-agent");
    const lost = join(box.dir, "lock-lost");
    const first = garden(box, root, {
      FAKE_CLAUDE_STARTED_FILE: started,
      FAKE_CLAUDE_RELEASE_FILE: release,
      // The first worker's heartbeat, once resumed, finds its token gone.
      ...hooks({ workerLostLock: `echo "$PPID" > ${lost}` }),
    });
    await waitForFile(started);
    process.kill(first.child_pid, "SIGSTOP");
    try {
      await waitFor(() => {
        let age = 0;
        writeDb(box, (db) => {
          const beat = db.prepare("SELECT heartbeat_at FROM worker_lock").pluck().get() as number;
          age = Date.now() - beat;
        });
        return age > 1_100;
      }, "the stopped worker's heartbeat to go stale");
      const second = garden(box, root);
      await waitFor(() => workerLog(box).includes(`worker ${second.child_pid}: acquired the queue lock`), "takeover");
      await waitFor(() => workerLog(box).includes(`worker ${second.child_pid}: adopting run ${first.run_id}`), "adoption");
    } finally {
      process.kill(first.child_pid, "SIGCONT");
    }
    // Only once the resumed worker has seen its lock gone does the agent finish, so the
    // resumed worker's next step is the one that must not claim.
    expect(Number(await waitForFile(lost))).toBe(first.child_pid);
    expect(allRuns(box).map((r) => r.status)).toEqual(["running", "queued"]);
    writeFileSync(release, "");
    await waitForIdle(box);
    await waitForExits([first.child_pid]);
    const runs = allRuns(box);
    expect(runs.map((r) => r.status)).toEqual(["done", "done"]);
    const log = workerLog(box);
    expect(log).toContain(`worker ${first.child_pid}: drain ended (ownership_lost) after 1 run(s)`);
    expect(log).not.toContain(`worker ${first.child_pid}: run ${runs[1]!.run_id}`);
    expect(runs[1]!.worker_token).not.toBe(runs[0]!.worker_token);
    expect(expectOneRunAtATime(box)).toBe(2);
  });
});
