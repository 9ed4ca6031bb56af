/**
 * The port every scheduler adapter (systemd user timers, cron, launchd) implements, and
 * the helper they share for running their command-line tools through the CommandRunner.
 * Every adapter wakes the task on a short tick and lets `__scheduled` decide (wake-tick.ts).
 */
import { commandFailureLine, type CommandResult, type CommandRunner } from "../core/command.js";
import { ProductError } from "../core/errors.js";
import type { AutomationTask, SchedulerKind } from "./model.js";
import type { ScheduledCommand } from "./scheduled-command.js";

export interface SchedulerContext {
  env: NodeJS.ProcessEnv;
  run: CommandRunner;
  home: string;
  uid: number;
  /** The record of the folders a scheduler created for our files (created-folders.ts). */
  createdFolders: string;
}

export interface InstallRequest {
  task: AutomationTask;
  everyMs: number;
  command: ScheduledCommand;
  /**
   * Notes now as the moment the task's first run counts from (see `anchorSchedule`).
   * Called when the task had no schedule or had another interval, before the scheduler
   * can see the new one: a timer started at once must already find the anchor.
   */
  anchor(): void;
}

export interface ScheduleChange {
  location: string;
  /** False when nothing had to be written, started or removed. */
  changed: boolean;
}

/** What a scheduler can tell about one task's schedule. */
export interface InstalledSchedule {
  installed: boolean;
  enabled: boolean;
  intervalMs: number | null;
  location: string | null;
  /** The program and arguments the installed schedule starts, when they can be read back. */
  argv: string[] | null;
  notes: string[];
}

export interface SchedulerAdapter {
  kind: SchedulerKind;
  /** Makes the task's schedule exactly as asked; idempotent. */
  install(request: InstallRequest): Promise<ScheduleChange>;
  uninstall(task: AutomationTask): Promise<ScheduleChange>;
  /** Reads what is installed; never throws for a scheduler that does not answer. */
  status(task: AutomationTask): Promise<InstalledSchedule>;
}

/** Scheduler tools answer within seconds; a hung one must not hang `ca config`. */
const TOOL_TIMEOUT_MS = 20_000;

export function runTool(ctx: SchedulerContext, file: string, args: string[], input?: string): Promise<CommandResult> {
  return ctx.run(file, args, { env: ctx.env, timeoutMs: TOOL_TIMEOUT_MS, ...(input !== undefined ? { input } : {}) });
}

export function succeeded(result: CommandResult): boolean {
  return result.code === 0;
}

/** One line naming the command that failed and what it said. */
export function toolFailure(command: string, result: CommandResult): ProductError {
  const why = result.notFound
    ? "command not found"
    : result.timedOut
      ? "timed out"
      : commandFailureLine(result) || `exit ${result.code ?? result.signal ?? "unknown"}`;
  return new ProductError("execution_failed", `${command} failed: ${why}`);
}

/** Runs the tool and throws a product error unless it exits 0. */
export async function mustRun(ctx: SchedulerContext, file: string, args: string[], input?: string): Promise<CommandResult> {
  const result = await runTool(ctx, file, args, input);
  if (!succeeded(result)) throw toolFailure(`${file} ${args.join(" ")}`, result);
  return result;
}
