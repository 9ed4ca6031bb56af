import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { backendFor, compareStartTimes, processesOn } from "../../../src/core/processes/index.js";
import type { ExecutionTarget, ProcessIdentity, Processes } from "../../../src/core/processes/index.js";
import { createPsBackend, isDeadState, macosBackend, parseEnvironLine, parsePsLine, procBackend } from "../../../src/core/processes/platform.js";
import type { ProcessBackend } from "../../../src/core/processes/platform.js";
import { Lab, MARKER_KEY, exited, fixture, isLinux, parentOf, pgidOf, stateOf, waitFor } from "./support.js";

// The macOS code path. There is no macOS machine here, so these tests inject the
// `ps` backend with a stand-in `ps` first on PATH (fixtures/macos-ps/ps) that
// reads this machine's real processes and prints them in Apple's formats.

const LSTART = /^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/;
const marker = { key: MARKER_KEY, value: "e-7f3a" };

test("each platform gets its backend: /proc on Linux, /bin/ps on macOS, a clear refusal on Windows", () => {
  expect(backendFor("linux")).toBe(procBackend);
  expect(backendFor("darwin")).toBe(macosBackend);
  expect(() => backendFor("win32").list()).toThrow("process control is not supported on win32");
});

describe("parsing Apple's ps output", () => {
  test("a row: pid, ppid, pgid, state with its flags, and lstart with the day's padding collapsed", () => {
    expect(parsePsLine("    1     0     1 Ss   Tue Dec  1 08:01:12 2026")).toEqual({
      pid: 1,
      ppid: 0,
      pgid: 1,
      state: "Ss",
      startTime: "Tue Dec 1 08:01:12 2026",
    });
    // lstart is padded to its column even when it is the last one.
    expect(parsePsLine("  812   811   812 R+   Mon Nov 30 23:59:59 2026    ")).toMatchObject({ state: "R+", startTime: "Mon Nov 30 23:59:59 2026" });
    expect(parsePsLine("99213   812   812 U<   Tue Dec  1 21:15:38 2026")).toMatchObject({ pid: 99213, state: "U<" });
    expect(parsePsLine("  913   812   812 I    Tue Dec  1 21:15:38 2026")).toMatchObject({ state: "I" });
    const zombie = parsePsLine("  914   812   812 Z    Tue Dec  1 21:15:38 2026");
    expect(zombie?.state).toBe("Z");
    expect(isDeadState(zombie!.state)).toBe(true);
    expect(isDeadState("Ss")).toBe(false);
  });

  test("a header, a cut lstart, a command column or garbage is not a row", () => {
    expect(parsePsLine("  PID  PPID  PGID STAT STARTED")).toBeNull();
    expect(parsePsLine("  915     1   915 S    Tue Dec  1 21:15 2026")).toBeNull();
    expect(parsePsLine("  915     1   915 S    Tue Dec  1 21:15:38 2026 /bin/sleep")).toBeNull();
    expect(parsePsLine("  915     1   915 ?    Tue Dec  1 21:15:38 2026")).toBeNull();
    expect(parsePsLine("  -5     1   915 S    Tue Dec  1 21:15:38 2026")).toBeNull();
    expect(parsePsLine("")).toBeNull();
  });

  test("a `ps -E` line carries the marker only as a whole word", () => {
    const line = `  812 /usr/local/bin/node agent.mjs --dir /tmp/a b HOME=/Users/me ${marker.key}=${marker.value} PATH=/usr/bin:/bin`;
    expect(parseEnvironLine(line, marker)).toBe(812);
    expect(parseEnvironLine(line.replace(marker.value, `${marker.value}x`), marker)).toBeNull();
    expect(parseEnvironLine(line, { key: marker.key, value: "e-7f" })).toBeNull();
    expect(parseEnvironLine(`  812 ${marker.key}=${marker.value}`, marker)).toBe(812);
    expect(parseEnvironLine("  813 <defunct>", marker)).toBeNull();
    expect(parseEnvironLine("PID COMMAND", marker)).toBeNull();
  });

  test("lstart has whole seconds: two processes started within one second compare equal", () => {
    expect(compareStartTimes("Tue Dec 1 21:15:38 2026", "Tue Dec 1 21:15:38 2026")).toBe(0);
    expect(compareStartTimes("Tue Dec 1 21:15:38 2026", "Tue Dec 1 21:15:39 2026")).toBeLessThan(0);
    expect(compareStartTimes("Fri Jan 1 00:00:00 2027", "Thu Dec 31 23:59:59 2026")).toBeGreaterThan(0);
  });
});

/** The ps backend running the stand-in, with its call log and per-pid overrides. */
class MacOs {
  readonly log: string;
  readonly overridesFile: string;
  readonly backend: ProcessBackend;
  readonly os: Processes;
  private overrides: Record<string, { lstart?: string; shielded?: boolean }> = {};

  constructor(dir: string) {
    this.log = join(dir, "ps-calls.jsonl");
    this.overridesFile = join(dir, "ps-overrides.json");
    const env = { ...process.env, PATH: `${fixture("macos-ps")}:${process.env.PATH ?? ""}`, FAKE_PS_LOG: this.log, FAKE_PS_OVERRIDES: this.overridesFile };
    this.backend = createPsBackend({ env });
    this.os = processesOn(this.backend);
  }

  /** Every ps invocation so far, as its argument list. */
  calls(): string[][] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as string[]);
  }

  override(pid: number, value: { lstart?: string; shielded?: boolean }): void {
    this.overrides[String(pid)] = value;
    writeFileSync(this.overridesFile, JSON.stringify(this.overrides));
  }

  /** A process as this backend names it (lstart, not clock ticks). */
  identity(pid: number): ProcessIdentity {
    const startTime = this.os.readProcessStartTime(pid);
    if (startTime === null) throw new Error(`${pid} is not alive`);
    return { pid, startTime };
  }

  target(executor: ProcessIdentity, withMarker = true): ExecutionTarget {
    const id = this.identity(executor.pid);
    return { pid: id.pid, startTime: id.startTime, pgid: id.pid, ...(withMarker ? { marker: lab.marker } : {}) };
  }
}

/** Records each signal with the number of ps calls made before it. */
function signalLog(mac: MacOs) {
  const sent: Array<{ pid: number; signal: string; psCalls: number }> = [];
  return { sent, onSignal: (pid: number, signal: string) => void sent.push({ pid, signal, psCalls: mac.calls().length }) };
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

let lab: Lab;
let mac: MacOs;
beforeEach(() => {
  lab = new Lab();
  mac = new MacOs(lab.dir);
});
afterEach(async () => {
  await lab.cleanup();
});

/** executor.mjs detached (its own group), its agent, and a grandchild that calls setsid; all carry the marker. */
async function startExecution() {
  const child = lab.spawn("executor.mjs", ["--dir", lab.dir, "--marker", `${lab.marker.key}=${lab.marker.value}`, "--setsid"], { detached: true });
  const executor = mac.identity((await lab.waitPid("executor")).pid);
  const agent = mac.identity((await lab.waitPid("agent")).pid);
  const grandchild = mac.identity((await lab.waitPid("grandchild")).pid);
  return { child, executor, agent, grandchild, target: mac.target(executor) };
}

// The stand-in reads /proc, so it runs where /proc exists.
describe.runIf(isLinux)("the macOS backend, against real processes", () => {
  test("the stand-in is the ps that runs", () => {
    mac.os.readProcessStartTime(process.pid);
    expect(mac.calls()).toEqual([["-ww", "-o", "pid=,ppid=,pgid=,state=,lstart=", "-p", String(process.pid)]]);
  });

  test("probe: alive with an exact lstart, reused when the pid's lstart differs, gone once it exits", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("child")]);
    const id = mac.identity((await lab.waitPid("child")).pid);
    expect(id.startTime).toMatch(LSTART);
    expect(mac.os.readProcessStartTime(id.pid)).toBe(id.startTime);
    expect(mac.os.probeProcess(id)).toBe("alive");
    expect(mac.os.groupOf(id.pid)).toBe(pgidOf(id.pid));

    mac.override(id.pid, { lstart: "Thu Jan  1 00:00:00 1970" });
    expect(mac.os.probeProcess(id)).toBe("reused");
    expect(mac.os.isProcessAlive(id)).toBe(false);
    expect(mac.os.signalVerified(id, "SIGKILL")).toBe(false);
    mac.override(id.pid, {});

    expect(mac.os.signalVerified(id, "SIGKILL")).toBe(true);
    await exited(child);
    await waitFor(() => mac.os.probeProcess(id) === "gone", "ps to stop listing the child");
    expect(await mac.os.waitForExit(id, 0)).toBe(true);
  });

  test("many pids are read with one ps call", async () => {
    lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("a")]);
    lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("b")]);
    const a = (await lab.waitPid("a")).pid;
    const b = (await lab.waitPid("b")).pid;
    const before = mac.calls().length;
    const read = mac.backend.lookup([a, b, process.pid]);
    expect(mac.calls().length).toBe(before + 1);
    expect(mac.calls().at(-1)).toEqual(["-ww", "-o", "pid=,ppid=,pgid=,state=,lstart=", "-p", `${a},${b},${process.pid}`]);
    expect(read(a)?.pid).toBe(a);
    expect(read(b)?.ppid).toBe(process.pid);
    expect(read(999_999_999)).toBeNull();
    expect(mac.calls().length).toBe(before + 1);
  });

  test("finds executor, agent and setsid grandchild with two ps calls: the table and one -E for the marker", async () => {
    const run = await startExecution();
    const before = mac.calls().length;
    const found = mac.os.findExecutionProcesses(run.target);
    expect(found[0]).toEqual(run.executor);
    expect(sorted(found.map((id) => id.pid))).toEqual(sorted([run.executor.pid, run.agent.pid, run.grandchild.pid]));
    const calls = mac.calls().slice(before);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toEqual(["-A", "-ww", "-o", "pid=,ppid=,pgid=,state=,lstart="]);
    expect(calls[1]?.slice(0, 5)).toEqual(["-E", "-ww", "-o", "pid=,command=", "-p"]);
  });

  test("without the marker, the group and the parent links find everything, and an orphan in the group is still found", async () => {
    const run = await startExecution();
    const bare = mac.target(run.executor, false);
    expect(sorted(mac.os.findExecutionProcesses(bare).map((id) => id.pid))).toEqual(sorted([run.executor.pid, run.agent.pid, run.grandchild.pid]));
    expect(mac.calls().some((args) => args.includes("-E"))).toBe(false);

    // Kill the executor: the agent, orphaned, is still in the executor's group.
    process.kill(run.executor.pid, "SIGKILL");
    await exited(run.child);
    await waitFor(() => parentOf(run.agent.pid) !== run.executor.pid, "the agent to be orphaned");
    expect(sorted(mac.os.findExecutionProcesses(bare).map((id) => id.pid))).toEqual(sorted([run.agent.pid, run.grandchild.pid]));
    expect(await mac.os.killExecutionLeftovers(bare)).toEqual({ confirmed: true, survivors: [] });
    expect(mac.os.isProcessAlive(run.agent)).toBe(false);
    expect(mac.os.isProcessAlive(run.grandchild)).toBe(false);
  });

  test("an orphan that left the group is found by its marker through ps -E, unless the system shields its environment", async () => {
    const run = await startExecution();
    process.kill(run.executor.pid, "SIGKILL");
    process.kill(run.agent.pid, "SIGKILL");
    await exited(run.child);
    await waitFor(() => parentOf(run.grandchild.pid) !== run.agent.pid, "the grandchild to be orphaned");

    expect(mac.os.findExecutionProcesses(run.target)).toEqual([run.grandchild]);
    // macOS omits the environment of a restricted binary: the marker cannot reach it.
    mac.override(run.grandchild.pid, { shielded: true });
    expect(mac.os.findExecutionProcesses(run.target)).toEqual([]);
    mac.override(run.grandchild.pid, {});

    const log = signalLog(mac);
    expect(await mac.os.killExecutionLeftovers(run.target, { onSignal: log.onSignal })).toEqual({ confirmed: true, survivors: [] });
    expect(log.sent.map(({ pid, signal }) => [pid, signal])).toEqual([[run.grandchild.pid, "SIGKILL"]]);
  });

  test("stop: every SIGTERM is verified by one ps call before the first goes out, and the stop is confirmed", async () => {
    const run = await startExecution();
    const log = signalLog(mac);
    const result = await mac.os.stopExecution(run.target, { onSignal: log.onSignal });

    expect(result.confirmed).toBe(true);
    expect(result.survivors).toEqual([]);
    const all = sorted([run.executor.pid, run.agent.pid, run.grandchild.pid]);
    expect(sorted(result.signalled)).toEqual(all);
    const terms = log.sent.filter((s) => s.signal === "SIGTERM");
    expect(sorted(terms.map((s) => s.pid))).toEqual(all);
    expect(new Set(terms.map((s) => s.psCalls)).size).toBe(1);
    expect(await exited(run.child)).toEqual({ code: null, signal: "SIGTERM" });
    for (const id of [run.executor, run.agent, run.grandchild]) expect(mac.os.isProcessAlive(id)).toBe(false);
  });

  test("stop: a stopped process (state T) gets SIGCONT after its SIGTERM", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("frozen")], { detached: true });
    const id = mac.identity((await lab.waitPid("frozen")).pid);
    process.kill(id.pid, "SIGSTOP");
    await waitFor(() => stateOf(id.pid)?.startsWith("T") === true, "the process to stop");
    expect(mac.backend.readInfo(id.pid)?.state).toMatch(/^T/);

    const log = signalLog(mac);
    const result = await mac.os.stopExecution(mac.target(id, false), { graceMs: 20_000, onSignal: log.onSignal });
    expect(result.confirmed).toBe(true);
    expect(log.sent.map(({ pid, signal }) => [pid, signal])).toEqual([
      [id.pid, "SIGTERM"],
      [id.pid, "SIGCONT"],
    ]);
    expect(await exited(child)).toEqual({ code: null, signal: "SIGTERM" });
  });

  test("stop: a process that ignores SIGTERM is SIGKILLed after the grace period", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("stubborn"), "--ignore-term"], { detached: true });
    const id = mac.identity((await lab.waitPid("stubborn")).pid);
    const log = signalLog(mac);
    const result = await mac.os.stopExecution(mac.target(id, false), { graceMs: 300, onSignal: log.onSignal });
    expect(result).toEqual({ confirmed: true, signalled: [id.pid], survivors: [] });
    expect(log.sent.map(({ pid, signal }) => [pid, signal])).toEqual([
      [id.pid, "SIGTERM"],
      [id.pid, "SIGKILL"],
    ]);
    expect(await exited(child)).toEqual({ code: null, signal: "SIGKILL" });
  });

  test("stop: an executor pid whose lstart changed is a stranger, and nothing is signalled", async () => {
    const run = await startExecution();
    // Without the marker: the group and the tree are all that tie the others to it.
    const target = mac.target(run.executor, false);
    mac.override(run.executor.pid, { lstart: "Thu Jan  1 00:00:00 1970" });
    expect(mac.os.probeProcess(target)).toBe("reused");
    expect(mac.os.findExecutionProcesses(target)).toEqual([]);

    const log = signalLog(mac);
    const result = await mac.os.stopExecution(target, { graceMs: 200, killWaitMs: 200, onSignal: log.onSignal });
    expect(result).toEqual({ confirmed: true, signalled: [], survivors: [] });
    expect(log.sent).toEqual([]);
    mac.override(run.executor.pid, {});
    for (const id of [run.executor, run.agent, run.grandchild]) expect(mac.os.probeProcess(id)).toBe("alive");
  });

  test("a zombie is dead: never signalled, and its parent's stop ends with the parent", async () => {
    const child = lab.spawn("zombie-parent.mjs", ["--dir", lab.dir], { detached: true });
    const parent = mac.identity((await lab.waitPid("parent")).pid);
    const zombiePid = Number(readFileSync(lab.pidFile("zombie"), "utf8"));
    await waitFor(() => stateOf(zombiePid)?.startsWith("Z") === true, "the child to become a zombie");

    const row = mac.backend.readInfo(zombiePid);
    expect(row).toMatchObject({ pid: zombiePid, ppid: parent.pid, state: "Z" });
    const zombie = { pid: zombiePid, startTime: row!.startTime };
    expect(mac.os.probeProcess(zombie)).toBe("gone");
    expect(mac.os.signalVerified(zombie, "SIGKILL")).toBe(false);

    const log = signalLog(mac);
    const result = await mac.os.stopExecution(mac.target(parent, false), { onSignal: log.onSignal });
    expect(result).toEqual({ confirmed: true, signalled: [parent.pid], survivors: [] });
    expect(log.sent.map(({ pid, signal }) => [pid, signal])).toEqual([[parent.pid, "SIGTERM"]]);
    expect(await exited(child)).toEqual({ code: null, signal: "SIGTERM" });
  });
});
