import { existsSync } from "node:fs";
import type { StatePaths } from "../core/paths.js";
import { homeDir } from "../core/paths.js";
import type { CommandRunner } from "../core/command.js";
import { createdFoldersPath } from "./created-folders.js";
import { chooseScheduler, installedSchedulers, type SchedulerChoice } from "./choose-scheduler.js";
import { AUTOMATION_TASKS, type Automation, type AutomationTask, type ReconcileResult, type ScheduleStatus, type TaskSettings } from "./model.js";
import { anchorSchedule, dropScheduleAnchor, readTaskRun } from "./run-records.js";
import { scheduledCommand } from "./scheduled-command.js";
import type { InstalledSchedule, ScheduleChange, SchedulerAdapter, SchedulerContext } from "./scheduler.js";

export interface AutomationDeps {
  env: NodeJS.ProcessEnv;
  paths: StatePaths;
  platform: NodeJS.Platform;
  run: CommandRunner;
  /** Absolute path of the CLI entry script the schedules start (dist/bin.js of the installed package). */
  cliPath: string;
  /** Absolute path of the node executable that runs it. */
  nodePath: string;
  now: () => number;
  /** The user whose launchd domain (`gui/<uid>`) holds the agents; defaults to this process's. */
  uid?: number;
}

/**
 * The automation facade: picks the scheduler once, then installs, removes and reads schedules
 * through it. Whatever the scheduler, a new schedule or interval is anchored (run-records.ts)
 * so the task first runs one interval after it is set, not at the first wake.
 */
export function createAutomation(deps: AutomationDeps): Automation {
  const ctx: SchedulerContext = {
    env: deps.env,
    run: deps.run,
    home: homeDir(deps.env),
    uid: deps.uid ?? process.getuid?.() ?? 0,
    createdFolders: createdFoldersPath(deps.paths),
  };
  let choice: Promise<SchedulerChoice> | undefined;
  const scheduler = async (): Promise<SchedulerAdapter> => {
    const chosen = await (choice ??= chooseScheduler(ctx, deps.platform));
    if ("problem" in chosen) throw chosen.problem;
    return chosen.adapter;
  };

  return {
    async reconcile(task: AutomationTask, settings: TaskSettings): Promise<ReconcileResult> {
      const adapter = await scheduler();
      const change = settings.enabled
        ? await install(deps, adapter, task, settings.everyMs)
        : await uninstall(deps, adapter, task);
      return { task, enabled: settings.enabled, intervalMs: settings.everyMs, scheduler: adapter.kind, ...change };
    },

    async status(tasks: readonly AutomationTask[] = AUTOMATION_TASKS): Promise<ScheduleStatus[]> {
      const chosen = await (choice ??= chooseScheduler(ctx, deps.platform));
      return Promise.all(tasks.map((task) => taskStatus(deps, chosen, task)));
    },

    async removeAll(): Promise<ReconcileResult[]> {
      const removed: ReconcileResult[] = [];
      for (const adapter of await installedSchedulers(ctx, deps.platform)) {
        for (const task of AUTOMATION_TASKS) {
          const before = await adapter.status(task);
          const change = await uninstall(deps, adapter, task);
          if (change.changed) removed.push({ task, enabled: false, intervalMs: before.intervalMs ?? 0, scheduler: adapter.kind, ...change });
        }
      }
      return removed;
    },
  };
}

function install(deps: AutomationDeps, adapter: SchedulerAdapter, task: AutomationTask, everyMs: number): Promise<ScheduleChange> {
  const anchor = () => anchorSchedule(deps.paths, task, deps.now());
  return adapter.install({ task, everyMs, command: scheduledCommand(deps, task), anchor });
}

/** Removes the task's schedule, and with it the anchor its first run counted from. */
async function uninstall(deps: AutomationDeps, adapter: SchedulerAdapter, task: AutomationTask): Promise<ScheduleChange> {
  const change = await adapter.uninstall(task);
  if (change.changed) dropScheduleAnchor(deps.paths, task);
  return change;
}

async function taskStatus(deps: AutomationDeps, chosen: SchedulerChoice, task: AutomationTask): Promise<ScheduleStatus> {
  const lastRun = readTaskRun(deps.paths, task);
  if ("problem" in chosen) {
    return { task, scheduler: null, installed: false, enabled: false, intervalMs: null, location: null, lastRun, notes: [chosen.problem.message] };
  }
  const installed = await readSchedule(chosen.adapter, task);
  return {
    task,
    scheduler: chosen.adapter.kind,
    installed: installed.installed,
    enabled: installed.enabled,
    intervalMs: installed.intervalMs,
    location: installed.location,
    lastRun,
    notes: [...installed.notes, ...missingPrograms(installed)],
  };
}

async function readSchedule(adapter: SchedulerAdapter, task: AutomationTask): Promise<InstalledSchedule> {
  try {
    return await adapter.status(task);
  } catch (error) {
    return { installed: false, enabled: false, intervalMs: null, location: null, argv: null, notes: [(error as Error).message] };
  }
}

/** A schedule outlives a node upgrade or a moved install; say so instead of failing silently on every run. */
function missingPrograms(schedule: InstalledSchedule): string[] {
  if (!schedule.installed || !schedule.argv) return [];
  return schedule.argv
    .slice(0, 2)
    .filter((path) => path.startsWith("/") && !existsSync(path))
    .map((path) => `${path} no longer exists; run \`ca config apply\` to reinstall the schedule`);
}
