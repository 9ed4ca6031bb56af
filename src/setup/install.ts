/**
 * `setup`: instructions into the agents' global files, settings into config.toml, our MCP
 * server registered with the agents, and the sync and garden schedules. Missing or
 * logged-out agent CLIs and an MCP registration that fails are warnings: the rest of setup
 * is useful without them. A schedule that cannot be installed is reported as failed, after
 * everything else is saved, and the command then exits 1 as `config set` does.
 */
import { AUTOMATION_TASKS, type Automation, type AutomationTask } from "../automation/model.js";
import { oneLine } from "../core/errors.js";
import type { HarnessProbe } from "./harness-probe.js";
import { readinessWarnings } from "./harness-checks.js";
import { applyInstructions, planInstructions } from "./instruction-files.js";
import type { McpClient, RegistrationReport } from "../mcp/install/model.js";
import { recordMcpDecisions, registerMcpServers } from "./mcp-servers.js";
import type { Check, ScheduleOutcome, SettingsStore, SetupReport, SetupRequest } from "./model.js";
import { applyHook, planHook, type HookResult, type HookTarget } from "./agent-hooks.js";
import { HARNESSES } from "../harnesses/catalog.js";
import { describeLeftovers, type LeftoverRemoval, type PythonLeftover } from "./python/leftovers.js";

export interface InstallDeps {
  env: NodeJS.ProcessEnv;
  probeHarnesses(): Promise<HarnessProbe[]>;
  settings(): Promise<SettingsStore>;
  automation(): Promise<Automation>;
  /** Registers the MCP server with a client in the user scope (`ca mcp install --client <client>`). */
  registerMcp(client: McpClient): Promise<RegistrationReport>;
  /** The command the SessionEnd hooks run (this CLI's `hook session-end`). */
  hookCommand: string;
  /** Where setup records what it created in the agents' hook files (see agent-hooks.ts). */
  hookRecord: string;
  /** Where setup records which clients' MCP registrations were asked for or declined (see mcp-servers.ts). */
  mcpRecord: string;
  pythonLeftovers: {
    find(): PythonLeftover[];
    remove(leftovers: PythonLeftover[]): Promise<LeftoverRemoval[]>;
  };
}

export async function runSetup(request: SetupRequest, deps: InstallDeps): Promise<SetupReport> {
  const warnings: Check[] = readinessWarnings(await deps.probeHarnesses(), request.settings.harnessDefault);
  // Every edit is checked before the first write, so a file setup cannot edit stops it with nothing changed.
  const edits = request.targets.map((target) => planInstructions(target, deps.env));
  const store = await deps.settings();
  await store.saveSettings(request.settings);
  const instructions = edits.map(applyInstructions);
  const mcp = await registerMcpServers(request.mcpClients, (client) => deps.registerMcp(client), warnings);
  recordMcpDecisions(deps.mcpRecord, mcp, request.mcpDeclined);
  const hooks = installHooks(request.hooks, deps, warnings);
  const schedules = request.skipSchedules ? [] : await reconcileSchedules(request, deps);
  const python = await cleanUpPython(request, deps, warnings);
  return { instructions, settings: request.settings, configPath: store.path, schedules, mcp, hooks, python, warnings };
}

/** Removed when asked to; otherwise a warning naming them, so nothing of the user's goes without consent. */
async function cleanUpPython(request: SetupRequest, deps: InstallDeps, warnings: Check[]): Promise<LeftoverRemoval[]> {
  const leftovers = deps.pythonLeftovers.find();
  if (leftovers.length === 0) return [];
  if (!request.removePythonLeftovers) {
    warnings.push({
      key: "legacy.python",
      status: "warn",
      message: `the Python CodeAlmanac left ${describeLeftovers(leftovers)}`,
      fix: "`ca setup --yes` removes them",
    });
    return [];
  }
  const removals = await deps.pythonLeftovers.remove(leftovers);
  for (const failed of removals.filter((r) => !r.removed)) {
    warnings.push({ key: "legacy.python", status: "warn", message: `could not remove ${failed.path}: ${failed.problem ?? "unknown problem"}`, fix: "remove it by hand" });
  }
  return removals;
}

/** A hook file setup cannot edit (not JSON, say) is a warning: sessions are still synced on schedule. */
function installHooks(targets: HookTarget[], deps: InstallDeps, warnings: Check[]): HookResult[] {
  const results: HookResult[] = [];
  for (const target of targets) {
    try {
      results.push(applyHook(planHook(target, deps.env, deps.hookCommand), deps.hookRecord));
    } catch (error) {
      warnings.push({
        key: `hooks.${target}`,
        status: "warn",
        message: `could not install the SessionEnd hook for ${HARNESSES[target].label}: ${oneLine(error)}`,
        fix: "sessions are still synced on schedule; after fixing it, `ca setup` installs the hook",
      });
    }
  }
  return results;
}

async function reconcileSchedules(request: SetupRequest, deps: InstallDeps): Promise<ScheduleOutcome[]> {
  let automation: Automation;
  try {
    automation = await deps.automation();
  } catch (error) {
    return AUTOMATION_TASKS.map((task) => scheduleFailure(task, error));
  }
  const outcomes: ScheduleOutcome[] = [];
  for (const task of AUTOMATION_TASKS) {
    try {
      const result = await automation.reconcile(task, request.settings[task]);
      const outcome = !result.changed ? "unchanged" : result.enabled ? "installed" : "removed";
      outcomes.push({ ...result, outcome });
    } catch (error) {
      outcomes.push(scheduleFailure(task, error));
    }
  }
  return outcomes;
}

function scheduleFailure(task: AutomationTask, error: unknown): ScheduleOutcome {
  return { task, outcome: "failed", error: oneLine(error) };
}
