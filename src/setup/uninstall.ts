/**
 * `uninstall`: takes out exactly what setup and use put on the machine — the managed
 * instruction blocks, our MCP server in the agents' user scope, our SessionEnd hooks in
 * the agents' settings, the schedules, and the
 * state directory — and never a repository's `almanac/`, nor its `.mcp.json` (shared
 * with whoever clones it). The state goes last, and only once the queue is stopped:
 * deleting the ledger under a live worker would leave agents editing repositories
 * unsupervised. Running viewers (`ca serve`) are stopped before it too: they would go on
 * showing the deleted wikis.
 */
import { existsSync } from "node:fs";
import { AUTOMATION_TASKS, type Automation, type AutomationTask } from "../automation/model.js";
import { conflict, oneLine } from "../core/errors.js";
import type { StatePaths } from "../core/paths.js";
import { installedFiles, removeInstructions, type RemovedFile } from "./instruction-files.js";
import { HOOK_TARGETS, hookState, removeHook, type HookState, type RemovedHook } from "./agent-hooks.js";
import { findMcpRegistrations, removeMcpServers, type McpRegistration, type McpRegistrationDeps, type RemovedRegistration } from "./mcp-servers.js";
import { INSTRUCTION_TARGETS, type Check, type InstructionTarget } from "./model.js";
import { describeActivity, queueActivity, shutDownQueue, type QueueActivity, type QueueShutdownDeps } from "./queue-shutdown.js";
import { deleteStateRoot, stateRootHazard } from "./state-root.js";
import type { ViewerRecord } from "../core/viewer-records.js";
import { liveViewers, stopViewers, type ViewerShutdownDeps } from "./viewer-shutdown.js";

export const PACKAGE_UNINSTALL = "npm uninstall -g codealmanac";

export interface UninstallDeps extends McpRegistrationDeps {
  paths: StatePaths;
  home: string;
  automation(): Promise<Automation>;
  /** Opens the state database: called only when it exists. */
  queue(): Promise<QueueShutdownDeps>;
  /** The viewers recorded on the state root, and how to stop them: called only when it exists. */
  viewers(): Promise<ViewerShutdownDeps>;
  /** Registered repository roots: called only when the state database exists. */
  repositoryRoots(): string[];
  /** Closes every handle on the state directory before it is deleted. */
  closeState(): void;
  /** The command our SessionEnd hooks run, and the record of what setup created for them. */
  hookCommand: string;
  hookRecord: string;
}

export interface UninstallPlan {
  instructions: { target: InstructionTarget; path: string }[];
  mcp: McpRegistration[];
  /** Files holding a SessionEnd hook of ours (this installation's or another's). */
  hooks: HookState[];
  schedules: AutomationTask[];
  /** Set when the schedules could not be read; removal is still attempted. */
  scheduleProblem: string | null;
  /** The state directory, when it exists. */
  stateRoot: string | null;
  activity: QueueActivity;
  /** Viewers (`ca serve`) running on the state root: stopped before it is deleted. */
  viewers: ViewerRecord[];
}

export interface UninstallReport {
  instructions: RemovedFile[];
  mcp: RemovedRegistration[];
  hooks: RemovedHook[];
  schedules: AutomationTask[];
  /** The deleted state directory, or null. */
  stateRoot: string | null;
  cancelled: string[];
  /** The worker that was stopped, or null. */
  worker: number | null;
  /** The viewers that were stopped. */
  viewers: ViewerRecord[];
  warnings: Check[];
  packageCommand: string;
}

const IDLE: QueueActivity = { queued: 0, running: 0, worker: null };

export async function planUninstall(deps: UninstallDeps): Promise<UninstallPlan> {
  const instructions = INSTRUCTION_TARGETS.flatMap((target) => installedFiles(target, deps.env).map((path) => ({ target, path })));
  const mcp = await findMcpRegistrations(deps);
  // A hook file that is not JSON holds no hook we could find or remove: it is left alone.
  const hooks = HOOK_TARGETS.flatMap((target) => {
    try {
      const state = hookState(target, deps.env, deps.hookCommand);
      return state.status === "missing" ? [] : [state];
    } catch {
      return [];
    }
  });
  let schedules: AutomationTask[] = [];
  let scheduleProblem: string | null = null;
  try {
    schedules = (await (await deps.automation()).status()).filter((s) => s.installed).map((s) => s.task);
  } catch (error) {
    scheduleProblem = oneLine(error);
  }
  const stateRoot = existsSync(deps.paths.root) ? deps.paths.root : null;
  const activity = existsSync(deps.paths.database) ? queueActivity(await deps.queue()) : IDLE;
  const viewers = stateRoot ? liveViewers(await deps.viewers()) : [];
  return { instructions, mcp, hooks, schedules, scheduleProblem, stateRoot, activity, viewers };
}

export function isNothingToRemove(plan: UninstallPlan): boolean {
  return plan.instructions.length === 0 && plan.mcp.length === 0 && plan.hooks.length === 0 && plan.schedules.length === 0 && plan.stateRoot === null;
}

export function isBusy(activity: QueueActivity): boolean {
  return activity.worker !== null || activity.queued + activity.running > 0;
}

/** The one-line refusal when work is in flight and cancelling it was not asked for. */
export function busyMessage(activity: QueueActivity): string {
  const what = describeActivity(activity);
  return `uninstall would delete the run queue while work is in flight: ${what}; pass --yes to cancel it and uninstall, or wait for it to finish`;
}

/**
 * Why uninstall must not go ahead as asked, or null. Work in flight needs `--yes`, which
 * cancels it; anything else needs `--yes` or a person at a terminal to confirm.
 */
export function uninstallRefusal(plan: UninstallPlan, options: { yes: boolean; canConfirm: boolean }): string | null {
  if (options.yes) return null;
  if (isBusy(plan.activity)) return busyMessage(plan.activity);
  return options.canConfirm ? null : `uninstall removes ${describePlan(plan)}; pass --yes`;
}

/** What uninstall would remove, as one phrase. */
export function describePlan(plan: UninstallPlan): string {
  const parts: string[] = [];
  if (plan.instructions.length > 0) parts.push(`the codealmanac block in ${plan.instructions.map((i) => i.path).join(" and ")}`);
  if (plan.mcp.length > 0) parts.push(`the codealmanac MCP server in ${plan.mcp.map((m) => m.configPath).join(" and ")}`);
  if (plan.hooks.length > 0) parts.push(`the codealmanac SessionEnd hook in ${plan.hooks.map((h) => h.path).join(" and ")}`);
  if (plan.schedules.length > 0) parts.push(`the ${plan.schedules.join(" and ")} schedule${plan.schedules.length === 1 ? "" : "s"}`);
  if (plan.stateRoot) parts.push(`the state directory ${plan.stateRoot} (run history, indexes, config)`);
  for (const viewer of plan.viewers) parts.push(`the viewer running at ${viewer.url} (pid ${viewer.pid}), which is stopped first`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "nothing");
}

export async function runUninstall(plan: UninstallPlan, deps: UninstallDeps, options: { cancelActive: boolean }): Promise<UninstallReport> {
  const warnings: Check[] = [];
  const hasDatabase = existsSync(deps.paths.database);
  const queue = hasDatabase ? await deps.queue() : null;
  let shutdown = { cancelled: [] as string[], worker: null as number | null };
  if (queue && isBusy(queueActivity(queue))) {
    if (!options.cancelActive) throw conflict(busyMessage(queueActivity(queue)));
    shutdown = await shutDownQueue(queue);
  }
  const schedules = await removeSchedules(plan, deps, warnings);
  const instructions = INSTRUCTION_TARGETS.flatMap((target) => removeInstructions(target, deps.env));
  const mcp = await removeMcpServers(plan.mcp, deps, warnings);
  const hooks = removeHooks(plan, deps, warnings);
  const viewers = plan.stateRoot ? await stopRunningViewers(deps, warnings) : [];
  const stateRoot = removeState(plan, deps, queue, warnings);
  const { cancelled, worker } = shutdown;
  return { instructions, mcp, hooks, schedules, stateRoot, cancelled, worker, viewers, warnings, packageCommand: PACKAGE_UNINSTALL };
}

/** Before the state root goes: a viewer left running would show deleted wikis (and recreate an empty state database). */
async function stopRunningViewers(deps: UninstallDeps, warnings: Check[]): Promise<ViewerRecord[]> {
  const { stopped, survivors } = await stopViewers(await deps.viewers());
  for (const viewer of survivors) {
    warnings.push({ key: "viewer", status: "warn", message: `could not stop the viewer at ${viewer.url} (pid ${viewer.pid})`, fix: `stop it with Ctrl-C where \`ca serve\` runs, or kill ${viewer.pid}` });
  }
  return stopped;
}

/** Before the state root goes: the record of what setup created in the hook files lives there. */
function removeHooks(plan: UninstallPlan, deps: UninstallDeps, warnings: Check[]): RemovedHook[] {
  const removed: RemovedHook[] = [];
  for (const { target, path } of plan.hooks) {
    try {
      const result = removeHook(target, deps.env, deps.hookRecord);
      if (result) removed.push(result);
    } catch (error) {
      warnings.push({ key: `hooks.${target}`, status: "warn", message: `could not remove the SessionEnd hook from ${path}: ${oneLine(error)}`, fix: `delete the entry running \`hook session-end\` from "hooks.SessionEnd" in ${path} by hand` });
    }
  }
  return removed;
}

/** Every scheduler that may hold one is asked, not only the one status reads: detection may have changed since setup. */
async function removeSchedules(plan: UninstallPlan, deps: UninstallDeps, warnings: Check[]): Promise<AutomationTask[]> {
  try {
    const removed = await (await deps.automation()).removeAll();
    return AUTOMATION_TASKS.filter((task) => removed.some((r) => r.task === task && r.changed));
  } catch (error) {
    // Nothing was seen installed and no scheduler answers: there is nothing to warn about.
    if (plan.schedules.length === 0 && plan.scheduleProblem === null) return [];
    warnings.push({
      key: "schedules",
      status: "warn",
      message: `could not remove the schedules: ${oneLine(error)}`,
      fix: "remove the codealmanac entries from your scheduler by hand (crontab -e, systemctl --user, or launchctl)",
    });
    return [];
  }
}

function removeState(plan: UninstallPlan, deps: UninstallDeps, queue: QueueShutdownDeps | null, warnings: Check[]): string | null {
  const root = plan.stateRoot;
  if (root === null || !existsSync(root)) return null;
  const hazard = stateRootHazard({ root, home: deps.home, repositoryRoots: queue ? deps.repositoryRoots() : [] });
  if (hazard) {
    warnings.push({ key: "state", status: "warn", message: `kept ${root}: ${hazard}`, fix: "delete codealmanac's files there by hand" });
    return null;
  }
  // Work queued since the shutdown would be lost with the ledger: stop rather than delete it.
  if (queue && isBusy(queueActivity(queue))) throw conflict(busyMessage(queueActivity(queue)));
  deps.closeState();
  deleteStateRoot(root);
  return root;
}
