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

// Inline Markdown of one-line texts (run summaries, page summaries, errors), read the way
// CommonMark reads it: code spans are literal, and `_` inside a word is a letter, never
// emphasis, so `ANTHROPIC_API_KEY` and `run_queue` stay as written (issue 18).
const WORD_CHAR = "\\p{L}\\p{N}_";
const UNDERSCORE = new RegExp(`(?<![${WORD_CHAR}\\\\])(__?)(?=\\S)([^]*?[^\\s\\\\])\\1(?![${WORD_CHAR}])`, "gu");
const STAR = /(?<!\\)(\*\*?)(?=\S)([^]*?[^\s\\])\1/g;
const ESCAPE = /\\([!-/:-@[-`{-~])/g;

/**
 * A line of inline Markdown as pieces: `{ code: true, text }` for a code span, else prose
 * with its emphasis marks and escapes removed. Unpaired backticks and marks stay as text.
 */
export function inlineParts(text) {
  const parts = [];
  const prose = (chunk) => {
    if (chunk === "") return;
    const plain = chunk.replace(UNDERSCORE, "$2").replace(STAR, "$2").replace(ESCAPE, "$1");
    const last = parts[parts.length - 1];
    if (last && !last.code) last.text += plain;
    else parts.push({ code: false, text: plain });
  };
  let at = 0;
  let from = 0;
  for (let open = codeStart(text, from); open !== null; open = codeStart(text, from)) {
    const close = closingRun(text, open.end, open.ticks.length);
    // No run of the same length closes it: these backticks are text.
    if (close === null) {
      from = open.end;
      continue;
    }
    prose(text.slice(at, open.start));
    parts.push({ code: true, text: codeContent(text.slice(open.end, close)) });
    at = from = close + open.ticks.length;
  }
  prose(text.slice(at));
  return parts;
}

/** The next backtick run not escaped by a backslash, from `from`. */
function codeStart(text, from) {
  for (let i = text.indexOf("`", from); i >= 0; i = text.indexOf("`", i + 1)) {
    let end = i;
    while (text[end] === "`") end++;
    if (text[i - 1] === "\\" && text[i - 2] !== "\\") {
      i = end - 1;
      continue;
    }
    return { start: i, end, ticks: text.slice(i, end) };
  }
  return null;
}

/** Where the first backtick run of exactly `length` from `from` starts, or null. */
function closingRun(text, from, length) {
  for (let i = text.indexOf("`", from); i >= 0; i = text.indexOf("`", i)) {
    let end = i;
    while (text[end] === "`") end++;
    if (end - i === length) return i;
    i = end;
  }
  return null;
}

/** One space on each side is padding (`` `x` ``); line breaks read as spaces. */
function codeContent(raw) {
  const flat = raw.replace(/\r?\n/g, " ");
  return flat.length > 2 && flat.startsWith(" ") && flat.endsWith(" ") && flat.trim() !== "" ? flat.slice(1, -1) : flat;
}

export function basename(path) {
  const trimmed = path.replace(/\/+$/, "");
  const cut = trimmed.lastIndexOf("/");
  return cut < 0 ? trimmed : trimmed.slice(cut + 1);
}
