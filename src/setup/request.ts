/**
 * What `setup` does when nobody is asked: each flag given wins, and every setting no flag
 * names keeps what config.toml says now (the defaults on a fresh machine), so running
 * setup again changes nothing.
 */
import { AUTOMATION_TASKS, type AutomationTask, type TaskSettings } from "../automation/model.js";
import type { Config } from "../config/config.js";
import type { HarnessKind } from "../harnesses/catalog.js";
import { MCP_CLIENTS, type McpClient } from "../mcp/install/model.js";
import { INSTRUCTION_TARGETS, type InstructionTarget, type SetupRequest } from "./model.js";

export type TargetChoice = "all" | InstructionTarget;

/** A schedule as flags set it: off, a new interval, or (both absent) as configured. */
export interface ScheduleChoice {
  off: boolean;
  everyMs: number | null;
}

export interface SetupChoices {
  /** Null when `--target` was not given (all). */
  target: TargetChoice | null;
  skipInstructions: boolean;
  using: HarnessKind | null;
  /** False for `--no-auto-commit`; null when not given. */
  autoCommit: boolean | null;
  schedules: Record<AutomationTask, ScheduleChoice>;
  skipSchedules: boolean;
  /** False for `--no-mcp`. */
  mcp: boolean;
  skipHooks: boolean;
  /** `--yes`: remove what the Python CodeAlmanac left installed without asking. */
  removePythonLeftovers: boolean;
}

export function targetsFor(choice: TargetChoice | null): InstructionTarget[] {
  return choice === null || choice === "all" ? [...INSTRUCTION_TARGETS] : [choice];
}

export function scheduleFor(choice: ScheduleChoice, current: TaskSettings): TaskSettings {
  if (choice.off) return { enabled: false, everyMs: current.everyMs };
  if (choice.everyMs !== null) return { enabled: true, everyMs: choice.everyMs };
  return current;
}

/**
 * `installed` says whether a client's CLI is on PATH: the MCP server is registered with
 * the agents the person uses, among those setup tells about the wiki.
 */
export function setupRequest(choices: SetupChoices, config: Config, installed: (client: McpClient) => boolean): SetupRequest {
  const schedules = Object.fromEntries(
    AUTOMATION_TASKS.map((task) => [task, scheduleFor(choices.schedules[task], config.automation[task])]),
  ) as Record<AutomationTask, TaskSettings>;
  return {
    targets: choices.skipInstructions ? [] : targetsFor(choices.target),
    settings: {
      autoCommit: choices.autoCommit ?? config.autoCommit,
      harnessDefault: choices.using ?? config.harnessDefault,
      ...schedules,
    },
    skipSchedules: choices.skipSchedules,
    mcpClients: choices.mcp ? targetsFor(choices.target).filter(installed) : [],
    // `--target` only narrows this run; `--no-mcp` is a no to every client.
    mcpDeclined: choices.mcp ? [] : [...MCP_CLIENTS],
    // The SessionEnd hook goes to the agents the person uses, as the MCP server does.
    hooks: choices.skipHooks ? [] : targetsFor(choices.target).filter(installed),
    removePythonLeftovers: choices.removePythonLeftovers,
  };
}
