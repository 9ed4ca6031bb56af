import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { BIN, sandbox, type Sandbox } from "../support/cli.js";
import { checkAndCleanUpAfterEach, emptyRepo, parkedRun } from "./support.js";

let box: Sandbox | undefined;
checkAndCleanUpAfterEach(() => box);

test("a long attach adds no listener per poll: no MaxListenersExceededWarning, however many polls", async () => {
  box = sandbox({ CODEALMANAC_ATTACH_INTERVAL_MS: "2" });
  const run = await parkedRun(box, emptyRepo(box));
  const child = spawn(process.execPath, [BIN, "jobs", "attach", run.run_id], { cwd: box.dir, env: box.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  // Hundreds of polls of a run that never moves (the queue is parked), then Ctrl-C.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  child.kill("SIGINT");
  expect(await exited).toBe(130);
  expect(stdout).toContain("detached");
  expect(stderr).not.toContain("MaxListenersExceededWarning");
  expect(stderr).toBe("");
});
