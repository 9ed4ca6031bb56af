/** Schedules as lines in the user's crontab (see cron-table.ts for the exact form), through `crontab`. */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { resolveExecutable } from "../core/executables.js";
import { cronLine, parseCrontab, withTaskLine, type Crontab } from "./cron-table.js";
import type { AutomationTask } from "./model.js";
import { runTool, succeeded, toolFailure, type InstallRequest, type InstalledSchedule, type SchedulerAdapter, type SchedulerContext } from "./scheduler.js";
import { intervalChanged } from "./wake-tick.js";

export const CRONTAB_LOCATION = "crontab";

export function cronAvailable(env: NodeJS.ProcessEnv): boolean {
  return resolveExecutable("crontab", env) !== null;
}

export function cronScheduler(ctx: SchedulerContext): SchedulerAdapter {
  async function read(): Promise<{ text: string; table: Crontab }> {
    const result = await runTool(ctx, "crontab", ["-l"]);
    if (succeeded(result)) return { text: result.stdout, table: parseCrontab(result.stdout) };
    if (/no crontab for/i.test(result.stderr)) return { text: "", table: parseCrontab("") };
    throw toolFailure("crontab -l", result);
  }

  async function write(text: string): Promise<void> {
    // Installing an empty crontab would leave one behind where the user had none.
    const result = text === "" ? await runTool(ctx, "crontab", ["-r"]) : await runTool(ctx, "crontab", ["-"], text);
    if (!succeeded(result) && !(text === "" && /no crontab for/i.test(result.stderr))) {
      throw toolFailure(text === "" ? "crontab -r" : "crontab -", result);
    }
  }

  return {
    kind: "cron",

    async install({ task, everyMs, command, anchor }: InstallRequest) {
      const { text, table } = await read();
      const next = withTaskLine(table, task, cronLine(everyMs, command));
      if (next === text) return { location: CRONTAB_LOCATION, changed: false };
      mkdirSync(dirname(command.logPath), { recursive: true });
      // A new task or interval waits one interval; a new PATH does not.
      const previous = table.lines.find((line) => line.task === task);
      if (intervalChanged(previous?.everyMs ?? null, everyMs)) anchor();
      await write(next);
      return { location: CRONTAB_LOCATION, changed: true };
    },

    async uninstall(task: AutomationTask) {
      const { text, table } = await read();
      const next = withTaskLine(table, task, null);
      if (next === text) return { location: CRONTAB_LOCATION, changed: false };
      await write(next);
      return { location: CRONTAB_LOCATION, changed: true };
    },

    async status(task: AutomationTask): Promise<InstalledSchedule> {
      try {
        const line = (await read()).table.lines.find((l) => l.task === task);
        if (!line) return { installed: false, enabled: false, intervalMs: null, location: CRONTAB_LOCATION, argv: null, notes: [] };
        return { installed: true, enabled: true, intervalMs: line.everyMs, location: CRONTAB_LOCATION, argv: line.argv, notes: [] };
      } catch (error) {
        return { installed: false, enabled: false, intervalMs: null, location: CRONTAB_LOCATION, argv: null, notes: [(error as Error).message] };
      }
    },
  };
}
