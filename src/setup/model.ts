/**
 * Shapes of `setup`, `doctor` and `uninstall`: what they are asked, what they report,
 * and the ports app.ts fills in for them.
 */
import type { AutomationTask, ReconcileResult, TaskSettings } from "../automation/model.js";
import type { HarnessKind } from "../harnesses/catalog.js";
import type { McpClient, RegistrationStatus } from "../mcp/install/model.js";

export const INSTRUCTION_TARGETS = ["claude", "codex"] as const;
export type InstructionTarget = (typeof INSTRUCTION_TARGETS)[number];

/** The agents with a SessionEnd hook `setup` installs (see agent-hooks.ts). */
export const HOOK_TARGETS = ["claude", "codex"] as const;
export type HookTarget = (typeof HOOK_TARGETS)[number];

/** What setup did with one agent's hook. */
export interface HookResult {
  target: HookTarget;
  path: string;
  status: "installed" | "updated" | "already installed";
}

export interface InstructionResult {
  target: InstructionTarget;
  path: string;
  status: "installed" | "updated" | "already installed";
}

/** What the Python CodeAlmanac left installed (see python/leftovers.ts). */
export type LeftoverKind = "update_job" | "claude_guide" | "claude_import";

export interface PythonLeftover {
  kind: LeftoverKind;
  path: string;
}

export interface LeftoverRemoval extends PythonLeftover {
  removed: boolean;
  /** Why it could not be removed. */
  problem?: string;
}

export type CheckStatus = "ok" | "warn" | "fail";

/** One line of `doctor` (and one warning of `setup`): a stable key, a verdict, what to do about it. */
export interface Check {
  key: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

/** The settings `setup` chooses, written to config.toml in one write. */
export interface SetupSettings {
  autoCommit: boolean;
  /** `harness.default`; null leaves whatever config.toml says. */
  harnessDefault: HarnessKind | null;
  sync: TaskSettings;
  garden: TaskSettings;
}

/** The config port: the composition root wires it to the config editor. */
export interface SettingsStore {
  /** Where the settings live, for the report. */
  readonly path: string;
  /** Writes the settings in one write, keeping every other key of the file. */
  saveSettings(settings: SetupSettings): Promise<void>;
}

export interface SetupRequest {
  /** Empty when instructions are skipped. */
  targets: InstructionTarget[];
  settings: SetupSettings;
  skipSchedules: boolean;
  /** The clients to register the MCP server with (user scope); empty with --no-mcp. */
  mcpClients: McpClient[];
  /** The clients the person said no to (`--no-mcp`, or unticked at the terminal): recorded so doctor does not ask for them. */
  mcpDeclined: McpClient[];
  /** The agents to install the SessionEnd hook for; empty with --skip-hooks. */
  hooks: HookTarget[];
  /** Remove what the Python CodeAlmanac left installed (`--yes`, or yes to the question); else it is a warning. */
  removePythonLeftovers: boolean;
}

/** One client's MCP registration during setup; a failure does not stop setup and is also one of its warnings. */
export type McpOutcome =
  | { client: McpClient; status: RegistrationStatus; configPath: string }
  | { client: McpClient; status: "failed"; message: string; fix: string };

export type ScheduleOutcome =
  | ({ outcome: "installed" | "removed" | "unchanged" } & ReconcileResult)
  /** The scheduler could not be updated; config.toml is saved anyway (the failed-schedule contract: see cli/render/config.ts). */
  | { task: AutomationTask; outcome: "failed"; error: string };

export interface SetupReport {
  instructions: InstructionResult[];
  settings: SetupSettings;
  configPath: string;
  /** Empty when schedules were skipped. */
  schedules: ScheduleOutcome[];
  /** Empty when no client was registered (--no-mcp, or no agent CLI installed). */
  mcp: McpOutcome[];
  /** The SessionEnd hooks; one that could not be installed is among the warnings. Empty with --skip-hooks. */
  hooks: HookResult[];
  /** What the Python CodeAlmanac left installed, and whether each was removed; empty when nothing was left or it was kept. */
  python: LeftoverRemoval[];
  /** Problems that did not stop setup (agents missing or logged out, an MCP registration that failed); failed schedules are in `schedules`. */
  warnings: Check[];
}

export interface DoctorReport {
  checks: Check[];
  ok: boolean;
}
