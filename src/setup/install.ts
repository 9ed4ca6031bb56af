/**
 * `setup`: instructions into the agents' global files, settings into config.toml, our MCP
 * server registered with the agents, and the sync and garden schedules. Missing or
 * logged-out agent CLIs, an MCP registration that fails and a scheduler that cannot be
 * used are warnings: the rest of setup is useful without them.
 */
import { AUTOMATION_TASKS, type Automation, type AutomationTask } from "../automation/model.js";
import { oneLine } from "../core/errors.js";
import type { HarnessProbe } from "./harness-probe.js";
import { readinessWarnings } from "./harness-checks.js";
import { applyInstructions, planInstructions } from "./instruction-files.js";
import type { McpClient, RegistrationReport } from "../mcp/install/model.js";
import { registerMcpServers } from "./mcp-servers.js";
import type { Check, ScheduleOutcome, SettingsStore, SetupReport, SetupRequest } from "./model.js";

export interface InstallDeps {
  env: NodeJS.ProcessEnv;
  probeHarnesses(): Promise<HarnessProbe[]>;
  settings(): Promise<SettingsStore>;
  automation(): Promise<Automation>;
  /** Registers the MCP server with a client in the user scope (`ca mcp install --client <client>`). */
  registerMcp(client: McpClient): Promise<RegistrationReport>;
}

export async function runSetup(request: SetupRequest, deps: InstallDeps): Promise<SetupReport> {
  const warnings: Check[] = readinessWarnings(await deps.probeHarnesses(), request.settings.harnessDefault);
  // Every edit is checked before the first write, so a file setup cannot edit stops it with nothing changed.
  const edits = request.targets.map((target) => planInstructions(target, deps.env));
  const store = await deps.settings();
  await store.saveSettings(request.settings);
  const instructions = edits.map(applyInstructions);
  const mcp = await registerMcpServers(request.mcpClients, (client) => deps.registerMcp(client), warnings);
  const schedules = request.skipSchedules ? [] : await reconcileSchedules(request, deps);
  for (const failed of schedules) {
    if (failed.outcome !== "failed") continue;
    warnings.push({ key: `schedule.${failed.task}`, status: "warn", message: failed.message, fix: failed.fix });
  }
  return { instructions, settings: request.settings, configPath: store.path, schedules, mcp, warnings };
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
  return {
    task,
    outcome: "failed",
    message: `could not schedule ${task}: ${oneLine(error)}`,
    fix: `run \`ca ${task}\` by hand meanwhile; after fixing the scheduler, \`ca setup\` schedules it (or pass --skip-schedules)`,
  };
}
