/**
 * Schedules as launchd user agents in the `gui/<uid>` domain, through `launchctl`: each agent
 * wakes `__scheduled <task> --every <interval>` on the wake tick (see launchd-plist.ts).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { ProductError } from "../core/errors.js";
import { commandFailureLine } from "../core/command.js";
import { removeIfPresent, writeIfChanged } from "./files.js";
import { readTextIfExists } from "../core/fs.js";
import { launchAgentPath, launchAgentPlist, launchdLabel, readProgramArguments } from "./launchd-plist.js";
import type { AutomationTask } from "./model.js";
import { runTool, succeeded, toolFailure, type InstallRequest, type InstalledSchedule, type SchedulerAdapter, type SchedulerContext } from "./scheduler.js";
import { argvEvery, intervalChanged } from "./wake-tick.js";

/** What launchctl says when the service is simply not loaded. */
const NOT_LOADED = /no such process|could not find (specified )?service|service not found|not find service/i;

/** The interval the installed agent runs the task at (its `--every`); null without one. */
function installedInterval(plist: string | null): number | null {
  return plist === null ? null : argvEvery(readProgramArguments(plist));
}

export function launchdScheduler(ctx: SchedulerContext): SchedulerAdapter {
  const domain = `gui/${ctx.uid}`;
  const target = (task: AutomationTask) => `${domain}/${launchdLabel(task)}`;
  const loaded = async (task: AutomationTask) => succeeded(await runTool(ctx, "launchctl", ["print", target(task)]));

  async function bootout(task: AutomationTask): Promise<boolean> {
    const result = await runTool(ctx, "launchctl", ["bootout", target(task)]);
    if (succeeded(result)) return true;
    if (NOT_LOADED.test(`${result.stderr}\n${result.stdout}`)) return false;
    throw toolFailure(`launchctl bootout ${target(task)}`, result);
  }

  return {
    kind: "launchd",

    async install({ task, everyMs, command, anchor }: InstallRequest) {
      const location = launchAgentPath(ctx.home, task);
      const plist = launchAgentPlist(task, everyMs, command);
      const installed = readTextIfExists(location);
      if (installed === plist && (await loaded(task))) return { location, changed: false };
      mkdirSync(dirname(command.logPath), { recursive: true });
      if (intervalChanged(installedInterval(installed), everyMs)) anchor();
      writeIfChanged(location, plist);
      // A loaded agent keeps its old definition; whatever bootout says, bootstrap reports the real problem.
      await runTool(ctx, "launchctl", ["bootout", target(task)]);
      const result = await runTool(ctx, "launchctl", ["bootstrap", domain, location]);
      if (!succeeded(result)) {
        const why = result.notFound ? "launchctl not found" : commandFailureLine(result) || `exit ${result.code}`;
        throw new ProductError("execution_failed", `launchctl bootstrap failed for ${launchdLabel(task)}: ${why}`);
      }
      return { location, changed: true };
    },

    async uninstall(task: AutomationTask) {
      const location = launchAgentPath(ctx.home, task);
      const wasLoaded = await bootout(task);
      const removed = removeIfPresent(location);
      return { location, changed: wasLoaded || removed };
    },

    async status(task: AutomationTask): Promise<InstalledSchedule> {
      const location = launchAgentPath(ctx.home, task);
      const plist = readTextIfExists(location);
      const notes: string[] = [];
      let enabled = false;
      if (plist !== null) {
        const result = await runTool(ctx, "launchctl", ["print", target(task)]);
        enabled = succeeded(result);
        if (result.notFound) notes.push("launchctl not found");
        else if (!enabled) notes.push(`${launchdLabel(task)} is not loaded in ${domain}`);
      }
      return {
        installed: plist !== null,
        enabled,
        intervalMs: installedInterval(plist),
        location,
        argv: plist === null ? null : readProgramArguments(plist),
        notes,
      };
    },
  };
}
