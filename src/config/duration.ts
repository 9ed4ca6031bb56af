/** Human spans: 90s, 30m, 5h, 1d, 2w, 1.5h, "5 hours". Returns milliseconds, or null. */
export function parseDuration(text: string): number | null {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(text);
  if (!match) return null;
  const value = Number(match[1]);
  const unit = match[2]!.toLowerCase();
  const factor = UNITS[unit];
  if (factor === undefined || !Number.isFinite(value)) return null;
  return Math.round(value * factor);
}

const S = 1000;
const UNITS: Record<string, number> = {
  ms: 1,
  s: S, sec: S, secs: S, second: S, seconds: S,
  m: 60 * S, min: 60 * S, mins: 60 * S, minute: 60 * S, minutes: 60 * S,
  h: 3600 * S, hr: 3600 * S, hrs: 3600 * S, hour: 3600 * S, hours: 3600 * S,
  d: 86400 * S, day: 86400 * S, days: 86400 * S,
  w: 7 * 86400 * S, week: 7 * 86400 * S, weeks: 7 * 86400 * S,
};

const HOUR = 3600 * S;
const MINUTE = 60 * S;

/**
 * The one way config.toml spells a duration: whole hours as `Nh`, else whole minutes as
 * `Nm`, else whole seconds as `Ns` (a fraction of a second is dropped), so `1d` is `24h`
 * and `1.5h` is `90m`.
 */
export function formatDuration(ms: number): string {
  if (ms >= HOUR && ms % HOUR === 0) return `${ms / HOUR}h`;
  if (ms >= MINUTE && ms % MINUTE === 0) return `${ms / MINUTE}m`;
  return `${Math.floor(ms / S)}s`;
}

/** ISO-8601 (`PT5H`, `PT1H30M`, `PT45S`), for machine-readable output. */
export function isoDuration(ms: number): string {
  const seconds = Math.floor(ms / S);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const parts = `${h ? `${h}H` : ""}${m ? `${m}M` : ""}${s || (!h && !m) ? `${s}S` : ""}`;
  return `PT${parts}`;
}
