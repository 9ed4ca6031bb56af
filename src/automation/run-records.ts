/**
 * What each scheduled task last did, recorded by the task itself: `<state>/automation/<task>.json`
 * (`{"started_at", "finished_at", "exit_code"}`, epoch milliseconds), and the moment a task's
 * schedule was installed or given a new interval, `<state>/automation/<task>.schedule.json`
 * (`{"since"}`). Schedulers wake a task on a short tick (see wake-tick.ts) and these two files,
 * not the scheduler's own timers, say when it is due: they survive reboots and logins, which
 * restart those timers.
 */
import { join } from "node:path";
import * as z from "zod/mini";
import type { StatePaths } from "../core/paths.js";
import { removeIfPresent, writeTextAtomic } from "./files.js";
import { readTextIfExists } from "../core/fs.js";
import type { AutomationTask, TaskRunRecord } from "./model.js";

const time = z.number().check(z.int(), z.nonnegative());
const RunFile = z.object({ started_at: time, finished_at: z.nullable(time), exit_code: z.nullable(z.number().check(z.int())) });
const ScheduleFile = z.object({ since: time });

export function taskRunPath(paths: StatePaths, task: AutomationTask): string {
  return join(paths.root, "automation", `${task}.json`);
}

function scheduleAnchorPath(paths: StatePaths, task: AutomationTask): string {
  return join(paths.root, "automation", `${task}.schedule.json`);
}

export function startTaskRun(paths: StatePaths, task: AutomationTask, now: number): TaskRunRecord {
  return writeRun(paths, task, { startedAt: now, finishedAt: null, exitCode: null });
}

/** Closes the record `startTaskRun` opened (a missing one is started and finished at `now`). */
export function finishTaskRun(paths: StatePaths, task: AutomationTask, exitCode: number, now: number): TaskRunRecord {
  const started = readTaskRun(paths, task)?.startedAt ?? now;
  return writeRun(paths, task, { startedAt: started, finishedAt: now, exitCode });
}

/** The last recorded run; a missing or unreadable record reads as none. */
export function readTaskRun(paths: StatePaths, task: AutomationTask): TaskRunRecord | null {
  const parsed = RunFile.safeParse(parseJson(readTextIfExists(taskRunPath(paths, task))));
  if (!parsed.success) return null;
  return { startedAt: parsed.data.started_at, finishedAt: parsed.data.finished_at, exitCode: parsed.data.exit_code };
}

/**
 * Whether a task that should run every `everyMs` is due: its last start, and the moment its
 * schedule was installed or its interval changed, are both at least `everyMs - toleranceMs`
 * ago. The tolerance absorbs a scheduler that only wakes on the tick.
 */
export function isTaskDue(paths: StatePaths, task: AutomationTask, everyMs: number, now: number, toleranceMs = 0): boolean {
  const marks = [readTaskRun(paths, task)?.startedAt ?? null, readScheduleAnchor(paths, task)].filter((m): m is number => m !== null);
  if (marks.length === 0) return true;
  return now - Math.max(...marks) >= everyMs - toleranceMs;
}

/** Notes when a schedule was installed, so its first run comes one interval later. */
export function anchorSchedule(paths: StatePaths, task: AutomationTask, now: number): void {
  writeTextAtomic(scheduleAnchorPath(paths, task), JSON.stringify({ since: now }) + "\n");
}

export function dropScheduleAnchor(paths: StatePaths, task: AutomationTask): void {
  removeIfPresent(scheduleAnchorPath(paths, task));
}

export function readScheduleAnchor(paths: StatePaths, task: AutomationTask): number | null {
  const parsed = ScheduleFile.safeParse(parseJson(readTextIfExists(scheduleAnchorPath(paths, task))));
  return parsed.success ? parsed.data.since : null;
}

function writeRun(paths: StatePaths, task: AutomationTask, record: TaskRunRecord): TaskRunRecord {
  const file = { started_at: record.startedAt, finished_at: record.finishedAt, exit_code: record.exitCode };
  writeTextAtomic(taskRunPath(paths, task), JSON.stringify(file) + "\n");
  return record;
}

function parseJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
