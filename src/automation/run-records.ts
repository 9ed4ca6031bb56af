/**
 * What each scheduled task last did, recorded by the task itself: `<state>/automation/<task>.json`
 * (`{"started_at", "finished_at", "exit_code"}`, epoch milliseconds, and for garden `gardens`:
 * which garden it queued for each wiki, or why none), and the moment a task's
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
import type { AutomationTask, GardenNote, TaskRunRecord } from "./model.js";

const time = z.number().check(z.int(), z.nonnegative());
const GardenEntry = z.union([
  z.object({ repository: z.string(), mode: z.literal("stale"), run_id: z.string(), stale_pages: z.array(z.string()) }),
  z.object({ repository: z.string(), mode: z.literal("general"), run_id: z.string() }),
  z.object({ repository: z.string(), mode: z.literal("skipped"), reason: z.string(), failed: z.optional(z.literal(true)) }),
]);
const RunFile = z.object({
  started_at: time,
  finished_at: z.nullable(time),
  exit_code: z.nullable(z.number().check(z.int())),
  gardens: z.optional(z.array(GardenEntry)),
});
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
export function finishTaskRun(paths: StatePaths, task: AutomationTask, exitCode: number, now: number, gardens?: GardenNote[]): TaskRunRecord {
  const started = readTaskRun(paths, task)?.startedAt ?? now;
  return writeRun(paths, task, { startedAt: started, finishedAt: now, exitCode, ...(gardens ? { gardens } : {}) });
}

/** The last recorded run; a missing or unreadable record reads as none. */
export function readTaskRun(paths: StatePaths, task: AutomationTask): TaskRunRecord | null {
  const parsed = RunFile.safeParse(parseJson(readTextIfExists(taskRunPath(paths, task))));
  if (!parsed.success) return null;
  const { started_at, finished_at, exit_code, gardens } = parsed.data;
  return { startedAt: started_at, finishedAt: finished_at, exitCode: exit_code, ...(gardens ? { gardens: gardens.map(gardenNote) } : {}) };
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
  const file = {
    started_at: record.startedAt,
    finished_at: record.finishedAt,
    exit_code: record.exitCode,
    ...(record.gardens ? { gardens: record.gardens.map(gardenEntry) } : {}),
  };
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

function gardenEntry(note: GardenNote): z.infer<typeof GardenEntry> {
  switch (note.mode) {
    case "stale":
      return { repository: note.repository, mode: "stale", run_id: note.runId, stale_pages: note.stalePages };
    case "general":
      return { repository: note.repository, mode: "general", run_id: note.runId };
    case "skipped":
      return { repository: note.repository, mode: "skipped", reason: note.reason, ...(note.failed ? { failed: true as const } : {}) };
  }
}

function gardenNote(entry: z.infer<typeof GardenEntry>): GardenNote {
  switch (entry.mode) {
    case "stale":
      return { repository: entry.repository, mode: "stale", runId: entry.run_id, stalePages: entry.stale_pages };
    case "general":
      return { repository: entry.repository, mode: "general", runId: entry.run_id };
    case "skipped":
      return { repository: entry.repository, mode: "skipped", reason: entry.reason, ...(entry.failed ? { failed: true as const } : {}) };
  }
}
