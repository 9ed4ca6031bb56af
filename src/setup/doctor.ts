/**
 * `doctor`: read-only checks of the installation, the agent CLIs, the schedules and the
 * current wiki. Each check is isolated, so one broken piece is reported as a failing
 * line instead of stopping the others.
 */
import { existsSync } from "node:fs";
import { AUTOMATION_TASKS, type ScheduleStatus } from "../automation/model.js";
import { configWarnings, type Config } from "../config/config.js";
import { StorageError, oneLine } from "../core/errors.js";
import { MIN_NODE_MAJOR } from "../core/version.js";
import { isHarnessKind, PREFERRED_HARNESS } from "../harnesses/catalog.js";
import type { ServerCommand } from "../mcp/install/model.js";
import { harnessChecks, type JudgedAgents } from "./harness-checks.js";
import type { HarnessProbe } from "./harness-probe.js";
import { installedFiles } from "./instruction-files.js";
import { HOOK_TARGETS, hookState, type HookTarget } from "./agent-hooks.js";
import { INSTRUCTION_TARGETS, type Check, type DoctorReport } from "./model.js";
import type { StateDatabaseReport } from "./state-database.js";
import { describeLeftovers, type PythonLeftover } from "./python/leftovers.js";
import { mcpCheck, type McpInspection } from "./mcp-checks.js";
import { scheduleCheck, type ScheduleContext } from "./schedule-checks.js";

export interface WikiDiagnosis {
  name: string;
  root: string;
  errors: number;
  warnings: number;
}

/** The registry against the state root (after the recovery every first open of the state database runs). */
export interface RegistryDiagnosis {
  registered: number;
  /** Wikis registered again just now, from what their index recorded: `name (root)`. */
  restored: string[];
  /** Index folders under repos/ whose index does not say which wiki it belongs to. */
  unknown: string[];
  reposPath: string;
}

export interface DoctorDeps {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  nodeVersion: string;
  databasePath: string;
  configPath: string;
  sqliteModule(): void;
  stateDatabase(): StateDatabaseReport;
  registry(): RegistryDiagnosis;
  config(): Promise<Config>;
  probeHarnesses(): Promise<HarnessProbe[]>;
  /** The agents recent runs in the ledger used, newest first (repeats allowed). */
  harnessesUsed(): string[];
  /** Our MCP server's registration with each client, and what setup decided for it. */
  mcpRegistrations(): Promise<Omit<McpInspection, "installed">[]>;
  /** The server this installation registers (`ca mcp`). */
  mcpServer: ServerCommand;
  schedules(): Promise<ScheduleStatus[]>;
  /** The wiki selected like other commands do; null when there is none. */
  wiki(): Promise<WikiDiagnosis | null>;
  /** The command this installation's SessionEnd hooks run. */
  hookCommand: string;
  /** What the Python CodeAlmanac left installed, and its database files moved aside. */
  python(): { leftovers: PythonLeftover[]; asideDatabases: string[] };
}

export async function runDoctor(deps: DoctorDeps): Promise<DoctorReport> {
  const checks: Check[] = [nodeCheck(deps.nodeVersion)];
  const sqlite = guard("sqlite.module", () => sqliteCheck(deps));
  checks.push(sqlite);
  const database: Check =
    sqlite.status === "fail"
      ? { key: "state.database", status: "fail", message: `${deps.databasePath} cannot be opened without the SQLite module` }
      : guard("state.database", () => databaseCheck(deps));
  checks.push(database);
  // Without a state database there is no registry to compare: its check already says why.
  if (database.status !== "fail") checks.push(guard("state.registry", () => registryCheck(deps.registry())));
  const config = await settle(deps.config());
  checks.push(configCheck(deps, config));
  const probes = await deps.probeHarnesses();
  const used = database.status === "fail" ? [] : attempt(() => deps.harnessesUsed(), []);
  checks.push(...harnessChecks(probes, judgedAgents(config.ok ? config.value : null, used, probes)));
  checks.push(...INSTRUCTION_TARGETS.map((target) => guard(`instructions.${target}`, () => instructionsCheck(target, deps.env))));
  checks.push(...(await mcpChecks(deps, probes)));
  checks.push(...HOOK_TARGETS.map((target) => guard(`hooks.${target}`, () => hookCheck(target, deps))));
  const scheduleContext = { config: config.ok ? config.value : null, configExists: existsSync(deps.configPath), platform: deps.platform, env: deps.env };
  checks.push(...(await scheduleChecks(deps, scheduleContext)));
  checks.push(...guardAll("legacy.python", () => pythonChecks(deps)));
  checks.push(...(await wikiChecks(deps)));
  return { checks, ok: checks.every((c) => c.status !== "fail") };
}

function nodeCheck(version: string): Check {
  const major = Number(version.replace(/^v/, "").split(".")[0]);
  if (major >= MIN_NODE_MAJOR) return { key: "node", status: "ok", message: `Node ${version.replace(/^v/, "")}` };
  return {
    key: "node",
    status: "fail",
    message: `Node ${version} is too old; codealmanac needs ${MIN_NODE_MAJOR} or later`,
    fix: `install Node ${MIN_NODE_MAJOR} or later`,
  };
}

function sqliteCheck(deps: DoctorDeps): Check {
  try {
    deps.sqliteModule();
    return { key: "sqlite.module", status: "ok", message: "the SQLite module loads" };
  } catch (error) {
    return {
      key: "sqlite.module",
      status: "fail",
      message: `the SQLite module does not load: ${oneLine(error)}`,
      fix: "reinstall codealmanac (npm install -g codealmanac) so its native module matches this Node",
    };
  }
}

function databaseCheck(deps: DoctorDeps): Check {
  let report: StateDatabaseReport;
  try {
    report = deps.stateDatabase();
  } catch (error) {
    if (error instanceof StorageError) return { key: "state.database", status: "fail", message: error.problem, fix: error.fix };
    throw error;
  }
  const { schemaVersion, integrity } = report;
  if (integrity === "ok") {
    return { key: "state.database", status: "ok", message: `${deps.databasePath} (schema ${schemaVersion}, integrity ok)` };
  }
  return {
    key: "state.database",
    status: "fail",
    message: `${deps.databasePath} fails SQLite's integrity check: ${integrity}`,
    fix: "move the file aside and let codealmanac create a new one: the wikis are registered again from their indexes; the run history stays in the moved file",
  };
}

function registryCheck(registry: RegistryDiagnosis): Check {
  const wikis = `${registry.registered} wiki${registry.registered === 1 ? "" : "s"} registered`;
  if (registry.unknown.length > 0) {
    const folders = registry.unknown.map((id) => `${registry.reposPath}/${id}`).join(", ");
    return {
      key: "state.registry",
      status: "warn",
      message: `${wikis}; ${folders} hold${registry.unknown.length === 1 ? "s" : ""} an index that does not say which wiki it belongs to`,
      fix: "run any command inside that wiki's repository to register it again, or delete the folder (it is derived and rebuilt on use)",
    };
  }
  const n = registry.restored.length;
  const restored = n > 0 ? `; registered again from ${n === 1 ? "its index" : "their indexes"}: ${registry.restored.join(", ")}` : "";
  return { key: "state.registry", status: "ok", message: `${wikis}${restored}` };
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

async function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

function configCheck(deps: DoctorDeps, config: Settled<Config>): Check {
  if (!config.ok) {
    return { key: "config", status: "fail", message: oneLine(config.error), fix: `fix ${deps.configPath}, or run \`ca setup\` to rewrite it` };
  }
  if (!existsSync(deps.configPath)) return { key: "config", status: "ok", message: "no config.toml; defaults apply" };
  // Valid key by key but odd together (what `config set` warns about too).
  const odd = configWarnings(config.value);
  if (odd.length > 0) {
    return { key: "config", status: "warn", message: `${deps.configPath} is valid, but ${odd.join("; ")}`, fix: "change one of the keys it names with `codealmanac config set`" };
  }
  return { key: "config", status: "ok", message: `${deps.configPath} is valid` };
}

/**
 * The agents whose problems fail doctor: `harness.default` when set; else the agents recent
 * runs used; else the one a run would detect (the only one installed, else the preferred one).
 */
function judgedAgents(config: Config | null, used: string[], probes: HarnessProbe[]): JudgedAgents {
  if (config?.harnessDefault) return { kinds: [config.harnessDefault], why: "harness.default" };
  const recent = [...new Set(used.filter(isHarnessKind))];
  if (recent.length > 0) return { kinds: recent, why: "recent runs used it" };
  const installed = probes.filter((p) => p.login !== null).map((p) => p.kind);
  if (installed.length === 1) return { kinds: installed, why: "the only agent installed" };
  if (installed.length > 1) return { kinds: [PREFERRED_HARNESS], why: "harness.default is unset and both are installed" };
  return { kinds: [], why: "none is installed" };
}

async function mcpChecks(deps: DoctorDeps, probes: HarnessProbe[]): Promise<Check[]> {
  let registrations: Omit<McpInspection, "installed">[];
  try {
    registrations = await deps.mcpRegistrations();
  } catch (error) {
    return [{ key: "mcp", status: "warn", message: `could not read the MCP server registrations: ${oneLine(error)}` }];
  }
  return registrations.map((registration) => {
    const installed = probes.some((p) => p.kind === registration.client && p.login !== null);
    return guard(`mcp.${registration.client}`, () => mcpCheck({ ...registration, installed }, deps.mcpServer, deps.env));
  });
}

function instructionsCheck(target: (typeof INSTRUCTION_TARGETS)[number], env: NodeJS.ProcessEnv): Check {
  const key = `instructions.${target}`;
  const files = installedFiles(target, env);
  if (files.length > 0) return { key, status: "ok", message: `installed in ${files.join(", ")}` };
  return { key, status: "warn", message: `${target} is not told about the wiki`, fix: `ca setup --target ${target}` };
}

/** Whether the agent syncs a session when it ends: our hook in its file, running this installation. */
function hookCheck(target: HookTarget, deps: DoctorDeps): Check {
  const key = `hooks.${target}`;
  const state = hookState(target, deps.env, deps.hookCommand);
  if (state.status === "missing") {
    return { key, status: "warn", message: `no SessionEnd hook in ${state.path}: ${target} sessions wait for the scheduled sync`, fix: `ca setup --target ${target}` };
  }
  if (state.status === "stale") {
    const runs = state.commands.join("; ");
    return { key, status: "warn", message: `the SessionEnd hook in ${state.path} is not this installation's (it runs ${runs})`, fix: `ca setup --target ${target} updates it` };
  }
  const trust = target === "codex" ? " (Codex runs it once you trust it: /hooks in Codex)" : "";
  return { key, status: "ok", message: `SessionEnd hook installed in ${state.path}${trust}` };
}

async function scheduleChecks(deps: DoctorDeps, context: ScheduleContext): Promise<Check[]> {
  let statuses: ScheduleStatus[];
  try {
    statuses = await deps.schedules();
  } catch (error) {
    return AUTOMATION_TASKS.map((task) => ({
      key: `schedule.${task}`,
      status: "warn" as const,
      message: `could not read the schedule: ${oneLine(error)}`,
      fix: "`ca automation status` shows details",
    }));
  }
  return statuses.map((status) => scheduleCheck(status, context));
}

async function wikiChecks(deps: DoctorDeps): Promise<Check[]> {
  let wiki: WikiDiagnosis | null;
  try {
    wiki = await deps.wiki();
  } catch (error) {
    if (error instanceof StorageError) return [{ key: "wiki", status: "fail", message: error.problem, fix: error.fix }];
    return [{ key: "wiki", status: "fail", message: oneLine(error), fix: "`ca list` shows the registered wikis" }];
  }
  if (!wiki) {
    return [{ key: "wiki", status: "ok", message: "no wiki here (run doctor inside a repository with almanac/, or pass --wiki NAME)" }];
  }
  const counts = `${wiki.errors} error${wiki.errors === 1 ? "" : "s"}, ${wiki.warnings} warning${wiki.warnings === 1 ? "" : "s"}`;
  return [
    { key: "wiki", status: "ok", message: `${wiki.name} at ${wiki.root}` },
    wiki.errors > 0
      ? { key: "wiki.health", status: "fail", message: counts, fix: "`ca validate` lists them; `ca garden` can repair them" }
      : { key: "wiki.health", status: "ok", message: counts },
  ];
}

/** Said only to whoever had the Python CodeAlmanac: what it left installed, and where its database is kept. */
function pythonChecks(deps: DoctorDeps): Check[] {
  const { leftovers, asideDatabases } = deps.python();
  const kept = asideDatabases.length > 0 ? `; its database is kept at ${asideDatabases.join(", ")} (delete it once you no longer need its job history)` : "";
  if (leftovers.length > 0) {
    const message = `the Python CodeAlmanac left ${describeLeftovers(leftovers)}${kept}`;
    return [{ key: "legacy.python", status: "warn", message, fix: "`ca setup` offers to remove them; `ca setup --yes` removes them" }];
  }
  if (kept === "") return [];
  return [{ key: "legacy.python", status: "ok", message: `nothing of the Python CodeAlmanac is left installed${kept}` }];
}

function guardAll(key: string, checks: () => Check[]): Check[] {
  try {
    return checks();
  } catch (error) {
    return [{ key, status: "fail", message: oneLine(error) }];
  }
}

function attempt<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

function guard(key: string, check: () => Check): Check {
  try {
    return check();
  } catch (error) {
    return { key, status: "fail", message: oneLine(error) };
  }
}
