/**
 * The verbs behind `setup`, `doctor` and `uninstall`, over the ports app.ts provides.
 */
import type { ViewerShutdownDeps } from "./viewer-shutdown.js";
import type { Automation } from "../automation/model.js";
import type { Config } from "../config/config.js";
import type { CommandRunner } from "../core/command.js";
import { ProductError } from "../core/errors.js";
import { resolveExecutable } from "../core/executables.js";
import { homeDir, type StatePaths } from "../core/paths.js";
import type { Db } from "../core/sqlite.js";
import { HARNESSES, type HarnessKind } from "../harnesses/catalog.js";
import type { HarnessReadiness } from "../harnesses/types.js";
import type { ValidationIssue } from "../index/views/validate.js";
import { MCP_CLIENTS, type McpClient, type RegistrationAction, type RegistrationReport, type ServerCommand } from "../mcp/install/model.js";
import type { Repository } from "../repositories/model.js";
import { runDoctor, type RegistryDiagnosis, type WikiDiagnosis } from "./doctor.js";
import { hookCommand } from "./agent-hooks.js";
import { realScript, serverCommand } from "../mcp/install/server-command.js";
import { MCP_RECORD_FILE, readMcpRecord } from "./mcp-servers.js";
import { join } from "node:path";
import { probeHarnesses, type HarnessProbe } from "./harness-probe.js";
import { runSetup } from "./install.js";
import { asideDatabases, describeLeftovers, findPythonLeftovers, removePythonLeftovers, type PythonLeftover } from "./python/leftovers.js";
import type { DoctorReport, SettingsStore, SetupReport, SetupRequest } from "./model.js";
import type { QueueShutdownDeps } from "./queue-shutdown.js";
import { setupRequest, type SetupChoices } from "./request.js";
import { inspectStateDatabase, probeSqliteModule } from "./state-database.js";
import {
  describePlan,
  isNothingToRemove,
  planUninstall,
  runUninstall,
  uninstallRefusal,
  type UninstallDeps,
  type UninstallPlan,
  type UninstallReport,
} from "./uninstall.js";

export interface SetupServiceDeps {
  env: NodeJS.ProcessEnv;
  paths: StatePaths;
  nodeVersion: string;
  run: CommandRunner;
  readiness(kind: HarnessKind): Promise<HarnessReadiness>;
  automation(): Promise<Automation>;
  settings(): Promise<SettingsStore>;
  config(): Promise<Config>;
  stateDb(): Db;
  /** The registry against the state root's index folders (doctor's state.registry). */
  registry(): RegistryDiagnosis;
  /** The agents the newest runs in the ledger used (doctor judges those when harness.default is unset). */
  harnessesUsed(): string[];
  selectRepository(cwd: string, wiki?: string): Repository;
  wikiIssues(repository: Repository): Promise<ValidationIssue[]>;
  queue(): Promise<QueueShutdownDeps>;
  viewers(): Promise<ViewerShutdownDeps>;
  repositoryRoots(): string[];
  closeState(): void;
}

export class SetupService {
  private probes?: Promise<HarnessProbe[]>;

  constructor(private readonly deps: SetupServiceDeps) {}

  /** What setup does for these choices, from the current config; throws when config.toml is invalid. */
  async request(choices: SetupChoices): Promise<SetupRequest> {
    const installed = (kind: HarnessKind) => resolveExecutable(HARNESSES[kind].executable, this.deps.env) !== null;
    return setupRequest(choices, await this.deps.config(), installed);
  }

  harnesses(): Promise<HarnessProbe[]> {
    this.probes ??= probeHarnesses({ env: this.deps.env, run: this.deps.run, readiness: (kind) => this.deps.readiness(kind) });
    return this.probes;
  }

  setup(request: SetupRequest): Promise<SetupReport> {
    return runSetup(request, {
      env: this.deps.env,
      probeHarnesses: () => this.harnesses(),
      settings: () => this.deps.settings(),
      automation: () => this.deps.automation(),
      registerMcp: (client) => this.registerMcp(client),
      hookCommand: this.hookCommand(),
      hookRecord: this.hookRecord(),
      mcpRecord: this.mcpRecord(),
      pythonLeftovers: {
        find: () => findPythonLeftovers(this.deps.env),
        remove: (leftovers) =>
          removePythonLeftovers(leftovers, { env: this.deps.env, platform: process.platform, run: this.deps.run, uid: process.getuid?.() ?? 0 }),
      },
    });
  }

  /** What the SessionEnd hooks run: this node and this CLI's script, as the MCP registration records them. */
  private hookCommand(): string {
    return hookCommand(process.execPath, realScript(process.argv[1] ?? "codealmanac"));
  }

  private hookRecord(): string {
    return join(this.deps.paths.root, "agent-hooks.json");
  }

  private mcpRecord(): string {
    return join(this.deps.paths.root, MCP_RECORD_FILE);
  }

  /** The server this very CLI runs: what setup registers and doctor compares with. */
  private mcpServer(): ServerCommand {
    return serverCommand(process.execPath, process.argv[1] ?? "codealmanac");
  }

  /** The server this very CLI runs, registered as `ca mcp install --client <client>` would. */
  private registerMcp(client: McpClient): Promise<RegistrationReport> {
    return this.changeMcp("install", client);
  }

  private async changeMcp(action: RegistrationAction, client: McpClient): Promise<RegistrationReport> {
    const { registerServer } = await import("../mcp/install/service.js");
    const { env, run } = this.deps;
    const server = this.mcpServer();
    return registerServer(action, { client, scope: "user", print: false }, { env, cwd: homeDir(env), run, server });
  }

  private async mcpRegistration(client: McpClient): Promise<string | null> {
    const { registeredIn } = await import("../mcp/install/service.js");
    const { env } = this.deps;
    return registeredIn(client, "user", { env, cwd: homeDir(env) });
  }

  /** Our entry with each client, read without changing anything, and what setup decided for it. */
  private async mcpRegistrations() {
    const { findRegistration } = await import("../mcp/install/service.js");
    const { env } = this.deps;
    const record = readMcpRecord(this.mcpRecord());
    return MCP_CLIENTS.map((client) => ({ client, found: findRegistration(client, "user", { env, cwd: homeDir(env) }), decision: record[client] ?? null }));
  }

  doctor(cwd: string, wiki?: string): Promise<DoctorReport> {
    const { deps } = this;
    return runDoctor({
      env: deps.env,
      platform: process.platform,
      nodeVersion: deps.nodeVersion,
      databasePath: deps.paths.database,
      configPath: deps.paths.config,
      sqliteModule: probeSqliteModule,
      stateDatabase: () => inspectStateDatabase(deps.stateDb()),
      registry: () => deps.registry(),
      config: () => deps.config(),
      probeHarnesses: () => this.harnesses(),
      harnessesUsed: () => deps.harnessesUsed(),
      mcpRegistrations: () => this.mcpRegistrations(),
      mcpServer: this.mcpServer(),
      schedules: async () => (await deps.automation()).status(),
      wiki: () => this.diagnoseWiki(cwd, wiki),
      hookCommand: this.hookCommand(),
      python: () => ({ leftovers: findPythonLeftovers(deps.env), asideDatabases: asideDatabases(deps.paths.database) }),
    });
  }

  /** What the Python CodeAlmanac left installed (see python/leftovers.ts). */
  pythonLeftovers(): PythonLeftover[] {
    return findPythonLeftovers(this.deps.env);
  }

  describePythonLeftovers(leftovers: PythonLeftover[]): string {
    return describeLeftovers(leftovers);
  }

  planUninstall(): Promise<UninstallPlan> {
    return planUninstall(this.uninstallDeps());
  }

  isNothingToRemove(plan: UninstallPlan): boolean {
    return isNothingToRemove(plan);
  }

  describePlan(plan: UninstallPlan): string {
    return describePlan(plan);
  }

  uninstallRefusal(plan: UninstallPlan, options: { yes: boolean; canConfirm: boolean }): string | null {
    return uninstallRefusal(plan, options);
  }

  uninstall(plan: UninstallPlan, options: { cancelActive: boolean }): Promise<UninstallReport> {
    return runUninstall(plan, this.uninstallDeps(), options);
  }

  private uninstallDeps(): UninstallDeps {
    const { deps } = this;
    return {
      env: deps.env,
      paths: deps.paths,
      home: homeDir(deps.env),
      automation: () => deps.automation(),
      queue: () => deps.queue(),
      repositoryRoots: () => deps.repositoryRoots(),
      viewers: () => deps.viewers(),
      closeState: () => deps.closeState(),
      hookCommand: this.hookCommand(),
      hookRecord: this.hookRecord(),
      mcpRegistration: (client) => this.mcpRegistration(client),
      unregisterMcp: (client) => this.changeMcp("uninstall", client),
    };
  }

  private async diagnoseWiki(cwd: string, wiki?: string): Promise<WikiDiagnosis | null> {
    let repository: Repository;
    try {
      repository = this.deps.selectRepository(cwd, wiki);
    } catch (error) {
      if (error instanceof ProductError && error.code === "repository_not_selected") return null;
      throw error;
    }
    const issues = await this.deps.wikiIssues(repository);
    const errors = issues.filter((i) => i.severity === "error").length;
    return { name: repository.name, root: repository.rootPath, errors, warnings: issues.length - errors };
  }
}
