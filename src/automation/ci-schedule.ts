/**
 * The cron schedule of a CI file from `--every`. Cron has no "every N" of its own: a step
 * such as `*\/7` in the day-of-month field restarts each month (days 1, 8, …, 29, then 1
 * again), and a step that does not divide its field's range leaves a short gap at the
 * wrap. So only the intervals cron spaces evenly are accepted: minute steps dividing 60,
 * hour steps dividing 24, daily and weekly; anything else is refused with the nearest
 * intervals that work, or may be given as a cron expression of its own.
 */
import { parseDuration } from "../config/duration.js";
import { invalid } from "../core/errors.js";
import { DEFAULT_EVERY_MS } from "./model.js";

/** What a provider's scheduler allows: its name for messages, and its shortest interval. */
export interface CronRules {
  provider: string;
  minMinutes: number;
}

interface Interval {
  ms: number;
  label: string;
  cron: string;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Off the top of the hour, when hosted schedulers are the most loaded (UTC). */
const QUIET_MINUTE = 17;
const QUIET_HOUR = 3;
/** Weekly on Monday. */
const WEEKDAY = 1;

/** Every interval cron runs evenly, shortest first. */
function evenIntervals(rules: CronRules): Interval[] {
  const minutes = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30].filter((m) => m >= rules.minMinutes);
  const hours = [1, 2, 3, 4, 6, 8, 12];
  return [
    ...minutes.map((m) => ({ ms: m * MINUTE, label: `${m}m`, cron: `*/${m} * * * *` })),
    ...hours.map((h) => ({ ms: h * HOUR, label: `${h}h`, cron: `${QUIET_MINUTE} ${h === 1 ? "*" : `*/${h}`} * * *` })),
    { ms: DAY, label: "1d", cron: `${QUIET_MINUTE} ${QUIET_HOUR} * * *` },
    { ms: 7 * DAY, label: "7d", cron: `${QUIET_MINUTE} ${QUIET_HOUR} * * ${WEEKDAY}` },
  ];
}

/**
 * A five-field cron expression is taken as it is; a duration must be one cron runs evenly
 * (see above). Default: the garden task's daily interval.
 */
export function ciSchedule(every: string | undefined, rules: CronRules): string {
  if (every === undefined) return scheduleForDuration(DEFAULT_EVERY_MS.garden, "24h", rules);
  const fields = every.trim().split(/\s+/);
  if (fields.length === 5) {
    if (fields.every((field) => /^[0-9A-Za-z*/,-]+$/.test(field))) return fields.join(" ");
    throw invalid(`invalid --every "${every}": not a cron expression`);
  }
  const ms = parseDuration(every);
  if (ms === null || ms <= 0) throw invalid(`invalid --every "${every}": expected a duration such as 24h or a cron expression such as "17 3 * * *"`);
  return scheduleForDuration(ms, every.trim(), rules);
}

function scheduleForDuration(ms: number, text: string, rules: CronRules): string {
  const intervals = evenIntervals(rules);
  const exact = intervals.find((interval) => interval.ms === ms);
  if (exact) return exact.cron;
  const below = intervals.filter((interval) => interval.ms < ms).at(-1);
  const above = intervals.find((interval) => interval.ms > ms);
  const nearest = [below, above].filter((interval) => interval !== undefined).map((interval) => interval.label);
  throw invalid(
    `invalid --every "${text}": ${rules.provider}'s cron cannot run every ${text} evenly; nearest: ${nearest.join(", ")} (or give a cron expression such as "17 3 * * *")`,
  );
}
