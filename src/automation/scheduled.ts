/**
 * What the hidden `__scheduled <task> [--every <duration>]` command does around the task
 * itself: skip a scheduler's wake-up that comes before the task is due (see wake-tick.ts),
 * record the run's start and end, note both in the task's log and keep that log bounded.
 */
import { formatDuration } from "../config/duration.js";
import { oneLine } from "../core/errors.js";
import type { StatePaths } from "../core/paths.js";
import type { AutomationTask, TaskOutcome } from "./model.js";
import { finishTaskRun, isTaskDue, readTaskRun, startTaskRun } from "./run-records.js";
import { appendTaskLog, rotateTaskLog, taskLogPath } from "./task-log.js";
import { dueToleranceMs } from "./wake-tick.js";

export interface ScheduledRunRequest {
  paths: StatePaths;
  now: () => number;
  task: AutomationTask;
  /** Given by every installed schedule, which wakes more often than the task should run; null for a run by hand. */
  everyMs: number | null;
  /** Runs the task; resolves to its exit code, or that and what the run record keeps of it. */
  run: () => Promise<number | TaskOutcome>;
}

export interface ScheduledRunOutcome {
  skipped: boolean;
  exitCode: number;
}

export async function performScheduledRun(request: ScheduledRunRequest): Promise<ScheduledRunOutcome> {
  const { paths, now, task, everyMs } = request;
  const log = taskLogPath(paths, task);
  try {
    if (everyMs !== null && !isTaskDue(paths, task, everyMs, now(), dueToleranceMs(everyMs))) {
      appendTaskLog(log, now(), `${task}: skipped, not due (${sinceLastStart(paths, task, now())}runs every ${formatDuration(everyMs)})`);
      return { skipped: true, exitCode: 0 };
    }
    startTaskRun(paths, task, now());
    appendTaskLog(log, now(), `${task}: started`);
    const exitCode = await runRecorded(request, log);
    return { skipped: false, exitCode };
  } finally {
    rotateTaskLog(log);
  }
}

async function runRecorded({ paths, now, task, run }: ScheduledRunRequest, log: string): Promise<number> {
  let outcome: TaskOutcome = { exitCode: 1 };
  try {
    const result = await run();
    outcome = typeof result === "number" ? { exitCode: result } : result;
    return outcome.exitCode;
  } catch (error) {
    appendTaskLog(log, now(), `${task}: error: ${oneLine(error)}`);
    throw error;
  } finally {
    const { exitCode, gardens } = outcome;
    finishTaskRun(paths, task, exitCode, now(), gardens);
    appendTaskLog(log, now(), `${task}: ${exitCode === 0 ? "succeeded" : `failed (exit ${exitCode})`}`);
  }
}

function sinceLastStart(paths: StatePaths, task: AutomationTask, now: number): string {
  const last = readTaskRun(paths, task);
  return last ? `last started ${elapsed(now - last.startedAt)} ago; ` : "";
}

/** Whole minutes (`7m`, `3h05m`), or seconds under a minute. */
function elapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes}m` : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`;
}
