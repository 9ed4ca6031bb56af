/**
 * A waiting run is never silent, end to end through pipes: the follower's status line
 * (CODEALMANAC_WAIT_STATUS_INTERVAL_MS shortens its one-a-minute cadence off a terminal),
 * and a silent agent that fails the run once, as a timeout naming runs.idle_timeout.
 * The in-process tests of the rendering and cadence are in test/cli/follow.test.ts.
 */
import { spawn } from "node:child_process";
import { expect, test } from "vitest";
import { BIN, sandbox, type Sandbox } from "../support/cli.js";
import { allRuns, checkAndCleanUpAfterEach, emptyRepo, parkedRuns, type JobRecord } from "./support.js";

let box: Sandbox | undefined;
checkAndCleanUpAfterEach(() => box);

/** A CLI process whose output is watched as it comes: `seen` resolves once the text has been printed. */
function watched(b: Sandbox, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...b.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  const waiters: { stream: "stdout" | "stderr"; text: string; times: number; resolve: () => void }[] = [];
  const count = (stream: "stdout" | "stderr", text: string) => out[stream].split(text).length - 1;
  const check = () => {
    for (const w of [...waiters]) {
      if (count(w.stream, w.text) < w.times) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout.on("data", (d) => ((out.stdout += d), check()));
  child.stderr.on("data", (d) => ((out.stderr += d), check()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    child,
    out,
    exited,
    /** Resolves once `text` has been printed `times` times. */
    seen: (stream: "stdout" | "stderr", text: string, times = 1) =>
      new Promise<void>((resolve) => {
        waiters.push({ stream, text, times, resolve });
        check();
      }),
  };
}

test("--wait through a pipe says on stderr, in whole lines, that the run waits for its silent agent, and for how long", async () => {
  box = sandbox({ CODEALMANAC_WAIT_STATUS_INTERVAL_MS: "300" });
  const b = box;
  const root = emptyRepo(b);
  const wait = watched(b, ["garden", "--using", "claude", "--wait", "--guidance", "fake-scenario: hang"], root);
  // Two lines: the cadence goes on while the agent stays silent.
  await wait.seen("stderr", "waiting for claude: no output for", 2);
  expect(b.run(["jobs", "cancel", allRuns(b)[0]!.run_id]).code).toBe(0);
  expect(await wait.exited).toBe(1);
  const [queuedNotice, ...statusLines] = wait.out.stderr.trimEnd().split("\n");
  expect(queuedNotice).toMatch(/^queued garden garden-\d{14}-[0-9a-f]{8} in repo /);
  expect(statusLines.length).toBeGreaterThanOrEqual(2);
  for (const line of statusLines) expect(line).toMatch(/^(waiting for claude: no output for \d+s|running: no new event for \d+s|queued: waiting \d+s)$/);
  expect(wait.out.stderr).not.toContain("\r");
  expect(wait.out.stdout).not.toContain("waiting for");
  expect(wait.out.stdout).toMatch(/status: cancelled\n$/);
});

test("jobs attach to a run queued behind another says how many runs are ahead; --json says nothing of it", async () => {
  box = sandbox({ CODEALMANAC_WAIT_STATUS_INTERVAL_MS: "200" });
  const b = box;
  const root = emptyRepo(b);
  const [, second] = await parkedRuns(b, root, 2);
  const attach = watched(b, ["jobs", "attach", second!.run_id], b.dir);
  const json = watched(b, ["jobs", "attach", second!.run_id, "--json"], b.dir);
  // Twice: the run stays queued, with no new event, and the follower keeps saying so.
  await attach.seen("stderr", "queued: 1 run ahead, waiting ", 2);
  await json.seen("stdout", "\n");
  attach.child.kill("SIGINT");
  expect(await attach.exited).toBe(130);
  expect(attach.out.stderr).toMatch(/^(queued: 1 run ahead, waiting \d+s\n)+$/);
  expect(attach.out.stdout).toMatch(/detached — job continues in background\ncancel: codealmanac jobs cancel \S+\n$/);
  // The NDJSON stream is one line per update with events: this queued run has one, and no status line anywhere.
  json.child.kill("SIGINT");
  expect(await json.exited).toBe(130);
  expect(json.out.stdout.trimEnd().split("\n")).toHaveLength(1);
  expect(json.out.stderr).toBe("");
});

test("a silent agent whose CLI keeps printing retry notices fails the run once, as a timeout naming runs.idle_timeout", async () => {
  box = sandbox({ CODEALMANAC_TEST_RUN_LIMITS: JSON.stringify({ runIdleTimeoutMs: 1_500 }) });
  const b = box;
  const root = emptyRepo(b);
  const result = await b.runAsync(["garden", "--using", "claude", "--wait", "--guidance", "fake-scenario: silent-retry"], { cwd: root });
  expect(result.code).toBe(1);
  // The failure is printed once, with its fix, and not again as the final error line.
  expect(result.stdout.match(/produced no output/g)).toHaveLength(1);
  expect(result.stdout).toMatch(
    /✕ Error\n {2}claude produced no output for 1\.5 s\n {2}fix: check that the model provider answers, or raise runs\.idle_timeout\n(?:.*\n)*status: failed\n$/,
  );
  const record = b.run(["jobs", "show", allRuns(b)[0]!.run_id, "--json"]).json<JobRecord>();
  expect(record).toMatchObject({
    status: "failed",
    failure_category: "timeout",
    error: "harness claude failed: claude produced no output for 1.5 s (check that the model provider answers, or raise runs.idle_timeout)",
  });
});

test("a run that Claude Code's own stream idle timeout ends fails as a timeout, its error printed once", async () => {
  box = sandbox();
  const b = box;
  const root = emptyRepo(b);
  const result = await b.runAsync(["garden", "--using", "claude", "--wait", "--guidance", "fake-scenario: stream-idle-timeout"], { cwd: root });
  expect(result.code).toBe(1);
  // The agent's error, its done and the run's error all carry it; it is printed once.
  expect(result.stdout.match(/Stream idle timeout/g)).toHaveLength(1);
  expect(result.stdout).toMatch(/✕ Error\n {2}API Error: Stream idle timeout - no chunks received\n {2}fix: check that the model provider answers; .*\n· Failed\nstatus: failed\n$/);
  const record = b.run(["jobs", "show", allRuns(b)[0]!.run_id, "--json"]).json<JobRecord>();
  expect(record).toMatchObject({ status: "failed", failure_category: "timeout" });
});
