import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, expect, it } from "vitest";
import { sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, garden, waitForFile, waitForIdle, waitForStatus } from "./support.js";

let box: Sandbox;
beforeEach(() => {
  box = sandbox({
    CODEALMANAC_TEST_WORKER_TIMING: JSON.stringify({ superviseMs: 50, cancelGraceMs: 300 }),
    // config.toml takes a minute at least; the test knob sets runs.timeout in milliseconds.
    CODEALMANAC_TEST_RUN_LIMITS: JSON.stringify({ runTimeoutMs: 2_000 }),
  });
});
// After each test: no worker, executor or agent of the sandbox outlives the queue's work
// (checked before the sandbox cleanup, which kills every process carrying its state directory).
checkAndCleanUpAfterEach(() => box);

/** The parent of a process, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

it("when the executor cannot enforce runs.timeout itself, the worker's backstop stops it and records a timeout, not a crash", async () => {
  const root = writeWiki(join(box.dir, "repo"), {});
  const started = join(box.dir, "started");
  const receipt = garden(box, root, { FAKE_CLAUDE_STARTED_FILE: started, FAKE_CLAUDE_DELAY_MS: "60000" });
  const executor = parentOf(Number(await waitForFile(started)));
  // A frozen executor never fires its own timer: only the worker's supervision can end the run.
  process.kill(executor, "SIGSTOP");
  const run = await waitForStatus(box, receipt.run_id, ["failed", "done", "cancelled"]);
  expect(run).toMatchObject({ status: "failed", failure_category: "timeout" });
  expect(run.error).toMatch(/^run exceeded runs\.timeout \(2s\)/);
  await waitForIdle(box);
});
