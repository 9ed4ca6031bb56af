import { readdirSync, readFileSync } from "node:fs";
import { isPlainPid, type ProcessBackend, type ProcessInfo } from "./backend.js";

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

function readInfo(pid: number): ProcessInfo | null {
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
}

function readEnviron(pid: number, key: string): string | null {
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
}

/** The Linux backend: `/proc`, one small file read per question. */
export const procBackend: ProcessBackend = {
  readInfo,

  // Reads are cheap: each pid is read at the moment it is looked up.
  lookup: () => readInfo,

  list() {
    const rows: ProcessInfo[] = [];
    for (const name of readdirSync("/proc")) {
      if (!/^\d+$/.test(name)) continue;
      const info = readInfo(Number(name));
      if (info !== null) rows.push(info);
    }
    return rows;
  },

  readEnviron,

  carryingMarker(pids, marker) {
    const found = new Set<number>();
    if (marker.key === "") return found;
    for (const pid of pids) if (readEnviron(pid, marker.key) === marker.value) found.add(pid);
    return found;
  },
};
