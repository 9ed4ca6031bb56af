import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/**
 * One row of the process table. `startTime` is the raw, platform-specific value
 * (see ProcessIdentity); `state` is the one-letter-ish state code the OS reports
 * (`R`, `S`, `D`, `T`, `Z`, `X`, … on Linux; `Ss`, `R+`, `Z`, … on macOS).
 */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  startTime: string;
  state: string;
}

/**
 * The three primitives everything else is built on. Each backend reports
 * zombies like any other process; callers decide what a zombie means.
 */
export interface ProcessBackend {
  /** The row for one pid, or null if there is no such process at all. */
  readInfo(pid: number): ProcessInfo | null;
  /** Every process visible to us. Throws if the table cannot be read at all. */
  list(): ProcessInfo[];
  /** One variable of a process's initial environment, or null if unknown/unreadable. */
  readEnviron(pid: number, key: string): string | null;
}

/** True for the states of a process that has exited but may still hold its pid. */
export function isDeadState(state: string): boolean {
  const first = state.charAt(0);
  return first === "Z" || first === "X";
}

/** Only positive safe integers name a single process; 0 and negatives name groups. */
export function isPlainPid(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid > 0;
}

// ---------------------------------------------------------------------------
// Linux: /proc
// ---------------------------------------------------------------------------

/**
 * Parses the text of `/proc/<pid>/stat`. The command name (field 2) sits in
 * parentheses and may itself contain spaces and parentheses, so the fixed
 * fields are taken from after the LAST `)`: field 3 (state) is the first of
 * them, field 4 ppid, field 5 pgrp and field 22 the start time in clock ticks
 * since boot.
 */
export function parseProcStat(text: string): ProcessInfo | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open <= 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const state = fields[0];
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  const startTime = fields[19];
  if (!isPlainPid(pid) || state === undefined || state === "") return null;
  if (!Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgid)) return null;
  if (startTime === undefined || !/^\d+$/.test(startTime)) return null;
  return { pid, ppid, pgid, startTime, state };
}

export const procBackend: ProcessBackend = {
  readInfo(pid) {
    if (!isPlainPid(pid)) return null;
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/stat`, "latin1");
    } catch {
      // ENOENT (gone), ESRCH (vanished while reading), EACCES: all mean "not a process we can see".
      return null;
    }
    const info = parseProcStat(text);
    return info !== null && info.pid === pid ? info : null;
  },

  list() {
    const rows: ProcessInfo[] = [];
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      const info = procBackend.readInfo(Number(name));
      if (info !== null) rows.push(info);
    }
    return rows;
  },

  readEnviron(pid, key) {
    if (!isPlainPid(pid) || key === "" || key.includes("=") || key.includes("\0")) return null;
    let raw: Buffer;
    try {
      raw = readFileSync(`/proc/${pid}/environ`);
    } catch {
      return null;
    }
    const prefix = `${key}=`;
    for (const entry of raw.toString("utf8").split("\0")) {
      if (entry.startsWith(prefix)) return entry.slice(prefix.length);
    }
    return null;
  },
};

// ---------------------------------------------------------------------------
// macOS (and other Unixes): ps
// ---------------------------------------------------------------------------

/**
 * `ps` runs with a fixed locale and time zone so `lstart` is the same string no
 * matter which environment (launchd, a login shell, a test) asks for it.
 */
const PS_ENV: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C", LANG: "C", TZ: "UTC" };
const PS_COLUMNS = "pid=,ppid=,pgid=,state=,lstart=";

/** Parses one line of `ps -o pid=,ppid=,pgid=,state=,lstart=`. */
export function parsePsLine(line: string): ProcessInfo | null {
  const tokens = line.trim().split(/\s+/);
  if (tokens.length < 9) return null;
  const [pidText, ppidText, pgidText, state] = tokens;
  const pid = Number(pidText);
  const ppid = Number(ppidText);
  const pgid = Number(pgidText);
  if (!isPlainPid(pid) || !Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgid)) return null;
  if (state === undefined || state === "") return null;
  return { pid, ppid, pgid, state, startTime: normalizeLstart(tokens.slice(4).join(" ")) };
}

/** `ps` pads single-digit days ("Nov  1"); collapse runs of spaces so values compare exactly. */
export function normalizeLstart(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

function runPs(args: string[]): { status: "ok"; stdout: string } | { status: "failed" } {
  try {
    const stdout = execFileSync("ps", args, {
      encoding: "utf8",
      env: PS_ENV,
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 64 * 1024 * 1024,
    });
    return { status: "ok", stdout };
  } catch (error) {
    // A missing `ps` binary is a broken system, not an absent process.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw error;
    return { status: "failed" };
  }
}

export const psBackend: ProcessBackend = {
  readInfo(pid) {
    if (!isPlainPid(pid)) return null;
    // `ps -p` exits non-zero when the pid does not exist.
    const result = runPs(["-o", PS_COLUMNS, "-p", String(pid)]);
    if (result.status !== "ok") return null;
    for (const line of result.stdout.split("\n")) {
      const info = parsePsLine(line);
      if (info !== null && info.pid === pid) return info;
    }
    return null;
  },

  list() {
    const result = runPs(["-A", "-o", PS_COLUMNS]);
    if (result.status !== "ok") throw new Error("could not list processes with ps");
    const rows: ProcessInfo[] = [];
    for (const line of result.stdout.split("\n")) {
      const info = parsePsLine(line);
      if (info !== null) rows.push(info);
    }
    return rows;
  },

  readEnviron() {
    // macOS only exposes another process's environment through sysctl/`ps -E`,
    // truncated and only for our own user; the marker is Linux-only by design.
    return null;
  },
};

/** The backend for this machine. */
export const backend: ProcessBackend = process.platform === "linux" ? procBackend : psBackend;
