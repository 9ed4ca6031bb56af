/** A task's launchd agent, `com.codealmanac.<task>.plist`, as text; and reading it back. */
import { join } from "node:path";
import type { AutomationTask } from "./model.js";
import type { ScheduledCommand } from "./scheduled-command.js";
import { wakeArgv, wakeTickSeconds } from "./wake-tick.js";

export const launchdLabel = (task: AutomationTask) => `com.codealmanac.${task}`;

export function launchAgentPath(home: string, task: AutomationTask): string {
  return join(home, "Library", "LaunchAgents", `${launchdLabel(task)}.plist`);
}

/**
 * The agent runs `__scheduled <task> --every <interval>` every wake tick (see wake-tick.ts),
 * not every interval: `StartInterval` counts from when the agent is loaded, which is at
 * every login, so an interval longer than a session would never come round, while the
 * recorded last start that `--every` is judged against survives logins and reboots.
 * `RunAtLoad` false: the first wake comes a tick after loading. `AbandonProcessGroup`:
 * launchd would otherwise kill what the command leaves running in its process group when
 * it exits.
 */
export function launchAgentPlist(task: AutomationTask, everyMs: number, command: ScheduledCommand): string {
  const string = (value: string) => `<string>${xmlEscape(value)}</string>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    "  <key>Label</key>",
    `  ${string(launchdLabel(task))}`,
    "  <key>ProgramArguments</key>",
    "  <array>",
    ...wakeArgv(command, everyMs).map((arg) => `    ${string(arg)}`),
    "  </array>",
    "  <key>StartInterval</key>",
    `  <integer>${wakeTickSeconds(everyMs)}</integer>`,
    "  <key>EnvironmentVariables</key>",
    "  <dict>",
    ...command.env.flatMap(([name, value]) => [`    <key>${xmlEscape(name)}</key>`, `    ${string(value)}`]),
    "  </dict>",
    "  <key>StandardOutPath</key>",
    `  ${string(command.logPath)}`,
    "  <key>StandardErrorPath</key>",
    `  ${string(command.logPath)}`,
    "  <key>RunAtLoad</key>",
    "  <false/>",
    "  <key>AbandonProcessGroup</key>",
    "  <true/>",
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

export function readProgramArguments(plist: string): string[] | null {
  const array = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(plist);
  if (!array) return null;
  return [...array[1]!.matchAll(/<string>([\s\S]*?)<\/string>/g)].map((m) => xmlUnescape(m[1]!));
}

export function xmlEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

function xmlUnescape(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}
