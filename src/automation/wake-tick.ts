/**
 * How every scheduler (systemd, launchd, cron) runs a task: it wakes
 * `__scheduled <task> --every <interval>` on a short fixed tick, and that command runs the
 * task only when it is due (`isTaskDue`: the recorded last start and the schedule's anchor
 * are both an interval old). A scheduler's own interval timer would count from when the
 * timer or job started, and every boot or login starts it again, so a machine restarted
 * more often than the interval would never run the task; the recorded last start is a
 * file under the state root and survives restarts.
 */
import { formatDuration, parseDuration } from "../config/duration.js";
import type { ScheduledCommand } from "./scheduled-command.js";

const MINUTE_MS = 60_000;

/** Minutes between wake-ups for a task run every `everyMs`: 15, or less for shorter intervals (a divisor of 60, as cron needs). */
export function wakeTickMinutes(everyMs: number): number {
  const minutes = everyMs / MINUTE_MS;
  return [15, 12, 10, 6, 5, 4, 3, 2, 1].find((tick) => tick <= minutes) ?? 1;
}

/** The same tick in seconds, as systemd timers and launchd's `StartInterval` take it. */
export function wakeTickSeconds(everyMs: number): number {
  return wakeTickMinutes(everyMs) * 60;
}

/** How early a woken run may count as due: half a tick, so runs neither bunch up nor slip a whole tick. */
export function dueToleranceMs(everyMs: number): number {
  return (wakeTickMinutes(everyMs) * MINUTE_MS) / 2;
}

/** What the scheduler starts: the command with the task's real interval, `--every <duration>`. */
export function wakeArgv(command: ScheduledCommand, everyMs: number): string[] {
  return [...command.argv, "--every", formatDuration(everyMs)];
}

/** The interval an installed schedule's program arguments carry; null without a readable `--every`. */
export function argvEvery(argv: readonly string[] | null): number | null {
  if (argv === null) return null;
  const at = argv.indexOf("--every");
  const value = at === -1 ? undefined : argv[at + 1];
  return value === undefined ? null : parseDuration(value);
}

/**
 * Whether `everyMs` is a new interval for a task whose installed schedule carries
 * `installed` (null: none, or none readable). Compared as `--every` writes it, in whole
 * seconds at most.
 */
export function intervalChanged(installed: number | null, everyMs: number): boolean {
  return installed === null || installed !== parseDuration(formatDuration(everyMs));
}
