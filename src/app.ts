import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { RegistrationAction, RegistrationReport, RegistrationRequest } from "./mcp/install/model.js";
import { indexPath, statePaths, type StatePaths } from "./core/paths.js";
import { trace } from "./core/trace.js";
import { requireQueueSupport } from "./core/platform.js";
import { ForeignDatabaseError, openDatabase, unversionedOnDisk, type Db } from "./core/sqlite.js";
import { repositoryMigrations } from "./repositories/schema.js";
import { RepositoryStore } from "./repositories/store.js";
import { RepositoriesService } from "./repositories/service.js";
import type { DriftService } from "./evidence/service.js";
import type { Recovery } from "./repositories/recovery.js";
import { ProductError, isProductError } from "./core/errors.js";
import { stateDatabaseFailure } from "./setup/state-database.js";
import { runMigrations } from "./runs/schema.js";
import { RunStore } from "./runs/store.js";
import { LockStore } from "./runs/lock-store.js";
import { IndexService } from "./index/service.js";
import type { OrganizeService } from "./index/organize.js";
import type { Config } from "./config/config.js";
import type { CommandRunner } from "./core/command.js";
import { hooksFromEnv, type Hooks } from "./queue/hooks.js";
import { DEFAULT_WORKER_CONFIG, type ProcessControl, type Spawner, type WorkerTiming } from "./queue/ports.js";
import { RunEnvironments } from "./queue/run-environment.js";
import type { ProducerDeps } from "./queue/producer.js";
import type { QueueWorker } from "./queue/worker.js";
import type { ExecutorDeps } from "./queue/executor.js";
import type { JobsService } from "./queue/jobs.js";
import type { LifecycleService } from "./lifecycle/service.js";
import type { RunMaterials } from "./lifecycle/runner.js";
import type { PrivacyRules } from "./privacy/redact.js";
import type { SourcesService } from "./sources/service.js";
import type { Automation, AutomationTask, TaskOutcome } from "./automation/model.js";
import type { GardenTarget } from "./automation/garden.js";
import type { Repository } from "./repositories/model.js";
import type { SyncService } from "./sync/service.js";
import { syncMigrations } from "./sync/schema.js";
import { isPythonLedger } from "./setup/python/detect.js";
import type { adoptPythonLedger } from "./setup/python/adopt.js";

const STATE_MIGRATIONS = [...repositoryMigrations, ...runMigrations, ...syncMigrations];

export interface AppOptions {
  env: NodeJS.ProcessEnv;
  /** One advisory line for the user (stderr). */
  notice: (line: string) => void;
  /** Diagnostic lines of background processes (their log file). */
  log?: (line: string) => void;
  now?: () => number;
  /** The CLI entry that background processes run; defaults to this process's script. */
  binPath?: string;
  /** The platform whose process control the queue uses; defaults to `process.platform` (tests inject another). */
  platform?: NodeJS.Platform;
}

/**
 * The composition root: creates stores, services, workflows and adapters on first use
 * and wires them together. Heavy pieces are imported lazily so each command loads only
 * what it needs.
 */
export class App {
  readonly paths: StatePaths;
  readonly now: () => number;
  readonly hooks: Hooks;
  readonly platform: NodeJS.Platform;
  private db?: Db;
  private recovery?: Recovery;
  private ledger?: string;
  private adopter?: typeof adoptPythonLedger;
  // Created on first use; each command pays only for what it touches.
  private runStore?: RunStore;
  private lockStore?: LockStore;
  private repositoriesService?: RepositoriesService;
  private indexService?: IndexService;
  private loadedConfig?: Config;
  private workerTiming?: WorkerTiming;
  private processControl?: ProcessControl;
  private processSpawner?: Spawner;
  private sourcesService?: SourcesService;
  private automationFacade?: Automation;
  private runEnvironments?: RunEnvironments;

  constructor(readonly options: AppOptions) {
    this.paths = statePaths(options.env);
    this.now = options.now ?? Date.now;
    this.hooks = hooksFromEnv(options.env);
    this.platform = options.platform ?? process.platform;
  }

  /** Every entry into the queue calls this first, before it opens or writes anything. */
  requireQueue(): void {
    requireQueueSupport(this.platform);
  }

  /**
   * Called before a command's work (cli/kit.ts, background.ts): loads the code that adopts
   * the Python CodeAlmanac's database (and its row schemas, zod) only when the state
   * database's header says it may be that one, so the synchronous open below can adopt it
   * and every other start loads none of it.
   */
  async prepare(): Promise<void> {
    if (this.db || this.adopter || !unversionedOnDisk(this.paths.database)) return;
    this.adopter = (await import("./setup/python/adopt.js")).adoptPythonLedger;
  }

  /**
   * The state database, opened on first use. A storage failure (not a database, disk I/O,
   * a full disk) is one line naming the file and the fix. Once open, wikis whose index
   * outlived their registration (the file was emptied or replaced) are registered again.
   */
  get stateDb(): Db {
    if (this.db) return this.db;
    trace("state database: opening");
    try {
      this.db = this.openStateDatabase();
      this.recovery = this.repositories.recoverLostRegistrations();
    } catch (error) {
      throw this.explainFailure(error);
    }
    return this.db;
  }

  /**
   * Opens our state database. The Python CodeAlmanac's, found under the same name, is first
   * moved aside, its registrations and run history carried over (setup/python/adopt.ts).
   */
  private openStateDatabase(): Db {
    const open = (file: string) =>
      openDatabase(file, { migrations: STATE_MIGRATIONS, onNewerSchema: "refuse", isForeign: isPythonLedger });
    try {
      return open(this.paths.database);
    } catch (error) {
      if (!(error instanceof ForeignDatabaseError)) throw error;
    }
    // Only when the file turned into the Python one after prepare() looked at it.
    if (!this.adopter) throw new ProductError("conflict", `${this.paths.database} changed while codealmanac started; run the command again`);
    this.adopter({
      database: this.paths.database,
      openOurs: open,
      importInto: (db, ledger) => ({
        repositories: new RepositoryStore(db).restoreRegistrations(ledger.repositories.map((r) => ({ ...r, explicit: false, now: r.registeredAt }))).length,
        runs: new RunStore(db).importHistory(ledger.runs),
      }),
      notice: this.options.notice,
    });
    return open(this.paths.database);
  }

  /** What the first open of the state database found missing from the registry and restored. */
  get registryRecovery(): Recovery | undefined {
    return this.recovery;
  }

  /** A storage failure of the state database as its one line; any other error as it is. */
  explainFailure(error: unknown): unknown {
    if (isProductError(error)) return error;
    return stateDatabaseFailure(error, this.paths) ?? error;
  }

  get runs(): RunStore {
    return (this.runStore ??= new RunStore(this.stateDb));
  }

  get locks(): LockStore {
    return (this.lockStore ??= new LockStore(this.stateDb));
  }

  get repositories(): RepositoriesService {
    return (this.repositoriesService ??= new RepositoriesService({
      store: new RepositoryStore(this.stateDb),
      now: this.now,
      notice: this.options.notice,
      activeRunCount: (id) => this.runs.countActiveRuns(id),
      removeDerivedState: (id) => this.index.remove(id),
      recorded: { ids: () => this.index.recordedIds(), registration: (id) => this.index.recordedRegistration(id) },
      locations: { database: this.paths.database, repos: this.paths.repos },
    }));
  }

  /** Each queued run's environment, waiting for its executor in the run's folder. */
  get environments(): RunEnvironments {
    return (this.runEnvironments ??= new RunEnvironments(this.paths.runs, this.now));
  }

  get index(): IndexService {
    return (this.indexService ??= new IndexService({ paths: this.paths, now: this.now, ledgerId: () => this.ledgerId() }));
  }

  /** The state database's id, which each index records beside its wiki (see repositories/recovery.ts). */
  private ledgerId(): string {
    return (this.ledger ??= new RepositoryStore(this.stateDb).ledgerId());
  }

  async organize(): Promise<OrganizeService> {
    const { OrganizeService } = await import("./index/organize.js");
    return new OrganizeService();
  }

  /** Only lifecycle work reads config.toml, so a broken config never blocks a read. */
  async config(): Promise<Config> {
    const { loadConfig } = await import("./config/config.js");
    return (this.loadedConfig ??= { ...loadConfig(this.paths.config), ...runLimitOverrides(this.options.env) });
  }

  get timing(): WorkerTiming {
    return (this.workerTiming ??= { ...DEFAULT_WORKER_CONFIG, ...workerOverrides(this.options.env) });
  }

  log(line: string): void {
    (this.options.log ?? (() => undefined))(line);
  }

  async processes(): Promise<ProcessControl> {
    const { createProcessControl } = await import("./queue/process-adapter.js");
    return (this.processControl ??= createProcessControl(this.platform));
  }

  async spawner(): Promise<Spawner> {
    const { createSpawner } = await import("./queue/process-adapter.js");
    return (this.processSpawner ??= createSpawner({
      binPath: this.options.binPath ?? process.argv[1] ?? "codealmanac",
      logsDir: this.paths.logs,
      cwd: this.paths.root,
      env: this.options.env,
    }));
  }

  async producer(): Promise<ProducerDeps> {
    this.requireQueue();
    return {
      runs: this.runs,
      locks: this.locks,
      processes: await this.processes(),
      spawner: await this.spawner(),
      now: this.now,
      runLogDir: this.paths.runLogs,
      staleAfterMs: this.timing.staleAfterMs,
      environments: this.environments,
      env: this.options.env,
    };
  }

  async lifecycle(): Promise<LifecycleService> {
    this.requireQueue();
    const [{ LifecycleService }, { scaffoldWiki }, producer, config] = await Promise.all([
      import("./lifecycle/service.js"),
      import("./wiki/scaffold.js"),
      this.producer(),
      this.config(),
    ]);
    return new LifecycleService({
      repositories: this.repositories,
      producer,
      config: () => config,
      env: this.options.env,
      stalePages: async (repository) => {
        const report = await (await this.drift()).report(this.index.open(repository));
        return { slugs: report.pages.filter((page) => page.status === "stale").map((page) => page.slug), notice: report.notice };
      },
      resolveSources: async (inputs, context) => {
        const [{ sourceLabel }, service] = await Promise.all([import("./sources/model.js"), this.sources()]);
        const sources = await service.resolve(inputs, context);
        return { sources, labels: sources.map(sourceLabel) };
      },
      scaffold: scaffoldWiki,
    });
  }

  /** `ca drift` and the stale-page findings: git read in batches, the wiki's evidence from its index. */
  async drift(): Promise<DriftService> {
    return this.driftIn(this.options.env);
  }

  /** Drift with the git of one environment (a run's), sharing `ca drift`'s cache. */
  private async driftIn(env: NodeJS.ProcessEnv): Promise<DriftService> {
    const [{ DriftService }, commands] = await Promise.all([import("./evidence/service.js"), this.commands()]);
    const beside = (name: string) => ({ repositoryId }: { repositoryId: string }) => join(dirname(indexPath(this.paths, repositoryId)), name);
    return new DriftService({ commands, env, cacheFile: beside("drift-cache.json"), historyFile: beside("drift-history") });
  }

  /**
   * `privacy.redact` (the user's own patterns beside the redactor's detectors) and
   * `privacy.exclude` (folders whose sessions are never read, `~` expanded), for every
   * prompt's material, the secret gate before a run's commit, and `validate`.
   */
  async privacyRules(): Promise<PrivacyRules> {
    const [{ expandFolder }, { privacy }] = await Promise.all([import("./config/folders.js"), this.config()]);
    const home = this.options.env.HOME ?? homedir();
    return { patterns: privacy.redact, exclude: privacy.exclude.map((entry) => expandFolder(entry, home)) };
  }

  async commands(): Promise<CommandRunner> {
    return (await import("./core/exec.js")).runCommand;
  }

  async sources(): Promise<SourcesService> {
    return (this.sourcesService ??= await this.sourcesIn(this.options.env));
  }

  /** Sources resolved and prepared with the commands (git, gh) of one environment. */
  private async sourcesIn(env: NodeJS.ProcessEnv): Promise<SourcesService> {
    const [{ SourcesService }, run] = await Promise.all([import("./sources/service.js"), this.commands()]);
    return new SourcesService({ run, env, privacyRules: () => this.privacyRules() });
  }

  async jobs(): Promise<JobsService> {
    this.requireQueue();
    const [{ JobsService }, { SyncStore }] = await Promise.all([import("./queue/jobs.js"), import("./sync/store.js")]);
    return new JobsService({
      runs: this.runs,
      locks: this.locks,
      processes: await this.processes(),
      producer: await this.producer(),
      hooks: this.hooks,
      now: this.now,
      log: (line) => this.log(line),
      cancelGraceMs: this.timing.cancelGraceMs,
      runsDir: this.paths.runs,
      environments: this.environments,
      settlePruned: (runs) => new SyncStore(this.stateDb).settleRuns(runs, this.now()),
    });
  }

  async worker(): Promise<QueueWorker> {
    this.requireQueue();
    const { QueueWorker } = await import("./queue/worker.js");
    return new QueueWorker({
      runs: this.runs,
      locks: this.locks,
      processes: await this.processes(),
      spawner: await this.spawner(),
      hooks: this.hooks,
      now: this.now,
      log: (line) => this.log(line),
      config: { ...this.timing, runTimeoutMs: (await this.config()).runTimeoutMs },
      environments: this.environments,
    });
  }

  /** The claim needs only the ledger; the lifecycle code and config load after it. */
  async executorDeps(stopped: AbortSignal): Promise<ExecutorDeps> {
    this.requireQueue();
    return {
      stopped,
      runs: this.runs,
      processes: await this.processes(),
      hooks: this.hooks,
      now: this.now,
      log: (line) => this.log(line),
      environments: this.environments,
      operations: async (executionId, queuedWith, stoppedSignal) => {
        const [{ LifecycleRunner }, { loadAdapter }, { runTimeoutMs, runIdleTimeoutMs }, commands, { EXECUTION_ENV }, { codexLoginFix }, { manualRootFor }] =
          await Promise.all([
            import("./lifecycle/runner.js"),
            import("./harnesses/registry.js"),
            this.config(),
            this.commands(),
            import("./queue/ports.js"),
            import("./config/codex-provider.js"),
            import("./wiki/scaffold.js"),
          ]);
        // The run executes in the environment of the command that queued it; every process the
        // agent starts also inherits the marker, so the whole tree can be found later.
        const env = { ...(queuedWith ?? this.options.env), [EXECUTION_ENV]: executionId };
        return new LifecycleRunner({
          runs: this.runs,
          index: this.index,
          harness: (kind) => loadAdapter(kind, { codexLoginFix }),
          materials: this.runMaterials(commands, env),
          drift: async (index, slugs) => (await (await this.driftIn(env)).report(index, { slugs })).pages,
          commands,
          privacyRules: () => this.privacyRules(),
          runDir: (runId) => join(this.paths.runs, runId),
          now: this.now,
          log: (line) => this.log(line),
          env,
          cli: { node: process.execPath, script: this.options.binPath ?? process.argv[1] ?? "codealmanac" },
          manualRoot: manualRootFor,
          runTimeoutMs,
          runIdleTimeoutMs,
          stopped: stoppedSignal,
        });
      },
    };
  }

  /** Each operation's material loads only when a run of that kind needs it, in the run's environment. */
  private runMaterials(commands: CommandRunner, env: NodeJS.ProcessEnv): RunMaterials {
    return {
      sources: async (spec, context) => {
        const [{ parseSourceRefs }, service] = await Promise.all([import("./sources/service.js"), this.sourcesIn(env)]);
        // Specs queued before sources were resolved at queue time carry only the addresses.
        const refs =
          spec.sources.length > 0
            ? parseSourceRefs(spec.sources)
            : await service.resolve(spec.inputs, { cwd: context.repositoryRoot, repositoryRoot: context.repositoryRoot });
        return service.prepare(refs, context);
      },
      garden: async (index, issues, budgetChars) => {
        const [{ gardenContext }, { redactLeaves }] = await Promise.all([import("./lifecycle/context/garden.js"), import("./privacy/leaves.js")]);
        return redactLeaves(gardenContext({ summary: await index.summary(), issues, budgetChars }), await this.privacyRules());
      },
      build: async (root, budgetChars) => {
        const [{ buildInventory }, { redactLeaves }] = await Promise.all([import("./lifecycle/context/build.js"), import("./privacy/leaves.js")]);
        return redactLeaves(await buildInventory({ root, run: commands, env, budgetChars }), await this.privacyRules());
      },
      stale: async (index, pages, context) => {
        const { staleMaterial } = await import("./lifecycle/context/stale.js");
        const evidence = await index.evidence(pages.map((page) => page.slug));
        const rules = await this.privacyRules();
        return staleMaterial({ root: context.repositoryRoot, workDir: context.workDir, budgetChars: context.budgetChars, pages, evidence, run: commands, env, rules });
      },
    };
  }

  // ── automation: schedules, last-run records (automation/) ──

  async automation(): Promise<Automation> {
    const [{ createAutomation }, run] = await Promise.all([import("./automation/service.js"), this.commands()]);
    return (this.automationFacade ??= createAutomation({
      env: this.options.env,
      paths: this.paths,
      platform: process.platform,
      run,
      cliPath: this.options.binPath ?? process.argv[1] ?? "codealmanac",
      nodePath: process.execPath,
      now: this.now,
    }));
  }

  /**
   * What a scheduled task does when the OS scheduler starts it; returns its exit code (and,
   * for garden, its decisions, which the run record keeps). Lines go to the task's log (the
   * scheduler captures our output).
   */
  async runScheduledTask(task: AutomationTask): Promise<TaskOutcome> {
    const say = (line: string) => this.options.notice(`${new Date(this.now()).toISOString()} ${task}: ${line}`);
    if (task === "sync") {
      const summary = await (await this.sync()).sync({ apps: ["claude", "codex"] });
      for (const group of summary.started) say(`queued ${group.runId} for ${group.repositoryName} (${group.transcriptPaths.length} transcripts)`);
      say(`scanned ${summary.scanned}, eligible ${summary.eligible}, started ${summary.started.length}, skipped ${summary.skipped.length}`);
      return { exitCode: 0 };
    }
    const [{ scheduleGardens, gardenLogLine }, { changedSince }, { defaultBranchTip }, { gardenTipsFile }, lifecycle, run] = await Promise.all([
      import("./automation/garden.js"),
      import("./automation/changes.js"),
      import("./automation/branch.js"),
      import("./automation/garden-tips.js"),
      this.lifecycle(),
      this.commands(),
    ]);
    const gardens = await scheduleGardens({
      repositories: () => this.repositories.list(),
      activeGardens: (id) => this.runs.countActiveRunsOfKind(id, "garden"),
      lastGardenDoneAt: (id) => this.runs.lastDoneAt(id, "garden"),
      changedSince: (root, since) => changedSince(run, this.options.env, root, since),
      branchTip: (root) => defaultBranchTip(run, this.options.env, root),
      tips: gardenTipsFile(this.paths),
      runFailed: (id) => ["failed", "cancelled"].includes(this.runs.getRun(id)?.status ?? "done"),
      stalePages: (repository) => this.stalePages(repository, say),
      queueGarden: (repository, target) => this.queueScheduledGarden(lifecycle, repository, target),
    });
    for (const note of gardens) say(gardenLogLine(note));
    if (gardens.length === 0) say("no registered wikis");
    return { exitCode: gardens.some((note) => note.mode === "skipped" && note.failed) ? 1 : 0, gardens };
  }

  /** The slugs `ca drift` calls stale; a drift that fails is logged and counts as none, so the general garden runs. */
  private async stalePages(repository: Repository, say: (line: string) => void): Promise<string[]> {
    try {
      const report = await (await this.drift()).report(this.index.open(repository));
      return report.pages.filter((page) => page.status === "stale").map((page) => page.slug);
    } catch (error) {
      say(`drift of ${repository.name} failed, so its garden is the general one: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      return [];
    }
  }

  /**
   * The scheduled garden's two gardens. The stale-targeted one is exactly `ca garden --stale`
   * (`gardenStale` asks drift again, so it targets the pages stale at the moment it queues).
   */
  private async queueScheduledGarden(lifecycle: LifecycleService, repository: Repository, target: GardenTarget): Promise<{ run_id: string } | null> {
    if (target.mode === "general") return lifecycle.garden(repository.rootPath, repository.name, {});
    return (await lifecycle.gardenStale(repository.rootPath, repository.name, {})).receipt;
  }

  // ── config editing (config/) ──

  /** The `config` verbs; a write drops this process's cached config so later reads see it. */
  async configEditor() {
    const { ConfigEditor } = await import("./config/editor.js");
    return new ConfigEditor({
      path: this.paths.config,
      automation: () => this.automation(),
      onWrite: () => (this.loadedConfig = undefined),
      // The state database's write lock doubles as the config file's: SQLite queues the
      // waiters and frees the lock of a process that dies mid-edit.
      exclusive: (edit) => {
        this.hooks.run("configBeforeLock");
        return this.stateDb.transaction(edit).immediate();
      },
      beforeWrite: () => this.hooks.run("configBeforeWrite"),
    });
  }

  // ── setup, doctor, uninstall ──

  /** `setup`, `doctor` and `uninstall`; agent adapters load only for their readiness probes. */
  async setup() {
    const [{ SetupService }, { configSettingsStore }, { loadAdapter }, run] = await Promise.all([
      import("./setup/service.js"),
      import("./setup/settings-store.js"),
      import("./harnesses/registry.js"),
      this.commands(),
    ]);
    return new SetupService({
      env: this.options.env,
      paths: this.paths,
      nodeVersion: process.versions.node,
      run,
      readiness: async (kind) => (await loadAdapter(kind)).readiness(this.options.env),
      automation: () => this.automation(),
      settings: async () => configSettingsStore(this.paths.config, () => (this.loadedConfig = undefined)),
      config: () => this.config(),
      stateDb: () => this.stateDb,
      registry: () => {
        const listings = this.repositories.list();
        // Opening the state database ran the recovery: report what it found.
        const { restored, unknown } = this.recovery ?? { restored: [], unknown: [] };
        return {
          registered: listings.length,
          restored: restored.map(({ repository }) => `${repository.name} (${repository.rootPath})`),
          unknown,
          reposPath: this.paths.repos,
        };
      },
      harnessesUsed: () => this.runs.listRuns({ limit: 20 }).flatMap((run) => (run.harness ? [run.harness.kind] : [])),
      selectRepository: (cwd, wiki) => this.repositories.select(cwd, wiki),
      wikiIssues: (repository) => this.index.open(repository).issues(),
      queue: async () => {
        const [jobs, processes] = await Promise.all([this.jobs(), this.processes()]);
        return {
          jobs: { list: (filter) => jobs.list(filter), cancel: (runId) => jobs.cancel(runId) },
          workerLock: () => this.locks.readWorkerLock(),
          processes,
          graceMs: this.timing.cancelGraceMs,
        };
      },
      viewers: async () => {
        const [{ readViewerRecords }, { signalVerified }, processes] = await Promise.all([import("./core/viewer-records.js"), import("./core/processes/index.js"), this.processes()]);
        return { records: () => readViewerRecords(this.paths.root), processes: { ...processes, signal: signalVerified }, graceMs: this.timing.cancelGraceMs };
      },
      repositoryRoots: () => this.repositories.list().map((r) => r.repository.rootPath),
      closeState: () => this.close(),
    });
  }

  // ── sync (sync/) ──

  async sync(): Promise<SyncService> {
    const [{ SyncService }, { SyncStore }, { insertRun }, { parseSpec }, { listTranscriptFiles, readTranscriptMetas }, { completeExtent }, spawner] = await Promise.all([
      import("./sync/service.js"),
      import("./sync/store.js"),
      import("./queue/producer.js"),
      import("./runs/spec.js"),
      import("./sync/discovery/index.js"),
      import("./sync/extent.js"),
      this.spawner(),
    ]);
    return new SyncService({
      store: new SyncStore(this.stateDb),
      runs: this.runs,
      repositories: this.repositories,
      discovery: { list: (apps) => listTranscriptFiles(apps, this.options.env), readMetas: readTranscriptMetas, extent: completeExtent },
      now: this.now,
      lookbackMs: async () => (await this.config()).automation.sync.everyMs,
      privacyRules: () => this.privacyRules(),
      countRedactions: async (part, rules) => (await import("./sync/redactions.js")).redactionsOf(part, rules),
      // Loaded only when a run is queued: `sync status` is a read and works where the queue cannot run.
      prepareIngest: async (repository, addresses, options) => (await this.lifecycle()).prepareIngest(repository, addresses, options),
      insertRun: (repository, spec) =>
        insertRun(
          { runs: this.runs, now: this.now, runLogDir: this.paths.runLogs, environments: this.environments, env: this.options.env },
          { repository, kind: "ingest", spec },
        ),
      reviseQueued: (runId, revise) => this.runs.reviseQueuedSpec(runId, this.now(), revise, parseSpec),
      wake: () => void spawner.spawnWorker(),
      hooks: this.hooks,
    });
  }

  /** Where the agents' session-end hooks write what they did (they have no terminal of their own). */
  get hookLogPath(): string {
    return join(this.paths.logs, "hooks.log");
  }

  /** Appends a timestamped line to the hooks' log; never throws (a hook must not fail). */
  hookLog(line: string): void {
    try {
      mkdirSync(this.paths.logs, { recursive: true });
      appendFileSync(this.hookLogPath, `${new Date(this.now()).toISOString()} [${process.pid}] ${line}\n`);
    } catch {
      // nowhere left to say it
    }
  }

  /** The hook's work, detached: `hook session-end --session <target>` in a process of its own, its output in the hooks' log. */
  async detachSessionSync(target: string): Promise<number> {
    const { spawnDetachedCommand } = await import("./queue/process-adapter.js");
    const options = { binPath: this.options.binPath ?? process.argv[1] ?? "codealmanac", logsDir: this.paths.logs, cwd: this.paths.root, env: this.options.env };
    return spawnDetachedCommand(options, ["hook", "session-end", "--session", target], this.hookLogPath);
  }

  // ── viewer (viewer/) ──

  /** `ca serve`: binds the viewer; hono and the viewer's code load only here. */
  async viewer(launch: { cwd: string; wiki: string | null; host: string; port: number }) {
    const [{ startViewer }, { LiveIndexes }, { recordViewer }] = await Promise.all([import("./viewer/server.js"), import("./index/freshness.js"), import("./core/viewer-records.js")]);
    let drift: Promise<DriftService> | undefined;
    const viewer = await startViewer({
      host: launch.host,
      port: launch.port,
      startCwd: launch.cwd,
      scopedWiki: launch.wiki,
      repositories: this.repositories,
      // CODEALMANAC_VIEWER_WATCH=0: no folder watches (a filesystem without change events); each request stat-scans instead.
      indexes: new LiveIndexes({ open: (repository) => this.index.open(repository), watch: this.options.env.CODEALMANAC_VIEWER_WATCH !== "0" }),
      // One drift service for the server's life, built at the first request that needs it.
      drift: () => (drift ??= this.drift()),
      runs: this.runs,
      cancelRun: async (runId, repositoryId) => (await this.jobs()).cancel(runId, repositoryId),
      followed: () => {
        const watch = this.jobs().then((jobs) => jobs.abandonedWatch());
        return { check: async (record) => (await watch).check(record) };
      },
      log: (line) => this.options.notice(line),
      timing: { pollMs: 150, heartbeatMs: 15_000 },
      // `uninstall` (or a hand) deleted the state root under the running viewer.
      stateGone: () => !existsSync(this.paths.database),
    });
    // Recorded so that `uninstall` can stop it before deleting what it reads. Where processes
    // cannot be controlled (Windows) there is nothing to stop it with; `stateGone` still covers it.
    let self: ReturnType<ProcessControl["self"]>;
    try {
      self = (await this.processes()).self();
    } catch {
      return viewer;
    }
    const unrecord = recordViewer(this.paths.root, { pid: self.pid, startTime: self.startTime, url: viewer.url });
    return { ...viewer, close: () => viewer.close().finally(unrecord) };
  }

  async openBrowser(url: string): Promise<void> {
    const { createBrowserOpener } = await import("./viewer/open-browser.js");
    createBrowserOpener({ platform: process.platform, env: this.options.env })(url);
  }

  // ── mcp (mcp/) ──

  /**
   * `ca mcp`: the stdio server, until the client disconnects. The MCP SDK and the server's
   * code load only here; queueing verbs are wired only with --allow-queue.
   */
  async mcp(launch: { cwd: string; wiki: string | null; allowQueue: boolean }): Promise<void> {
    const { serveMcp } = await import("./mcp/server.js");
    let drift: Promise<DriftService> | undefined;
    await serveMcp({
      ...launch,
      repositories: this.repositories,
      openIndex: (repository) => this.index.open(repository),
      // One drift service for the server's life, built at the first call that needs it.
      drift: () => (drift ??= this.drift()),
      watch: this.options.env.CODEALMANAC_MCP_WATCH !== "0",
      queue: launch.allowQueue
        ? {
            // An agent names the inputs: paths it may not read are answered as missing.
            ingest: async (wiki, inputs, options) => (await this.lifecycle()).ingest(launch.cwd, wiki, inputs, { ...options, confined: true }),
            garden: async (wiki, options) => (await this.lifecycle()).garden(launch.cwd, wiki, options),
            run: async (runId) => {
              const jobs = await this.jobs();
              await jobs.recover();
              return jobs.show(runId);
            },
          }
        : null,
      log: (line) => this.options.notice(line),
      changePollMs: 1_000,
    });
  }

  /**
   * `ca mcp install|uninstall --client <client>`: registers (or removes) this CLI's server,
   * and records a user-scope change as the person's choice, which doctor reads.
   */
  async changeMcpRegistration(action: RegistrationAction, request: RegistrationRequest, cwd: string): Promise<RegistrationReport> {
    const [{ registerServer, serverCommand }, { recordHandRegistration, MCP_RECORD_FILE }, run] = await Promise.all([
      import("./mcp/install/service.js"),
      import("./setup/mcp-servers.js"),
      this.commands(),
    ]);
    const server = serverCommand(process.execPath, this.options.binPath ?? process.argv[1] ?? "codealmanac");
    const report = await registerServer(action, request, { env: this.options.env, cwd, run, server });
    recordHandRegistration(join(this.paths.root, MCP_RECORD_FILE), report);
    return report;
  }

  close(): void {
    this.indexService?.close();
    this.db?.close();
  }
}

/**
 * Test-only: run limits in milliseconds (`{"runTimeoutMs":2000}`) in place of config.toml's,
 * which accepts nothing under a minute, so a run timeout can be tested in seconds.
 */
function runLimitOverrides(env: NodeJS.ProcessEnv): Partial<Pick<Config, "runTimeoutMs" | "runIdleTimeoutMs">> {
  const raw = env.CODEALMANAC_TEST_RUN_LIMITS;
  if (!raw) return {};
  try {
    const { runTimeoutMs, runIdleTimeoutMs } = JSON.parse(raw) as Record<string, unknown>;
    return {
      ...(typeof runTimeoutMs === "number" ? { runTimeoutMs } : {}),
      ...(typeof runIdleTimeoutMs === "number" ? { runIdleTimeoutMs } : {}),
    };
  } catch {
    return {};
  }
}

/** Test-only knobs for the worker's timing (milliseconds), so timeouts can be tested quickly. */
function workerOverrides(env: NodeJS.ProcessEnv): Partial<WorkerTiming> {
  const raw = env.CODEALMANAC_TEST_WORKER_TIMING;
  if (!raw) return {};
  try {
    return JSON.parse(raw) as Partial<WorkerTiming>;
  } catch {
    return {};
  }
}
