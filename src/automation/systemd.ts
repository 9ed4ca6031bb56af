/**
 * Schedules as systemd user timers, driven with `systemctl --user`: a timer on the wake tick
 * starts a service running `__scheduled <task> --every <interval>` (see systemd-units.ts).
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensureFolder, removeEmptyCreatedFolders } from "./created-folders.js";
import { removeIfPresent, writeIfChanged } from "./files.js";
import { readTextIfExists } from "../core/fs.js";
import type { AutomationTask } from "./model.js";
import {
  mustRun,
  runTool,
  succeeded,
  toolFailure,
  type InstallRequest,
  type InstalledSchedule,
  type ScheduleChange,
  type SchedulerAdapter,
  type SchedulerContext,
} from "./scheduler.js";
import { readExecStart, serviceUnit, serviceUnitName, systemdUnitDir, timerUnit, timerUnitName } from "./systemd-units.js";
import { argvEvery, intervalChanged } from "./wake-tick.js";

interface TimerState {
  enabled: boolean;
  active: boolean;
}

/** The interval the installed service runs the task at (its `--every`); null unless both units are there. */
function installedInterval(service: string | null, timer: string | null): number | null {
  return service === null || timer === null ? null : argvEvery(readExecStart(service));
}

/** True when a user service manager answers (in many containers there is no user bus). */
export async function systemdReachable(ctx: SchedulerContext): Promise<boolean> {
  return succeeded(await runTool(ctx, "systemctl", ["--user", "show-environment"]));
}

/**
 * `reachable: false` is for removal only: the unit files are still deleted when the user
 * manager cannot be asked to stop the timer.
 */
export function systemdScheduler(ctx: SchedulerContext, reachable = true): SchedulerAdapter {
  const units = new SystemdUnits(ctx);
  return {
    kind: "systemd",
    install: (request: InstallRequest) => installTimer(units, request),
    uninstall: (task: AutomationTask) => uninstallTimer(units, task, reachable),
    status: (task: AutomationTask) => timerStatus(units, task),
  };
}

/** Where a task's units live, and the `systemctl --user` calls about them. */
class SystemdUnits {
  private readonly dir: string;

  constructor(readonly ctx: SchedulerContext) {
    this.dir = systemdUnitDir(ctx.env, ctx.home);
  }

  /** The unit folder, created (and recorded) when the machine has none yet. */
  ensureDir(): void {
    ensureFolder(this.ctx.createdFolders, this.dir);
  }

  /** Once our units are gone: the folders we created for them, if nothing else is in them. */
  removeCreatedDirs(): void {
    removeEmptyCreatedFolders(this.ctx.createdFolders);
  }

  servicePath(task: AutomationTask): string {
    return join(this.dir, serviceUnitName(task));
  }

  timerPath(task: AutomationTask): string {
    return join(this.dir, timerUnitName(task));
  }

  systemctl(...args: string[]): Promise<unknown> {
    return mustRun(this.ctx, "systemctl", ["--user", ...args]);
  }

  async timerState(task: AutomationTask): Promise<TimerState> {
    const result = await runTool(this.ctx, "systemctl", ["--user", "show", timerUnitName(task), "--property=UnitFileState,ActiveState"]);
    if (!succeeded(result)) throw toolFailure(`systemctl --user show ${timerUnitName(task)}`, result);
    const value = (key: string) => new RegExp(`^${key}=(.*)$`, "m").exec(result.stdout)?.[1]?.trim();
    return { enabled: value("UnitFileState") === "enabled", active: value("ActiveState") === "active" };
  }
}

async function installTimer(units: SystemdUnits, { task, everyMs, command, anchor }: InstallRequest): Promise<ScheduleChange> {
  const location = units.timerPath(task);
  const service = serviceUnit(task, everyMs, command);
  const timer = timerUnit(task, everyMs);
  const installedService = readTextIfExists(units.servicePath(task));
  const installedTimer = readTextIfExists(location);
  if (installedService === service && installedTimer === timer) {
    const state = await units.timerState(task);
    if (state.enabled && state.active) return { location, changed: false };
  }
  mkdirSync(dirname(command.logPath), { recursive: true });
  // Before the timer starts: a started timer whose boot tick is past wakes the service at once.
  if (intervalChanged(installedInterval(installedService, installedTimer), everyMs)) anchor();
  units.ensureDir();
  writeIfChanged(units.servicePath(task), service);
  const timerChanged = writeIfChanged(location, timer);
  await units.systemctl("daemon-reload");
  if (timerChanged) {
    // A running timer keeps its old tick until restarted. A new interval on the same tick
    // is only in the service, which systemd reads afresh at its next start.
    await units.systemctl("enable", timerUnitName(task));
    await units.systemctl("restart", timerUnitName(task));
  } else {
    await units.systemctl("enable", "--now", timerUnitName(task));
  }
  return { location, changed: true };
}

async function uninstallTimer(units: SystemdUnits, task: AutomationTask, reachable: boolean): Promise<ScheduleChange> {
  const location = units.timerPath(task);
  const present = readTextIfExists(location) !== null || readTextIfExists(units.servicePath(task)) !== null;
  if (!present) return { location, changed: false };
  if (reachable && readTextIfExists(location) !== null) await units.systemctl("disable", "--now", timerUnitName(task));
  removeIfPresent(location);
  removeIfPresent(units.servicePath(task));
  units.removeCreatedDirs();
  if (reachable) await units.systemctl("daemon-reload");
  return { location, changed: true };
}

async function timerStatus(units: SystemdUnits, task: AutomationTask): Promise<InstalledSchedule> {
  const location = units.timerPath(task);
  const timer = readTextIfExists(location);
  const service = readTextIfExists(units.servicePath(task));
  const notes: string[] = [];
  let enabled = false;
  if (timer !== null && service === null) notes.push(`${units.servicePath(task)} is missing`);
  if (timer !== null) {
    try {
      const state = await units.timerState(task);
      enabled = state.enabled && state.active;
      if (!enabled) notes.push(`${timerUnitName(task)} is ${state.enabled ? "enabled" : "not enabled"} and ${state.active ? "active" : "not active"}`);
    } catch (error) {
      notes.push((error as Error).message);
    }
  }
  return {
    installed: timer !== null && service !== null,
    enabled,
    intervalMs: installedInterval(service, timer),
    location,
    argv: service === null ? null : readExecStart(service),
    notes,
  };
}
