import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { isDeadState, type ProcessBackend, type ProcessInfo } from "./backend.js";

/**
 * A process as the OS knows it: a pid plus the raw start time that tells this
 * process apart from any later one that reuses the pid.
 *
 * `startTime` is stored raw and compared exactly:
 * - Linux: field 22 of `/proc/<pid>/stat`, clock ticks since boot;
 * - macOS: `ps -o lstart=` (run with LC_ALL=C and TZ=UTC), trimmed, inner runs
 *   of spaces collapsed. It has whole-second resolution.
 */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

/** True when a row of the table is the recorded process, alive (a zombie is not). */
export function isSameLiveProcess(info: ProcessInfo | null, id: ProcessIdentity): boolean {
  return info !== null && !isDeadState(info.state) && info.startTime === id.startTime;
}

/** The start time of a live process, or null if it does not exist or is a zombie. */
export function readStartTime(backend: ProcessBackend, pid: number): string | null {
  const info = backend.readInfo(pid);
  if (info === null || isDeadState(info.state)) return null;
  return info.startTime;
}

const selves = new WeakMap<ProcessBackend, ProcessIdentity>();

/** This process's identity on a backend, read once. */
export function selfIdentity(backend: ProcessBackend): ProcessIdentity {
  let self = selves.get(backend);
  if (self === undefined) {
    const startTime = readStartTime(backend, process.pid);
    if (startTime === null) throw new Error(`cannot read the start time of this process (${process.pid})`);
    self = { pid: process.pid, startTime };
    selves.set(backend, self);
  }
  return { ...self };
}

/** Alive means: the pid exists, is not a zombie, and started exactly when recorded. */
export function isAlive(backend: ProcessBackend, id: ProcessIdentity): boolean {
  return readStartTime(backend, id.pid) === id.startTime;
}

/** "reused": a live process holds the pid but it is not the one recorded. */
export function probe(backend: ProcessBackend, id: ProcessIdentity): "alive" | "gone" | "reused" {
  const startTime = readStartTime(backend, id.pid);
  if (startTime === null) return "gone";
  return startTime === id.startTime ? "alive" : "reused";
}

/** True when none of `ids` is alive, judged from one read of all of them. */
export function noneAlive(backend: ProcessBackend, ids: readonly ProcessIdentity[]): boolean {
  const read = backend.lookup(ids.map((id) => id.pid));
  return ids.every((id) => !isSameLiveProcess(read(id.pid), id));
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/**
 * Milliseconds for an `lstart` string such as "Sat Nov  1 21:46:00 2025", or
 * null. The fields are read as UTC because `ps` runs with TZ=UTC; the value is
 * only ever used to order two such strings.
 */
function parseLstart(text: string): number | null {
  const match = /^\s*(?:[A-Za-z]{3}\s+)?([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})\s*$/.exec(text);
  if (match === null) return null;
  const [, mon, day, hour, minute, second, year] = match;
  const month = MONTHS.indexOf((mon ?? "").toLowerCase());
  if (month < 0) return null;
  return Date.UTC(Number(year), month, Number(day), Number(hour), Number(minute), Number(second));
}

/**
 * Orders two raw start times: negative if `a` started first, 0 if equal, positive
 * if `a` started later. Tick counts (Linux) compare as BigInt; `lstart` strings
 * (macOS) as dates. Throws RangeError if the values cannot be compared (for
 * instance one of each kind).
 */
export function compareStartTimes(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = parseLstart(a);
  const y = parseLstart(b);
  if (x === null || y === null) throw new RangeError(`cannot compare process start times "${a}" and "${b}"`);
  return Math.sign(x - y);
}

/**
 * Polls `condition` every `pollMs` until it holds (true) or `timeoutMs` passes
 * (false). The condition is checked once more at the deadline.
 */
export async function pollUntil(condition: () => boolean, timeoutMs: number, pollMs: number): Promise<boolean> {
  const deadline = performance.now() + Math.max(0, timeoutMs);
  const step = Math.max(1, pollMs);
  for (;;) {
    if (condition()) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await sleep(Math.min(step, left));
  }
}

/**
 * Waits for a process that need not be our child to exit (a zombie counts as
 * exited). True if it is gone within `timeoutMs`.
 */
export function waitForExit(backend: ProcessBackend, id: ProcessIdentity, timeoutMs: number, pollMs = 25): Promise<boolean> {
  return pollUntil(() => !isAlive(backend, id), timeoutMs, pollMs);
}
