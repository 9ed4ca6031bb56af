import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import {
  compareStartTimes,
  currentProcessIdentity,
  findExecutionProcesses,
  isProcessAlive,
  killExecutionLeftovers,
  listProcesses,
  probeProcess,
  readEnvironValue,
  readProcessStartTime,
  signalVerified,
  stopExecution,
  waitForExit,
} from "../../../src/core/processes/index.js";
import type { ExecutionTarget, ProcessIdentity } from "../../../src/core/processes/index.js";
import { Lab, exited, isLinux, parentOf, pgidOf, stateOf, waitFor } from "./support.js";

let lab: Lab;
beforeEach(() => {
  lab = new Lab();
});
afterEach(async () => {
  await lab.cleanup();
});

/** The target an executor spawned detached would record: itself, its own group, the marker. */
function targetOf(id: ProcessIdentity, marker?: { key: string; value: string }): ExecutionTarget {
  return marker === undefined
    ? { pid: id.pid, startTime: id.startTime, pgid: id.pid }
    : { pid: id.pid, startTime: id.startTime, pgid: id.pid, marker };
}

function pids(ids: ProcessIdentity[]): number[] {
  return ids.map((id) => id.pid).sort((a, b) => a - b);
}

function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Records every signal stopExecution reports. */
function signalLog() {
  const sent: Array<[number, string]> = [];
  return { sent, onSignal: (pid: number, signal: string) => void sent.push([pid, signal]) };
}

/** Spawns executor.mjs detached; resolves once executor, agent and grandchild have announced themselves. */
async function startExecution(options: { marker: boolean; setsid: boolean }) {
  const args = ["--dir", lab.dir];
  if (options.marker) args.push("--marker", `${lab.marker.key}=${lab.marker.value}`);
  if (options.setsid) args.push("--setsid");
  const child = lab.spawn("executor.mjs", args, { detached: true });
  const executor = await lab.waitPid("executor");
  const agent = await lab.waitPid("agent");
  const grandchild = await lab.waitPid("grandchild");
  const target = targetOf(executor, options.marker ? lab.marker : undefined);
  return { child, executor, agent, grandchild, target };
}

describe("findExecutionProcesses", () => {
  test("finds the executor, its agent and a grandchild that called setsid", async () => {
    const run = await startExecution({ marker: true, setsid: true });
    expect(pgidOf(run.executor.pid)).toBe(run.executor.pid);
    expect(pgidOf(run.agent.pid)).toBe(run.executor.pid);
    expect(pgidOf(run.grandchild.pid)).toBe(run.grandchild.pid);
    if (isLinux) {
      expect(readEnvironValue(run.agent.pid, lab.marker.key)).toBe(lab.marker.value);
      expect(readEnvironValue(run.grandchild.pid, lab.marker.key)).toBe(lab.marker.value);
    }

    const found = findExecutionProcesses(run.target);
    expect(pids(found)).toEqual(pids([run.executor, run.agent, run.grandchild]));
    expect(found[0]).toEqual(run.executor);
    for (const id of found) expect(isProcessAlive(id)).toBe(true);
  });

  test("without a marker, the setsid grandchild is still found through parent links", async () => {
    const run = await startExecution({ marker: false, setsid: true });
    expect(pids(findExecutionProcesses(run.target))).toEqual(pids([run.executor, run.agent, run.grandchild]));
  });

  test("leaves out group members that started before the executor", async () => {
    // Treat the agent as the "executor" of a group led by an older process.
    const run = await startExecution({ marker: false, setsid: false });
    expect(compareStartTimes(run.executor.startTime, run.agent.startTime)).toBeLessThan(0);
    const target: ExecutionTarget = { pid: run.agent.pid, startTime: run.agent.startTime, pgid: run.executor.pid };
    expect(pids(findExecutionProcesses(target))).toEqual(pids([run.agent, run.grandchild]));
  });

  test("a reused executor pid finds nothing, and stopExecution signals nothing", async () => {
    const run = await startExecution({ marker: false, setsid: false });
    // The recorded executor started "earlier" than whatever holds its pid now.
    const earlier = /^\d+$/.test(run.executor.startTime)
      ? (BigInt(run.executor.startTime) - 1n).toString()
      : "Thu Jan 1 00:00:00 1970";
    const target: ExecutionTarget = { pid: run.executor.pid, startTime: earlier, pgid: run.executor.pid };
    expect(probeProcess(target)).toBe("reused");
    expect(findExecutionProcesses(target)).toEqual([]);

    const log = signalLog();
    const result = await stopExecution(target, { graceMs: 200, killWaitMs: 200, onSignal: log.onSignal });
    expect(result).toEqual({ confirmed: true, signalled: [], survivors: [] });
    expect(log.sent).toEqual([]);
    for (const id of [run.executor, run.agent, run.grandchild]) expect(probeProcess(id)).toBe("alive");
  });

  test("never includes the calling process or its ancestors, even when they match every rule", () => {
    const table = listProcesses();
    const byPid = new Map(table.map((row) => [row.pid, row]));
    const ancestors: number[] = [];
    for (let row = byPid.get(process.pid); row !== undefined && row.ppid > 0; row = byPid.get(row.ppid)) {
      ancestors.push(row.ppid);
    }
    const self = currentProcessIdentity();
    const ownGroup = byPid.get(process.pid)?.pgid;
    expect(ownGroup).toBeDefined();
    // Old enough that every ancestor in our group qualifies by start time.
    const oldest = [self.startTime, ...ancestors.map((pid) => byPid.get(pid)?.startTime ?? self.startTime)].reduce(
      (a, b) => (compareStartTimes(a, b) <= 0 ? a : b),
    );
    // A marker this process really carries in its initial environment.
    const home = process.env.CODEALMANAC_HOME ?? "";
    const marker = { key: "CODEALMANAC_HOME", value: home };
    if (isLinux) expect(readEnvironValue(process.pid, marker.key)).toBe(home);

    const found = findExecutionProcesses({ pid: self.pid, startTime: oldest, pgid: ownGroup!, marker });
    const foundPids = found.map((id) => id.pid);
    expect(foundPids).not.toContain(process.pid);
    for (const pid of ancestors) expect(foundPids).not.toContain(pid);
    expect(foundPids).not.toContain(1);
  });
});

describe("stopExecution", () => {
  test("stops executor, agent and setsid grandchild, and confirms", async () => {
    const run = await startExecution({ marker: true, setsid: true });
    const log = signalLog();
    const result = await stopExecution(run.target, { onSignal: log.onSignal });

    expect(result.confirmed).toBe(true);
    expect(result.survivors).toEqual([]);
    expect(sorted(result.signalled)).toEqual(pids([run.executor, run.agent, run.grandchild]));
    expect(log.sent.filter(([, signal]) => signal === "SIGTERM").map(([pid]) => pid)).toHaveLength(3);
    for (const id of [run.executor, run.agent, run.grandchild]) expect(isProcessAlive(id)).toBe(false);
    expect(await exited(run.child)).toEqual({ code: null, signal: "SIGTERM" });
    expect(findExecutionProcesses(run.target)).toEqual([]);
  });

  test("SIGKILLs a process that ignores SIGTERM once the grace period ends", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("stubborn"), "--ignore-term"], {
      detached: true,
    });
    const id = await lab.waitPid("stubborn");
    const log = signalLog();
    const result = await stopExecution(targetOf(id), { graceMs: 300, onSignal: log.onSignal });

    expect(result).toEqual({ confirmed: true, signalled: [id.pid], survivors: [] });
    expect(log.sent).toEqual([
      [id.pid, "SIGTERM"],
      [id.pid, "SIGKILL"],
    ]);
    expect(await exited(child)).toEqual({ code: null, signal: "SIGKILL" });
  });

  test.each([
    { detachLate: false, marker: false },
    { detachLate: false, marker: true },
    ...(isLinux ? [{ detachLate: true, marker: true }] : []),
  ])("catches a child forked in reply to SIGTERM (%o)", async ({ detachLate, marker }) => {
    const env = marker ? { ...process.env, [lab.marker.key]: lab.marker.value } : process.env;
    const args = ["--dir", lab.dir];
    if (detachLate) args.push("--detach-late");
    const child = lab.spawn("fork-on-term.mjs", args, { detached: true, env });
    const forker = await lab.waitPid("forker");
    const target = targetOf(forker, marker ? lab.marker : undefined);
    expect(pids(findExecutionProcesses(target))).toEqual([forker.pid]);

    const log = signalLog();
    const result = await stopExecution(target, { graceMs: 5_000, onSignal: log.onSignal });

    expect(existsSync(lab.pidFile("late"))).toBe(true);
    const late = Number(readFileSync(lab.pidFile("late"), "utf8"));
    expect(result.confirmed).toBe(true);
    expect(result.survivors).toEqual([]);
    expect(log.sent).toContainEqual([forker.pid, "SIGTERM"]);
    expect(log.sent).toContainEqual([late, "SIGKILL"]);
    expect(log.sent).not.toContainEqual([late, "SIGTERM"]);
    expect(readProcessStartTime(late)).toBeNull();
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  test("resumes a stopped process after SIGTERM instead of waiting out the grace period", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("frozen")], { detached: true });
    const id = await lab.waitPid("frozen");
    process.kill(id.pid, "SIGSTOP");
    await waitFor(() => stateOf(id.pid)?.startsWith("T") === true, "the process to stop");

    const log = signalLog();
    const result = await stopExecution(targetOf(id), { graceMs: 20_000, onSignal: log.onSignal });
    expect(result.confirmed).toBe(true);
    expect(log.sent).toEqual([
      [id.pid, "SIGTERM"],
      [id.pid, "SIGCONT"],
    ]);
    expect(await exited(child)).toEqual({ code: null, signal: "SIGTERM" });
  });

  test("a zombie counts as dead", async () => {
    const child = lab.spawn("zombie-parent.mjs", ["--dir", lab.dir], { detached: true });
    const parent = await lab.waitPid("parent");
    const zombiePid = Number(readFileSync(lab.pidFile("zombie"), "utf8"));
    await waitFor(() => stateOf(zombiePid)?.startsWith("Z") === true, "the child to become a zombie");

    const row = listProcesses().find((p) => p.pid === zombiePid);
    expect(row?.ppid).toBe(parent.pid);
    const zombie: ProcessIdentity = { pid: zombiePid, startTime: row!.startTime };
    expect(readProcessStartTime(zombiePid)).toBeNull();
    expect(isProcessAlive(zombie)).toBe(false);
    expect(probeProcess(zombie)).toBe("gone");
    expect(await waitForExit(zombie, 0)).toBe(true);
    expect(signalVerified(zombie, "SIGKILL")).toBe(false);

    const target = targetOf(parent);
    expect(pids(findExecutionProcesses(target))).toEqual([parent.pid]);
    const log = signalLog();
    const result = await stopExecution(target, { onSignal: log.onSignal });
    expect(result).toEqual({ confirmed: true, signalled: [parent.pid], survivors: [] });
    expect(log.sent).toEqual([[parent.pid, "SIGTERM"]]);
    expect(await exited(child)).toEqual({ code: null, signal: "SIGTERM" });
  });
});

describe("killExecutionLeftovers", () => {
  test("after the executor was SIGKILLed, kills its orphaned agent and grandchild", async () => {
    const run = await startExecution({ marker: true, setsid: true });
    process.kill(run.executor.pid, "SIGKILL");
    expect(await exited(run.child)).toEqual({ code: null, signal: "SIGKILL" });
    await waitFor(() => parentOf(run.agent.pid) !== run.executor.pid, "the agent to be orphaned");

    const found = findExecutionProcesses(run.target);
    expect(pids(found)).toEqual(pids([run.agent, run.grandchild]));
    const result = await killExecutionLeftovers(run.target);
    expect(result).toEqual({ confirmed: true, survivors: [] });
    expect(isProcessAlive(run.agent)).toBe(false);
    expect(isProcessAlive(run.grandchild)).toBe(false);
  });

  test.runIf(isLinux)("finds a setsid grandchild orphaned from everything by its marker alone", async () => {
    const run = await startExecution({ marker: true, setsid: true });
    process.kill(run.executor.pid, "SIGKILL");
    process.kill(run.agent.pid, "SIGKILL");
    await exited(run.child);
    // A multi-threaded process can show as a zombie before its children are re-parented.
    await waitFor(() => parentOf(run.grandchild.pid) !== run.agent.pid, "the grandchild to be orphaned");
    expect(isProcessAlive(run.agent)).toBe(false);
    expect(pgidOf(run.grandchild.pid)).not.toBe(run.target.pgid);

    const log = signalLog();
    const result = await killExecutionLeftovers(run.target, { onSignal: log.onSignal });
    expect(result).toEqual({ confirmed: true, survivors: [] });
    expect(log.sent).toEqual([[run.grandchild.pid, "SIGKILL"]]);
    expect(isProcessAlive(run.grandchild)).toBe(false);
  });

  test("finds an orphaned grandchild by process group alone", async () => {
    const run = await startExecution({ marker: false, setsid: false });
    process.kill(run.executor.pid, "SIGKILL");
    process.kill(run.agent.pid, "SIGKILL");
    await exited(run.child);
    await waitFor(() => parentOf(run.grandchild.pid) !== run.agent.pid, "the grandchild to be orphaned");
    expect(isProcessAlive(run.agent)).toBe(false);
    expect(pgidOf(run.grandchild.pid)).toBe(run.target.pgid);

    const log = signalLog();
    const result = await killExecutionLeftovers(run.target, { onSignal: log.onSignal });
    expect(result).toEqual({ confirmed: true, survivors: [] });
    expect(log.sent).toEqual([[run.grandchild.pid, "SIGKILL"]]);
  });

  test("with nothing left, confirms at once", async () => {
    const run = await startExecution({ marker: true, setsid: false });
    const stopped = await stopExecution(run.target, { graceMs: 2_000 });
    expect(stopped.confirmed).toBe(true);
    expect(await killExecutionLeftovers(run.target)).toEqual({ confirmed: true, survivors: [] });
  });
});

describe("the caller is never signalled", () => {
  let bundleDir: string;
  let bundle: string;
  beforeAll(async () => {
    // A child process cannot import TypeScript directly, so bundle the module for it.
    bundleDir = mkdtempSync(join(tmpdir(), "ca-processes-bundle-"));
    bundle = join(bundleDir, "processes.mjs");
    await build({
      entryPoints: [fileURLToPath(new URL("../../../src/core/processes/index.ts", import.meta.url))],
      outfile: bundle,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      logLevel: "silent",
    });
  });
  afterAll(() => {
    rmSync(bundleDir, { recursive: true, force: true });
  });

  test("an executor carrying the marker stops its own execution and survives", async () => {
    const env = { ...process.env, [lab.marker.key]: lab.marker.value };
    lab.spawn("self-stop.mjs", ["--dir", lab.dir, "--bundle", bundle, "--marker", lab.marker.key], {
      detached: true,
      env,
    });
    const self = await lab.waitPid("self");
    if (isLinux) expect(readEnvironValue(self.pid, lab.marker.key)).toBe(lab.marker.value);
    const resultFile = join(lab.dir, "result.json");
    await waitFor(() => existsSync(resultFile), "the self-stop result");

    // The fixture records the agent's identity itself: by the time this test could read
    // /proc, the agent may already be gone (that is the point of the test).
    const result = JSON.parse(readFileSync(resultFile, "utf8")) as {
      self: number;
      agent: { pid: number; startTime: string };
      found: number[];
      stop: { confirmed: boolean; signalled: number[]; survivors: number[] };
    };
    const agent = result.agent;
    const context = JSON.stringify({ result, agent: agent.pid, self: self.pid });
    expect(result.self, context).toBe(self.pid);
    expect(result.found, context).toEqual([agent.pid]);
    expect(result.stop, context).toEqual({ confirmed: true, signalled: [agent.pid], survivors: [] });
    expect(probeProcess(self)).toBe("alive");
    expect(isProcessAlive(agent)).toBe(false);
  });
});
