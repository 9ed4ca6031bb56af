/**
 * The questions `setup` asks a person at a terminal, and `uninstall`'s confirmation.
 * Only what no flag settled is asked; each answer starts at what setup would do without
 * asking. The prompt library is loaded here, and this module only on a terminal.
 */
import { AUTOMATION_TASKS, type AutomationTask, type TaskSettings } from "../../automation/model.js";
import { formatDuration, parseDuration } from "../../config/duration.js";
import { durationProblem } from "../../config/ranges.js";
import { HARNESSES, HARNESS_KINDS, type HarnessKind } from "../../harnesses/catalog.js";
import type { HarnessProbe } from "../../setup/harness-probe.js";
import { INSTRUCTION_TARGETS, type InstructionTarget, type SetupRequest } from "../../setup/model.js";
import type { SetupChoices } from "../../setup/request.js";
import type * as clack from "@clack/prompts";

type Prompts = typeof clack;

export interface SetupQuestions {
  choices: SetupChoices;
  /** What setup does without asking: the answers start here. */
  request: SetupRequest;
  probes: HarnessProbe[];
}

class Cancelled extends Error {}

/** The agent checks under way; `done` says what they found. */
export interface Checking {
  done(probes: HarnessProbe[]): void;
}

/**
 * The title, then a line saying what is being checked, before the agent CLIs are started
 * (seconds, each one): the person sees at once that setup is working. On stderr, like
 * every progress line, so stdout keeps the prompts and the report.
 */
export async function startChecks(): Promise<Checking> {
  const p = await import("@clack/prompts");
  const output = process.stderr;
  p.intro("codealmanac setup");
  p.log.step(`Checking ${HARNESS_KINDS.map((kind) => HARNESSES[kind].label).join(" and ")} (installed, version, login)…`, { output });
  return {
    done(probes) {
      const found = HARNESS_KINDS.map((kind) => `${HARNESSES[kind].label}: ${agentHint(probes.find((probe) => probe.kind === kind))}`);
      p.log.info(found.join("\n"), { output });
    },
  };
}

/** The request as the person answered it; null when they cancelled. */
export async function askSetup(questions: SetupQuestions): Promise<SetupRequest | null> {
  const p = await import("@clack/prompts");
  const { choices, request, probes } = questions;
  try {
    const settings = { ...request.settings };
    if (choices.using === null) settings.harnessDefault = await askAgent(p, settings.harnessDefault, probes);
    const asked = choices.target === null && !choices.skipInstructions;
    const targets = asked ? await askTargets(p, request) : request.targets;
    // Unticking an agent there leaves it untold: no instructions and no MCP server.
    const mcpClients = asked ? request.mcpClients.filter((client) => targets.includes(client)) : request.mcpClients;
    const hooks = asked ? request.hooks.filter((target) => targets.includes(target)) : request.hooks;
    if (choices.autoCommit === null) {
      settings.autoCommit = answer(await p.confirm({ message: "Let runs commit their wiki changes?", initialValue: settings.autoCommit }));
    }
    if (!choices.skipSchedules) {
      for (const task of AUTOMATION_TASKS) {
        const given = choices.schedules[task];
        if (!given.off && given.everyMs === null) settings[task] = await askSchedule(p, task, settings[task]);
      }
    }
    const unticked = asked ? INSTRUCTION_TARGETS.filter((target) => !targets.includes(target)) : [];
    const mcpDeclined = [...new Set([...request.mcpDeclined, ...unticked])];
    return { ...request, targets, settings, mcpClients, mcpDeclined, hooks };
  } catch (error) {
    if (!(error instanceof Cancelled)) throw error;
    p.cancel("setup cancelled");
    return null;
  }
}

export async function confirmUninstall(summary: string): Promise<boolean> {
  const p = await import("@clack/prompts");
  const yes = await p.confirm({ message: `Remove ${summary}?`, initialValue: false });
  return !p.isCancel(yes) && yes;
}

/** Whether to remove what the Python CodeAlmanac left installed; no by default, and on Ctrl-C. */
export async function confirmPythonCleanup(summary: string): Promise<boolean> {
  const p = await import("@clack/prompts");
  const yes = await p.confirm({ message: `The Python CodeAlmanac left ${summary}. Remove them?`, initialValue: true });
  return !p.isCancel(yes) && yes;
}

/** A prompt's value; Ctrl-C (the library's cancel symbol) ends the questions. */
function answer<T>(value: T): Exclude<T, symbol> {
  if (typeof value === "symbol") throw new Cancelled();
  return value as Exclude<T, symbol>;
}

function agentHint(probe: HarnessProbe | undefined): string {
  if (!probe || probe.login === null) return "not installed";
  if (probe.login === "logged_in") return "installed, logged in";
  if (probe.credentials.length > 0) return `installed, uses ${probe.credentials.join(", ")}`;
  return probe.login === "unknown" ? "installed" : "installed, not logged in";
}

async function askAgent(p: Prompts, current: HarnessKind | null, probes: HarnessProbe[]): Promise<HarnessKind | null> {
  const options = [
    ...HARNESS_KINDS.map((kind) => ({
      value: kind as HarnessKind | "detect",
      label: HARNESSES[kind].label,
      hint: agentHint(probes.find((probe) => probe.kind === kind)),
    })),
    { value: "detect" as const, label: "Decide at each run", hint: "the installed agent; Codex when both are" },
  ];
  const message = "Which agent should run ingest, garden and sync?";
  const chosen = answer(await p.select<HarnessKind | "detect">({ message, options, initialValue: current ?? "detect" }));
  return chosen === "detect" ? null : chosen;
}

/** Each agent ticked gets its instructions, and (unless a flag said no) the MCP server and the SessionEnd hook that syncs a session when it ends. */
async function askTargets(p: Prompts, request: SetupRequest): Promise<InstructionTarget[]> {
  const options = INSTRUCTION_TARGETS.map((target) => {
    const parts = [target === "claude" ? "CLAUDE.md" : "AGENTS.md"];
    if (request.mcpClients.includes(target)) parts.push("the MCP server");
    if (request.hooks.includes(target)) parts.push("a SessionEnd hook");
    const hint = parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
    return { value: target, label: HARNESSES[target].label, hint };
  });
  return answer(await p.multiselect({ message: "Tell which agents about the wiki?", options, initialValues: request.targets, required: false }));
}

async function askSchedule(p: Prompts, task: AutomationTask, current: TaskSettings): Promise<TaskSettings> {
  const every = formatDuration(current.everyMs);
  const what = task === "sync" ? "Sync recent agent sessions into the wikis" : "Garden the wikis";
  const options = [
    { value: "keep", label: `Every ${every}` },
    { value: "other", label: "At another interval" },
    { value: "off", label: "Not on a schedule" },
  ];
  const chosen = answer(await p.select({ message: `${what} on a schedule?`, options, initialValue: current.enabled ? "keep" : "off" }));
  if (chosen === "off") return { enabled: false, everyMs: current.everyMs };
  if (chosen === "keep") return { enabled: true, everyMs: current.everyMs };
  const text = answer(
    await p.text({
      message: `How often should ${task} run?`,
      placeholder: every,
      validate: (value) => durationProblem(`automation.${task}.every`, value ?? "") ?? undefined,
    }),
  );
  return { enabled: true, everyMs: parseDuration(text)! };
}
