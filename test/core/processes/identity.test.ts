import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { chmodSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  compareStartTimes,
  currentProcessIdentity,
  isProcessAlive,
  listProcesses,
  probeProcess,
  readEnvironValue,
  readProcessStartTime,
  signalVerified,
  waitForExit,
} from "../../../src/core/processes/index.js";
import type { ProcessIdentity } from "../../../src/core/processes/index.js";
import { parseProcStat, parsePsLine, procBackend, psBackend } from "../../../src/core/processes/platform.js";
import { Lab, exited, isLinux, waitFor } from "./support.js";

/** A start time that is valid in form but not this process's. */
function fabricatedStartTime(real: string): string {
  if (/^\d+$/.test(real)) return real === "0" ? "1" : (BigInt(real) - 1n).toString();
  return "Thu Jan 1 00:00:00 1970";
}

/** What readEnvironValue says of `pid`'s PATH here, and whether its environ file could be read at all. */
function readEnvironHere(pid: number): { readable: boolean; value: string | null } {
  let readable = true;
  try {
    readFileSync(`/proc/${pid}/environ`);
  } catch {
    readable = false;
  }
  return { readable, value: readEnvironValue(pid, "PATH") };
}

/** The same question asked from a process of the unprivileged user `nobody`. */
function readEnvironAsNobody(dir: string, pid: number): { readable: boolean; value: string | null } {
  const reader = join(dir, "environ-reader.mjs");
  buildSync({
    stdin: {
      contents: [
        'import { readFileSync } from "node:fs";',
        `import { readEnvironValue } from ${JSON.stringify(fileURLToPath(new URL("../../../src/core/processes/index.ts", import.meta.url)))};`,
        "const pid = Number(process.argv[2]);",
        "let readable = true;",
        "try { readFileSync(`/proc/${pid}/environ`); } catch { readable = false; }",
        'process.stdout.write(JSON.stringify({ readable, value: readEnvironValue(pid, "PATH") }));',
      ].join("\n"),
      resolveDir: dir,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: reader,
    logLevel: "silent",
  });
  chmodSync(dir, 0o755);
  chmodSync(reader, 0o644);
  const run = spawnSync(process.execPath, [reader, String(pid)], { uid: NOBODY, gid: NOBODY, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`the reader failed (exit ${run.status}):\n${run.stderr}`);
  return JSON.parse(run.stdout) as { readable: boolean; value: string | null };
}

/** Debian's `nobody`. */
const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

function pid1IsForeign(): boolean {
  try {
    return statSync("/proc/1").uid !== process.getuid?.();
  } catch {
    return false;
  }
}

let lab: Lab;
beforeEach(() => {
  lab = new Lab();
});
afterEach(async () => {
  await lab.cleanup();
});

describe("parsing", () => {
  test("/proc/<pid>/stat is read from after the last parenthesis", () => {
    const tail = Array.from({ length: 49 }, (_, i) => String(100 + i));
    tail[0] = "S"; // field 3: state
    tail[1] = "41"; // field 4: ppid
    tail[2] = "42"; // field 5: pgrp
    tail[19] = "987654321"; // field 22: start time
    const text = `4242 (evil) Z 1 2 (x) y) ${tail.join(" ")}\n`;
    expect(parseProcStat(text)).toEqual({ pid: 4242, ppid: 41, pgid: 42, startTime: "987654321", state: "S" });
    expect(parseProcStat("garbage")).toBeNull();
    expect(parseProcStat("12 (x) S 1 2")).toBeNull();
  });

  test("ps lines keep the whole lstart, with padding collapsed", () => {
    expect(parsePsLine("  812     1   812 Ss   Sat Nov  1 09:05:07 2025")).toEqual({
      pid: 812,
      ppid: 1,
      pgid: 812,
      state: "Ss",
      startTime: "Sat Nov 1 09:05:07 2025",
    });
    expect(parsePsLine("PID PPID")).toBeNull();
  });

  test("compareStartTimes orders clock ticks numerically, beyond 2^53", () => {
    expect(compareStartTimes("9", "10")).toBeLessThan(0);
    expect(compareStartTimes("10", "9")).toBeGreaterThan(0);
    expect(compareStartTimes("61826", "61826")).toBe(0);
    expect(compareStartTimes("9007199254740993", "9007199254740992")).toBeGreaterThan(0);
  });

  test("compareStartTimes orders lstart dates", () => {
    expect(compareStartTimes("Sat Nov 1 09:05:07 2025", "Sat Nov  1 09:05:08 2025")).toBeLessThan(0);
    expect(compareStartTimes("Mon Dec 1 00:00:00 2025", "Sun Nov 30 23:59:59 2025")).toBeGreaterThan(0);
    expect(compareStartTimes("Thu Jan 1 00:00:00 2026", "Wed Dec 31 23:59:59 2025")).toBeGreaterThan(0);
    expect(compareStartTimes("Sat Nov 1 09:05:07 2025", "Sat Nov  1 09:05:07 2025")).toBe(0);
    expect(() => compareStartTimes("soon", "later")).toThrow(RangeError);
    expect(() => compareStartTimes("12345", "Sat Nov 1 09:05:07 2025")).toThrow(RangeError);
  });
});

describe("identity", () => {
  test("of this process: cached, alive, and matching the process table", () => {
    const self = currentProcessIdentity();
    expect(self.pid).toBe(process.pid);
    expect(self.startTime).toBe(readProcessStartTime(process.pid));
    expect(currentProcessIdentity()).toEqual(self);
    expect(isProcessAlive(self)).toBe(true);
    expect(probeProcess(self)).toBe("alive");
    const row = listProcesses().find((p) => p.pid === process.pid);
    expect(row).toMatchObject({ pid: process.pid, ppid: process.ppid, startTime: self.startTime });
  });

  test("of a child: started after us, alive, then gone once it exits", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("child")]);
    const id = await lab.waitPid("child");
    expect(id.pid).toBe(child.pid);
    expect(compareStartTimes(id.startTime, currentProcessIdentity().startTime)).toBeGreaterThanOrEqual(0);
    expect(probeProcess(id)).toBe("alive");

    expect(signalVerified(id, "SIGTERM")).toBe(true);
    expect(await exited(child)).toEqual({ code: null, signal: "SIGTERM" });
    expect(readProcessStartTime(id.pid)).toBeNull();
    expect(probeProcess(id)).toBe("gone");
    expect(isProcessAlive(id)).toBe(false);
    expect(signalVerified(id, "SIGKILL")).toBe(false);
    expect(await waitForExit(id, 0)).toBe(true);
  });

  test("a wrong start time reads as reused, and signalVerified refuses to touch the process", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("child"), "--pong"], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    const real = await lab.waitPid("child");
    const stranger: ProcessIdentity = { pid: real.pid, startTime: fabricatedStartTime(real.startTime) };

    expect(probeProcess(stranger)).toBe("reused");
    expect(isProcessAlive(stranger)).toBe(false);
    expect(signalVerified(stranger, "SIGKILL")).toBe(false);
    expect(await waitForExit(stranger, 0)).toBe(true);

    // Had SIGKILL been sent, the child could never run again: a reply proves it was not.
    const lines = createInterface({ input: child.stdout! });
    const reply = once(lines, "line");
    child.stdin!.write("ping\n");
    expect((await reply)[0]).toBe("pong");
    expect(probeProcess(real)).toBe("alive");
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBeNull();
    lines.close();
  });

  test("waitForExit waits for a process that is not our child, and times out on a live one", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("child")]);
    const id = await lab.waitPid("child");
    expect(await waitForExit(id, 50, 10)).toBe(false);
    const waiting = waitForExit(id, 10_000, 10);
    process.kill(id.pid, "SIGKILL");
    expect(await waiting).toBe(true);
    await exited(child);
  });

  test("invalid pids are never processes", () => {
    for (const pid of [0, -1, -process.pid, 1.5, Number.NaN]) {
      expect(readProcessStartTime(pid)).toBeNull();
      expect(readEnvironValue(pid, "PATH")).toBeNull();
      expect(signalVerified({ pid, startTime: "1" }, "SIGKILL")).toBe(false);
    }
  });

  test.runIf(isLinux)("a command name with spaces and parentheses does not confuse /proc parsing", async () => {
    lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("odd"), "--title", "a) Z (b 1 2"]);
    const id = await lab.waitPid("odd");
    expect(readFileSync(`/proc/${id.pid}/stat`, "latin1")).toContain("(a) Z (b 1 2) ");
    const row = procBackend.readInfo(id.pid);
    expect(row).toMatchObject({ pid: id.pid, ppid: process.pid, startTime: id.startTime });
    expect(row?.state).not.toBe("Z");
  });
});

describe.runIf(isLinux)("readEnvironValue", () => {
  test("reads a child's initial environment exactly", async () => {
    lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("child")], {
      env: { ...process.env, [lab.marker.key]: lab.marker.value, CA_EMPTY: "", CA_EQ: "a=b=c" },
    });
    const id = await lab.waitPid("child");
    expect(readEnvironValue(id.pid, lab.marker.key)).toBe(lab.marker.value);
    expect(readEnvironValue(id.pid, "CA_EMPTY")).toBe("");
    expect(readEnvironValue(id.pid, "CA_EQ")).toBe("a=b=c");
    expect(readEnvironValue(id.pid, "CA_EQ=a")).toBeNull();
    expect(readEnvironValue(id.pid, "CA_ABSENT")).toBeNull();
  });

  test.runIf(isRoot || pid1IsForeign())("is null for a process we may not read", () => {
    // Root may read every environment, so then the reader runs as `nobody` and looks at this
    // (root's) process; any other user looks at PID 1, which belongs to someone else.
    const seen = isRoot ? readEnvironAsNobody(lab.dir, process.pid) : readEnvironHere(1);
    expect(seen).toEqual({ readable: false, value: null });
  });
});

describe("listProcesses", () => {
  test("sees a child with its parent, group and start time", async () => {
    lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("child")]);
    const id = await lab.waitPid("child");
    const rows = listProcesses();
    const mine = rows.find((row) => row.pid === process.pid);
    expect(rows.find((row) => row.pid === id.pid)).toMatchObject({
      ppid: process.pid,
      pgid: mine?.pgid,
      startTime: id.startTime,
    });
  });
});

// The macOS code path, exercised through the procps `ps` of this machine.
describe.runIf(isLinux && psBackend.readInfo(process.pid) !== null)("ps backend (macOS path)", () => {
  test("agrees with /proc on pid, parent, group and liveness", async () => {
    const child = lab.spawn("sleeper.mjs", ["--pid-file", lab.pidFile("child")]);
    const id = await lab.waitPid("child");
    const viaPs = psBackend.readInfo(id.pid);
    const viaProc = procBackend.readInfo(id.pid);
    expect(viaPs).toMatchObject({ pid: id.pid, ppid: viaProc?.ppid, pgid: viaProc?.pgid });
    expect(viaPs?.startTime).toMatch(/^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2} \d{4}$/);
    expect(psBackend.readInfo(id.pid)?.startTime).toBe(viaPs?.startTime);

    const listed = psBackend.list().find((row) => row.pid === id.pid);
    expect(listed).toEqual(viaPs);
    const selfViaPs = psBackend.readInfo(process.pid);
    expect(compareStartTimes(viaPs!.startTime, selfViaPs!.startTime)).toBeGreaterThanOrEqual(0);

    process.kill(id.pid, "SIGKILL");
    await exited(child);
    await waitFor(() => psBackend.readInfo(id.pid) === null, "ps to stop listing the child");
  });
});
