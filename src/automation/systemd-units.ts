/**
 * The two user units a task's schedule is made of, `codealmanac-<task>.service` (what runs)
 * and `codealmanac-<task>.timer` (when), as text; and reading their settings back.
 */
import { join } from "node:path";
import { formatDuration, parseDuration } from "../config/duration.js";
import type { AutomationTask } from "./model.js";
import type { ScheduledCommand } from "./scheduled-command.js";

const HEADER = "# Written by CodeAlmanac; change it with `ca config set automation.<task>.*`, not here.";

export function systemdUnitDir(env: NodeJS.ProcessEnv, home: string): string {
  const configHome = env.XDG_CONFIG_HOME?.trim();
  return join(configHome && configHome.startsWith("/") ? configHome : join(home, ".config"), "systemd", "user");
}

export const serviceUnitName = (task: AutomationTask) => `codealmanac-${task}.service`;
export const timerUnitName = (task: AutomationTask) => `codealmanac-${task}.timer`;

/**
 * A oneshot service. `KillMode=process`: when the scheduled command exits, systemd would
 * otherwise stop everything left in the unit's cgroup, including the detached queue worker
 * the command started to carry out the queued runs.
 */
export function serviceUnit(task: AutomationTask, command: ScheduledCommand): string {
  const log = escapeSpecifiers(command.logPath);
  return [
    HEADER,
    "[Unit]",
    `Description=CodeAlmanac scheduled ${task}`,
    "",
    "[Service]",
    "Type=oneshot",
    `ExecStart=${command.argv.map((word) => quoteArgument(word)).join(" ")}`,
    ...command.env.map(([name, value]) => `Environment=${quoteArgument(`${name}=${value}`, false)}`),
    `StandardOutput=append:${log}`,
    `StandardError=append:${log}`,
    "KillMode=process",
    "",
  ].join("\n");
}

/**
 * A monotonic timer: the first run comes one interval after the timer starts (at install
 * or login), never at once, then one interval after each run started.
 */
export function timerUnit(task: AutomationTask, everyMs: number): string {
  const every = timespan(everyMs);
  return [
    HEADER,
    "[Unit]",
    `Description=Run CodeAlmanac ${task} every ${formatDuration(everyMs)}`,
    "",
    "[Timer]",
    `OnActiveSec=${every}`,
    `OnUnitActiveSec=${every}`,
    `Unit=${serviceUnitName(task)}`,
    "",
    "[Install]",
    "WantedBy=timers.target",
    "",
  ].join("\n");
}

/** Whole seconds, at least one: finer intervals mean nothing to a scheduled sync. */
function timespan(everyMs: number): string {
  return `${Math.max(1, Math.round(everyMs / 1000))}s`;
}

export function readTimerInterval(text: string): number | null {
  const match = /^OnUnitActiveSec=(\S+)\s*$/m.exec(text);
  return match ? parseDuration(match[1]!) : null;
}

/** The ExecStart= words, unquoted; null when the line is missing or not in the form we write. */
export function readExecStart(text: string): string[] | null {
  const match = /^ExecStart=(.*)$/m.exec(text);
  if (!match) return null;
  const words = [...match[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => unquote(m[1]!));
  return words.length > 0 ? words : null;
}

/**
 * Quotes one word for ExecStart= or Environment=: double quotes with C escapes, `%` doubled
 * (unit specifiers) and, on command lines, `$` doubled (environment substitution).
 */
export function quoteArgument(word: string, commandLine = true): string {
  let escaped = escapeSpecifiers(word.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n"));
  if (commandLine) escaped = escaped.replace(/\$/g, "$$$$");
  return `"${escaped}"`;
}

function escapeSpecifiers(text: string): string {
  return text.replace(/%/g, "%%");
}

function unquote(word: string): string {
  return word
    .replace(/\$\$/g, "$")
    .replace(/%%/g, "%")
    .replace(/\\(.)/g, (_all, c: string) => (c === "n" ? "\n" : c));
}
