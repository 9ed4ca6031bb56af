/**
 * The user crontab as text: the block of lines CodeAlmanac manages, and everything else,
 * which is kept byte for byte.
 *
 * The block sits where it was found, or at the very top of the crontab when it is new (so
 * removing it gives back the original text exactly, even one without a final newline, and
 * no `NAME=value` line of the user's applies to it). Its exact form:
 *
 *     # >>> codealmanac >>> (managed by `ca config`; lines in this block are replaced)
 *     <minute> * * * * PATH=<path> [CODEALMANAC_HOME=<dir>] [CLAUDE_CONFIG_DIR=<dir>] [CODEX_HOME=<dir>] <node> <script> __scheduled <task> --every <duration> >><log> 2>&1
 *     # <<< codealmanac <<<
 *
 * one line per installed task (sync before garden). `<minute>` is `*` or `*\/N`, the wake
 * tick (see `wakeTickMinutes`); every value is a shell word (single-quoted unless plain);
 * each `%` is written `\%`, since cron turns a bare `%` into a newline. `<duration>` is
 * `5h`, `30m`, `90s`…: cron wakes the task on its tick and `__scheduled` skips the run
 * unless the task is due (see wake-tick.ts).
 */
import { AUTOMATION_TASKS, type AutomationTask } from "./model.js";
import type { ScheduledCommand } from "./scheduled-command.js";
import { argvEvery, wakeArgv, wakeTickMinutes } from "./wake-tick.js";

const BEGIN = "# >>> codealmanac >>> (managed by `ca config`; lines in this block are replaced)";
const BEGIN_PREFIX = "# >>> codealmanac >>>";
const END = "# <<< codealmanac <<<";

export function cronLine(everyMs: number, command: ScheduledCommand): string {
  const tick = wakeTickMinutes(everyMs);
  const minute = tick === 1 ? "*" : `*/${tick}`;
  const words = [
    ...command.env.map(([name, value]) => `${name}=${shellWord(value)}`),
    ...wakeArgv(command, everyMs).map(shellWord),
    `>>${shellWord(command.logPath)}`,
    "2>&1",
  ];
  return `${minute} * * * * ${words.join(" ").replace(/%/g, "\\%")}`.replace(/\n/g, " ");
}

export interface ManagedLine {
  task: AutomationTask;
  everyMs: number | null;
  /** Program and arguments up to the output redirection. */
  argv: string[];
  text: string;
}

export interface Crontab {
  /** Text before the block (everything, when the block is new and goes on top: see `withTaskLine`). */
  before: string;
  lines: ManagedLine[];
  after: string;
  hasBlock: boolean;
}

export function parseCrontab(text: string): Crontab {
  const begin = lineStartIndex(text, BEGIN_PREFIX, 0);
  if (begin === -1) return { before: "", lines: [], after: text, hasBlock: false };
  const end = lineStartIndex(text, END, begin);
  const blockEnd = end === -1 ? text.length : lineEndIndex(text, end);
  const inner = text.slice(lineEndIndex(text, begin), end === -1 ? text.length : end);
  const lines = inner.split("\n").map(parseManagedLine).filter((line): line is ManagedLine => line !== null);
  return { before: text.slice(0, begin), lines, after: text.slice(blockEnd), hasBlock: true };
}

/** The crontab with the task's line replaced (`line`) or removed (null); other text untouched. */
export function withTaskLine(crontab: Crontab, task: AutomationTask, line: string | null): string {
  const kept = crontab.lines.filter((l) => l.task !== task).map((l) => ({ task: l.task, text: l.text }));
  const all = line === null ? kept : [...kept, { task, text: line }];
  if (all.length === 0) return crontab.before + crontab.after;
  all.sort((a, b) => AUTOMATION_TASKS.indexOf(a.task) - AUTOMATION_TASKS.indexOf(b.task));
  const block = [BEGIN, ...all.map((l) => l.text), END].join("\n") + "\n";
  return crontab.before + block + crontab.after;
}

function parseManagedLine(text: string): ManagedLine | null {
  const trimmed = text.trim();
  if (trimmed === "" || trimmed.startsWith("#")) return null;
  const words = splitShellWords(trimmed.replace(/\\%/g, "%")).slice(5);
  const at = words.indexOf("__scheduled");
  const task = words[at + 1] as AutomationTask | undefined;
  if (at === -1 || !task || !AUTOMATION_TASKS.includes(task)) return null;
  const programStart = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  const redirect = words.findIndex((word) => word.startsWith(">>"));
  const argv = words.slice(programStart, redirect === -1 ? words.length : redirect);
  return { task, everyMs: argvEvery(argv), argv, text: trimmed };
}

/** The index where a line starting with `prefix` begins, at or after `from`; -1 when none. */
function lineStartIndex(text: string, prefix: string, from: number): number {
  for (let at = from; at < text.length; ) {
    if (text.startsWith(prefix, at)) return at;
    const next = text.indexOf("\n", at);
    if (next === -1) return -1;
    at = next + 1;
  }
  return -1;
}

function lineEndIndex(text: string, start: number): number {
  const newline = text.indexOf("\n", start);
  return newline === -1 ? text.length : newline + 1;
}

/** A word for /bin/sh: plain when it is only safe characters, else single-quoted. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Splits what `shellWord` writes (plain words, single quotes, backslash escapes) back into words. */
export function splitShellWords(text: string): string[] {
  const words: string[] = [];
  let current: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const end = close === -1 ? text.length : close;
      current = (current ?? "") + text.slice(i + 1, end);
      i = end;
    } else if (c === "\\" && i + 1 < text.length) {
      current = (current ?? "") + text[++i];
    } else if (c === " " || c === "\t") {
      if (current !== null) words.push(current);
      current = null;
    } else {
      current = (current ?? "") + c;
    }
  }
  if (current !== null) words.push(current);
  return words;
}
