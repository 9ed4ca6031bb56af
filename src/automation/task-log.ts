import { appendFileSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { StatePaths } from "../core/paths.js";
import type { AutomationTask } from "./model.js";

/** A task's log is moved aside to `<log>.1` once it is over this size, so two files at most are kept. */
export const TASK_LOG_LIMIT_BYTES = 1024 * 1024;

/** Where the scheduler sends a task's output, and where `__scheduled` notes what it did. */
export function taskLogPath(paths: StatePaths, task: AutomationTask): string {
  return join(paths.logs, "automation", `${task}.log`);
}

/** One timestamped line; the scheduler has the same file open for appending, so lines interleave whole. */
export function appendTaskLog(path: string, now: number, line: string): void {
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, `${new Date(now).toISOString()} ${line}\n`);
}

/**
 * Moves an over-size log to `<log>.1` (replacing the previous one). Called when a run has
 * ended: the scheduler opened the log for this run before it started, so rotating earlier
 * would send the rest of this run's output into the old file.
 */
export function rotateTaskLog(path: string, limitBytes = TASK_LOG_LIMIT_BYTES): boolean {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return false;
  }
  if (size <= limitBytes) return false;
  renameSync(path, `${path}.1`);
  return true;
}
