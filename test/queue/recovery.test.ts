import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, sandbox, waitFor, type Sandbox } from "../support/cli.js";
import { readProcessStartTime } from "../../src/core/processes/index.js";
import {
  allRuns,
  checkAndCleanUpAfterEach,
  emptyRepo,
  events,
  expectOneRunAtATime,
  garden,
  hooks,
  lockHolderPids,
  parkedRuns,
  processAlive,
  releaseQueue,
  waitForExits,
  waitForFile,
  waitForIdle,
  waitForStatus,
  workerLog,
} from "./support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

describe("a worker that lost its lock", () => {
  test("stops draining when its executor cannot claim (exit 3), and claims nothing more", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const [a, b, c] = await parkedRuns(box, root, 3);
    releaseQueue(box);
    // Between the worker's runs: the second executor, dispatched but not yet claiming, finds
    // the lock taken by another owner (this test process, as `test-holder`).
    const steal = [
      process.execPath,
      join(ROOT, "test/fixtures/hooks/steal-lock.mjs"),
      join(box.state, "codealmanac.db"),
      process.pid,
      readProcessStartTime(process.pid),
      join(box.dir, "claims"),
      2,
    ].join(" ");
    box.run(["jobs"], { env: hooks({ beforeClaim: steal }) });
    await waitFor(() => /drain ended \(ownership_lost\)/.test(workerLog(box)), "the worker to stop draining");
    const [worker] = lockHolderPids(box);
    await waitForExits([worker!]);

    const log = workerLog(box);
    expect(log).toContain(`worker ${worker}: drain ended (ownership_lost) after 2 run(s)`);
    expect(log).toContain(`run ${b!.run_id}: the executor could not claim it (the queue lock moved); stopping this drain`);
    // One dispatch per run up to the lost claim, then none.
    expect([...log.matchAll(/ → executor (\d+)/g)].length).toBe(2);
    const executor = Number(new RegExp(`run ${b!.run_id} → executor (\\d+)`).exec(log)![1]);
    expect(readFileSync(join(box.state, "logs", "runs", `${b!.run_id}.log`), "utf8")).toContain(
      `executor ${executor}: run ${b!.run_id} not claimed (lock lost)`,
    );
    expect(allRuns(box).map((r) => [r.run_id, r.status, r.claim_seq])).toEqual([
      [a!.run_id, "done", 1],
      [b!.run_id, "queued", null],
      [c!.run_id, "queued", null],
    ]);
    expect(events(box, b!.run_id).map((e) => e.message)).toEqual(["queued garden"]);

    // The new owner goes away; the next `jobs` read wakes a worker that drains the rest.
    releaseQueue(box);
    box.run(["jobs"]);
    await waitForIdle(box);
    const runs = allRuns(box);
    expect(runs.map((r) => [r.status, r.claim_seq])).toEqual([
      ["done", 1],
      ["done", 2],
      ["done", 3],
    ]);
    expect(runs[1]!.worker_token).not.toBe(runs[0]!.worker_token);
    expect(expectOneRunAtATime(box)).toBe(3);
  });
});

describe("an executor that never claims", () => {
  test("its run fails as internal_error naming the executor, and the worker goes on", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const [a, b] = await parkedRuns(box, root, 2);
    releaseQueue(box);
    // The first executor the worker dispatches to dies before its claim (the hook runs once per
    // process, so the next executor claims normally).
    const counter = join(box.dir, "claims");
    box.run(["jobs"], {
      env: hooks({ beforeClaim: `n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n + 1)) > ${counter}; [ "$n" = 0 ] && kill -9 $PPID; true` }),
    });
    const failed = await waitForStatus(box, a!.run_id, ["failed", "done", "running"]);
    const [worker] = lockHolderPids(box);
    const executor = Number(new RegExp(`worker ${worker}: run ${a!.run_id} → executor (\\d+)`).exec(workerLog(box))![1]);
    expect(failed).toMatchObject({
      status: "failed",
      failure_category: "internal_error",
      error: `executor ${executor} was killed by SIGKILL before claiming the run`,
      claim_seq: null,
      executor_pid: null,
    });
    const messages = events(box, a!.run_id).map((e) => e.message);
    // The reason is in the transcript too, like every other failure's.
    expect(messages).toEqual(["queued garden", failed.error, "failed"]);
    expect(messages).not.toContain("running");
    await waitForIdle(box);
    expect(allRuns(box).map((r) => [r.run_id, r.status, r.claim_seq])).toEqual([
      [a!.run_id, "failed", null],
      [b!.run_id, "done", 1],
    ]);
  });
});

describe("no process outlives its run (I8)", () => {
  test("after a run ends done, a grandchild the agent left in its own session is killed", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const grandchildFile = join(box.dir, "grandchild.pid");
    const run = garden(box, root, { FAKE_CLAUDE_SCENARIO: "leave-grandchild", FAKE_CLAUDE_GRANDCHILD_PID_FILE: grandchildFile });
    const grandchild = Number(await waitForFile(grandchildFile));
    expect((await waitForStatus(box, run.run_id, ["done", "failed"])).status).toBe("done");
    // The worker kills an execution's leftovers before it looks at the queue again, so once
    // the queue is idle the grandchild is gone.
    await waitForIdle(box);
    expect(processAlive(grandchild)).toBe(false);
  });
});
