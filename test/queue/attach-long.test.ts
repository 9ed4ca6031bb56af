import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { BIN, sandbox, waitFor, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, emptyRepo, parkedRun, writeDb } from "./support.js";

let box: Sandbox | undefined;
checkAndCleanUpAfterEach(() => box);

/**
 * How many polls the attach must make: each poll that waits adds an abort listener when
 * sleep() leaks them (src/core/sleep.ts), and Node warns past 10 listeners on one signal.
 */
const POLLS = 30;

/** Appends a warning event to a run, as the run's own events are written (src/runs/store.ts). */
function appendWarning(b: Sandbox, runId: string, message: string): void {
  writeDb(b, (db) =>
    db
      .prepare(
        `INSERT INTO run_events (run_id, seq, created_at, kind, message)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = ?), ?, 'warning', ?)`,
      )
      .run(runId, runId, Date.now(), message),
  );
}

test("a long attach adds no listener per poll: no MaxListenersExceededWarning, however many polls", async () => {
  box = sandbox({ CODEALMANAC_ATTACH_INTERVAL_MS: "2" });
  const b = box;
  const run = await parkedRun(b, emptyRepo(b));
  const child = spawn(process.execPath, [BIN, "jobs", "attach", run.run_id], { cwd: b.dir, env: b.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  // The run never moves (the queue is parked), so the test counts polls itself: it adds
  // one event and waits until the attach has printed it before adding the next, so every
  // event was read by a poll of its own, and each of those polls then waited.
  for (let poll = 1; poll <= POLLS; poll++) {
    appendWarning(b, run.run_id, `poll ${poll}`);
    await waitFor(() => stdout.includes(`! poll ${poll}\n`), `jobs attach to print "poll ${poll}"`);
  }
  child.kill("SIGINT");
  expect(await exited).toBe(130);
  expect(stdout).toContain("detached");
  expect(stderr).not.toContain("MaxListenersExceededWarning");
  expect(stderr).toBe("");
});
