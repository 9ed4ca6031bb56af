// Formatting of times, counts and names; pure functions, no DOM.

const MINUTE = 60_000;
const DAY = 86_400_000;

/** ISO string or epoch milliseconds → Date, or null. */
export function toDate(value) {
  if (value === null || value === undefined || value === "") return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function startOfDay(date) {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
}

/** "Today", "Yesterday", a weekday within the last week, "March 4" this year, else a full date. */
export function dayLabel(date, now = new Date()) {
  const days = Math.round((startOfDay(now) - startOfDay(date)) / DAY);
  if (days === 0) return "Today";
  if (days === 1) return "Yesterday";
  if (days > 1 && days < 7) return date.toLocaleDateString(undefined, { weekday: "long" });
  if (date.getFullYear() === now.getFullYear()) return date.toLocaleDateString(undefined, { month: "long", day: "numeric" });
  return date.toLocaleDateString(undefined, { year: "numeric", month: "long", day: "numeric" });
}

/** A stable key for grouping by local day. */
export function dayKey(date) {
  return `${date.getFullYear()}-${date.getMonth() + 1}-${date.getDate()}`;
}

export function clock(date) {
  return date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

export function dateTime(date) {
  return date.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** Elapsed milliseconds as "under 1s", "Ns", "Nm" or "Nh". */
export function elapsed(ms) {
  if (!(ms >= 1000)) return "under 1s";
  if (ms < MINUTE) return `${Math.floor(ms / 1000)}s`;
  if (ms < 60 * MINUTE) return `${Math.floor(ms / MINUTE)}m`;
  return `${Math.floor(ms / (60 * MINUTE))}h`;
}

export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}

export function middleTruncate(text, max) {
  if (text.length <= max) return text;
  const head = Math.floor((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

export function clip(text, max) {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const SPECIAL_WORDS = { ai: "AI", rls: "RLS", api: "API", cli: "CLI", ui: "UI" };

/** A folder name as a title: `start-here` → "Start Here", `ai_tools` → "AI Tools". */
export function folderTitle(name) {
  return name
    .split(/[-_]+/)
    .filter(Boolean)
    .map((word) => SPECIAL_WORDS[word.toLowerCase()] ?? word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
}

/** Markdown emphasis markers removed, for one-line summaries. */
export function stripEmphasis(text) {
  return text.replace(/(\*\*|__)(.+?)\1/g, "$2").replace(/(\*|_)(\S.*?)\1/g, "$2").replace(/`([^`]+)`/g, "$1");
}

export function basename(path) {
  const trimmed = path.replace(/\/+$/, "");
  const cut = trimmed.lastIndexOf("/");
  return cut < 0 ? trimmed : trimmed.slice(cut + 1);
}
