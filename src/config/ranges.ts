import { parseDuration } from "./duration.js";

const MINUTE = 60_000;
const DAY = 86_400_000;

export interface DurationRange {
  minMs: number;
  maxMs: number;
  /** The bounds as help and errors spell them. */
  min: string;
  max: string;
}

/**
 * What each duration key accepts. Checked wherever such a value is parsed: `config set`,
 * a hand-edited config.toml, and setup's flags and questions.
 * - `runs.timeout`: no agent run is done within a minute, and a run held for more than
 *   a week is stuck while the queue waits behind it. The upper bound also keeps the
 *   agent's own timer (the timeout plus a minute) far below Node's 24.8-day timer limit.
 * - `runs.idle_timeout`: a model may think for a minute without output; beyond the
 *   longest run timeout it could never fire first.
 * - `automation.*.every`: the schedulers wake at most once a minute (cron's step), so a
 *   shorter interval is not kept; a task wanted less than yearly is one to turn off.
 */
export const DURATION_RANGES = {
  "runs.timeout": { minMs: MINUTE, maxMs: 7 * DAY, min: "1m", max: "7d" },
  "runs.idle_timeout": { minMs: MINUTE, maxMs: 7 * DAY, min: "1m", max: "7d" },
  "automation.sync.every": { minMs: MINUTE, maxMs: 365 * DAY, min: "1m", max: "365d" },
  "automation.garden.every": { minMs: MINUTE, maxMs: 365 * DAY, min: "1m", max: "365d" },
} as const satisfies Record<string, DurationRange>;

export type DurationKey = keyof typeof DURATION_RANGES;

/** What is wrong with `text` as the value of `key` ("must be between 1m and 7d"), or null. */
export function durationProblem(key: DurationKey, text: string): string | null {
  const ms = parseDuration(text);
  if (ms === null) return "must be a duration such as 90s, 30m, 5h or 1d";
  const range: DurationRange = DURATION_RANGES[key];
  return ms < range.minMs || ms > range.maxMs ? `must be between ${range.min} and ${range.max}` : null;
}
