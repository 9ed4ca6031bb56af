/**
 * The two user units a task's schedule is made of, `codealmanac-<task>.service` (what runs,
 * `__scheduled <task> --every <interval>`) and `codealmanac-<task>.timer` (the wake tick),
 * as text; and reading the service's command back.
 */
import { join } from "node:path";
import { formatDuration } from "../config/duration.js";
import type { AutomationTask } from "./model.js";
import type { ScheduledCommand } from "./scheduled-command.js";
import { wakeArgv, wakeTickSeconds } from "./wake-tick.js";

const HEADER = "# Written by CodeAlmanac; change it with `ca config set automation.<task>.*`, not here.";

export function systemdUnitDir(env: NodeJS.ProcessEnv, home: string): string {
  const configHome = env.XDG_CONFIG_HOME?.trim();
  return join(configHome && configHome.startsWith("/") ? configHome : join(home, ".config"), "systemd", "user");
}

export const serviceUnitName = (task: AutomationTask) => `codealmanac-${task}.service`;
export const timerUnitName = (task: AutomationTask) => `codealmanac-${task}.timer`;

/**
 * A oneshot service that runs the task when it is due (`--every`). `KillMode=process`: when
 * the scheduled command exits, systemd would otherwise stop everything left in the unit's
 * cgroup, including the detached queue worker the command started to carry out the queued runs.
 */
export function serviceUnit(task: AutomationTask, everyMs: number, command: ScheduledCommand): string {
  const log = escapeSpecifiers(command.logPath);
  return [
    HEADER,
    "[Unit]",
    `Description=CodeAlmanac scheduled ${task}`,
    "",
    "[Service]",
    "Type=oneshot",
    `ExecStart=${wakeArgv(command, everyMs).map((word) => quoteArgument(word)).join(" ")}`,
    ...command.env.map(([name, value]) => `Environment=${quoteArgument(`${name}=${value}`, false)}`),
    `StandardOutput=append:${log}`,
    `StandardError=append:${log}`,
    "KillMode=process",
    "",
  ].join("\n");
}

/**
 * A timer that wakes the service on the tick (see wake-tick.ts), not on the task's interval:
 * monotonic timers start counting again at every boot and login, so one set to the interval
 * would never fire on a machine restarted more often than that, while the recorded last start
 * that `--every` is judged against survives restarts. `OnBootSec=` fires a tick after boot,
 * or at once when the timer starts later than that (at install, where the schedule's anchor
 * makes that wake a skip, or at login, where a task that came due meanwhile runs);
 * `OnUnitActiveSec=` then fires a tick after each wake. `Persistent=` would not help: it
 * only catches up `OnCalendar=` timers.
 */
export function timerUnit(task: AutomationTask, everyMs: number): string {
  const tick = wakeTickSeconds(everyMs);
  return [
    HEADER,
    "[Unit]",
    `Description=Run CodeAlmanac ${task} when due, checking every ${formatDuration(tick * 1000)}`,
    "",
    "[Timer]",
    `OnBootSec=${tick}s`,
    `OnUnitActiveSec=${tick}s`,
    `Unit=${serviceUnitName(task)}`,
    "",
    "[Install]",
    "WantedBy=timers.target",
    "",
  ].join("\n");
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
