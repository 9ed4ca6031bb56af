import { spawn } from "node:child_process";
import type { ChildProcess, StdioOptions } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  compareStartTimes,
  isProcessAlive,
  listProcesses,
  readEnvironValue,
  readProcessStartTime,
} from "../../../src/core/processes/index.js";
import type { ProcessIdentity } from "../../../src/core/processes/index.js";
import { waitFor as waitUntil } from "../../support/wait.js";

export const MARKER_KEY = "CODEALMANAC_EXECUTION_ID";
export const isLinux = process.platform === "linux";

export function fixture(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** Waits for `condition` (an event), naming what it waits for; bounded only by the test's timeout. */
export async function waitFor(condition: () => boolean, what: string): Promise<void> {
  await waitUntil(condition, what);
}

/** Resolves with the exit code/signal of a child we spawned (immediately if it already exited). */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

/** The state letter(s) of a pid as the process table shows it, zombies included. */
export function stateOf(pid: number): string | undefined {
  return listProcesses().find((row) => row.pid === pid)?.state;
}

/** The parent pid of a pid, from the process table. */
export function parentOf(pid: number): number | undefined {
  return listProcesses().find((row) => row.pid === pid)?.ppid;
}

/** The process group of a pid, from the process table. */
export function pgidOf(pid: number): number | undefined {
  return listProcesses().find((row) => row.pid === pid)?.pgid;
}

/**
 * One test's sandbox: a temporary directory for pid files, a unique execution
 * marker, and a record of every process the test started so that `cleanup`
 * can SIGKILL them (by pid, checked against the recorded start time) even if
 * the test failed half-way.
 */
export class Lab {
  readonly dir = mkdtempSync(join(tmpdir(), "ca-processes-"));
  readonly marker = { key: MARKER_KEY, value: `test-${randomUUID()}` };
  private readonly known = new Map<string, ProcessIdentity>();
  /** Detached children: each leads a process group named by its pid. */
  private readonly leaders: ProcessIdentity[] = [];

  /** Spawns `node fixtures/<name> ...args` and records the child's identity at once. */
  spawn(
    name: string,
    args: string[],
    options: { detached?: boolean; env?: NodeJS.ProcessEnv; stdio?: StdioOptions } = {},
  ): ChildProcess {
    const child = spawn(process.execPath, [fixture(name), ...args], {
      detached: options.detached ?? false,
      env: options.env ?? process.env,
      stdio: options.stdio ?? "ignore",
    });
    if (child.pid === undefined) throw new Error(`could not spawn ${name}`);
    const id = this.remember(child.pid);
    if (options.detached && id !== null) this.leaders.push(id);
    return child;
  }

  /** Where a fixture writes the pid file called `name`. */
  pidFile(name: string): string {
    return join(this.dir, `${name}.pid`);
  }

  /** Waits for `<dir>/<name>.pid`, then returns (and records) that process's identity. */
  async waitPid(name: string): Promise<ProcessIdentity> {
    const file = this.pidFile(name);
    await waitFor(() => existsSync(file), `${name}.pid`);
    const pid = Number(readFileSync(file, "utf8"));
    const startTime = readProcessStartTime(pid);
    if (startTime === null) throw new Error(`${name} (${pid}) is not alive`);
    const id = { pid, startTime };
    this.known.set(`${pid}:${startTime}`, id);
    return id;
  }

  remember(pid: number): ProcessIdentity | null {
    const startTime = readProcessStartTime(pid);
    if (startTime === null) return null;
    const id = { pid, startTime };
    this.known.set(`${pid}:${startTime}`, id);
    return id;
  }

  /** SIGKILLs everything this test started, waits (bounded) for it to die, removes the directory. */
  async cleanup(): Promise<void> {
    const candidates = [...this.known.values()];
    // Their descendants, which the test may not have recorded yet.
    const table = listProcesses();
    for (let i = 0; i < candidates.length; i++) {
      const parent = candidates[i];
      if (parent === undefined || !isProcessAlive(parent)) continue;
      for (const row of table) {
        if (row.ppid === parent.pid && !candidates.some((c) => c.pid === row.pid)) {
          candidates.push({ pid: row.pid, startTime: row.startTime });
        }
      }
    }
    // Members of the groups our detached children lead (orphans included), as long
    // as the group id was not reused: its leader is gone or still the one we started.
    for (const leader of this.leaders) {
      const now = table.find((row) => row.pid === leader.pid);
      if (now !== undefined && now.startTime !== leader.startTime) continue;
      for (const row of table) {
        if (row.pgid === leader.pid && compareStartTimes(row.startTime, leader.startTime) >= 0) {
          candidates.push({ pid: row.pid, startTime: row.startTime });
        }
      }
    }
    // Anything carrying this test's unique marker.
    if (isLinux) {
      for (const row of table) {
        if (row.pid !== process.pid && readEnvironValue(row.pid, this.marker.key) === this.marker.value) {
          candidates.push({ pid: row.pid, startTime: row.startTime });
        }
      }
    }
    for (const id of candidates) {
      if (id.pid === process.pid || !isProcessAlive(id)) continue;
      try {
        process.kill(id.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await waitFor(() => candidates.every((id) => !isProcessAlive(id)), "test processes to die");
    rmSync(this.dir, { recursive: true, force: true });
  }
}
