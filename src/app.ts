import { join } from "node:path";
import { statePaths, type StatePaths } from "./core/paths.js";
import { trace } from "./core/trace.js";
import { openDatabase, type Db } from "./core/sqlite.js";
import { repositoryMigrations } from "./repositories/schema.js";
import { RepositoryStore } from "./repositories/store.js";
import { RepositoriesService } from "./repositories/service.js";
import { runMigrations } from "./runs/schema.js";
import { RunStore } from "./runs/store.js";
import { LockStore } from "./runs/lock-store.js";
import { IndexService } from "./index/service.js";
import type { OrganizeService } from "./index/organize.js";
import type { Config } from "./config/config.js";
import type { CommandRunner } from "./core/command.js";
import { hooksFromEnv, type Hooks } from "./queue/hooks.js";
import { DEFAULT_WORKER_CONFIG, type ProcessControl, type Spawner, type WorkerTiming } from "./queue/ports.js";
import type { ProducerDeps } from "./queue/producer.js";
import type { QueueWorker } from "./queue/worker.js";
import type { ExecutorDeps } from "./queue/executor.js";
import type { JobsService } from "./queue/jobs.js";
import type { LifecycleService } from "./lifecycle/service.js";
import type { RunMaterials } from "./lifecycle/runner.js";
import type { SourcesService } from "./sources/service.js";

export interface AppOptions {
  env: NodeJS.ProcessEnv;
  /** One advisory line for the user (stderr). */
  notice: (line: string) => void;
  /** Diagnostic lines of background processes (their log file). */
  log?: (line: string) => void;
  now?: () => number;
  /** The CLI entry that background processes run; defaults to this process's script. */
  binPath?: string;
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
  private db?: Db;
  private cache = new Map<string, unknown>();

  constructor(readonly options: AppOptions) {
    this.paths = statePaths(options.env);
    this.now = options.now ?? Date.now;
    this.hooks = hooksFromEnv(options.env);
  }

  private once<T>(key: string, create: () => T): T {
    if (!this.cache.has(key)) this.cache.set(key, create());
    return this.cache.get(key) as T;
  }

  get stateDb(): Db {
    if (!this.db) trace("state database: opening");
    this.db ??= openDatabase(this.paths.database, {
      migrations: [...repositoryMigrations, ...runMigrations],
      onNewerSchema: "refuse",
    });
    return this.db;
  }

  get runs(): RunStore {
    return this.once("runs", () => new RunStore(this.stateDb));
  }

  get locks(): LockStore {
    return this.once("locks", () => new LockStore(this.stateDb));
  }

  get repositories(): RepositoriesService {
    return this.once(
      "repositories",
      () =>
        new RepositoriesService({
          store: new RepositoryStore(this.stateDb),
          now: this.now,
          notice: this.options.notice,
          activeRunCount: (id) => this.runs.countActiveRuns(id),
          removeDerivedState: (id) => this.index.remove(id),
        }),
    );
  }

  get index(): IndexService {
    return this.once("index", () => new IndexService({ paths: this.paths, now: this.now }));
  }

  async organize(): Promise<OrganizeService> {
    const { OrganizeService } = await import("./index/organize.js");
    return new OrganizeService();
  }

  /** Only lifecycle work reads config.toml, so a broken config never blocks a read. */
  async config(): Promise<Config> {
    const { loadConfig } = await import("./config/config.js");
    return this.once("config", () => loadConfig(this.paths.config));
  }

  get timing(): WorkerTiming {
    return this.once("timing", () => ({ ...DEFAULT_WORKER_CONFIG, ...workerOverrides(this.options.env) }));
  }

  log(line: string): void {
    (this.options.log ?? (() => undefined))(line);
  }

  async processes(): Promise<ProcessControl> {
    const { createProcessControl } = await import("./queue/process-adapter.js");
    return this.once("processes", createProcessControl);
  }

  async spawner(): Promise<Spawner> {
    const { createSpawner } = await import("./queue/process-adapter.js");
    return this.once("spawner", () =>
      createSpawner({
        binPath: this.options.binPath ?? process.argv[1] ?? "codealmanac",
        logsDir: this.paths.logs,
        cwd: this.paths.root,
        env: this.options.env,
      }),
    );
  }

  async producer(): Promise<ProducerDeps> {
    return {
      runs: this.runs,
      locks: this.locks,
      processes: await this.processes(),
      spawner: await this.spawner(),
      now: this.now,
      runLogDir: this.paths.runLogs,
      staleAfterMs: this.timing.staleAfterMs,
    };
  }

  async lifecycle(): Promise<LifecycleService> {
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
      resolveSources: async (inputs, context) => {
        const [{ sourceLabel }, service] = await Promise.all([import("./sources/model.js"), this.sources()]);
        const sources = await service.resolve(inputs, context);
        return { sources, labels: sources.map(sourceLabel) };
      },
      scaffold: scaffoldWiki,
    });
  }

  async commands(): Promise<CommandRunner> {
    return (await import("./core/exec.js")).runCommand;
  }

  async sources(): Promise<SourcesService> {
    const [{ SourcesService }, run] = await Promise.all([import("./sources/service.js"), this.commands()]);
    return this.once("sources", () => new SourcesService({ run, env: this.options.env }));
  }

  async jobs(): Promise<JobsService> {
    const { JobsService } = await import("./queue/jobs.js");
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
    });
  }

  async worker(): Promise<QueueWorker> {
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
    });
  }

  /** The claim needs only the ledger; the lifecycle code and config load after it. */
  async executorDeps(): Promise<ExecutorDeps> {
    return {
      runs: this.runs,
      processes: await this.processes(),
      hooks: this.hooks,
      now: this.now,
      log: (line) => this.log(line),
      operations: async () => {
        const [{ LifecycleRunner }, { loadAdapter }, { runTimeoutMs, runIdleTimeoutMs }, commands] = await Promise.all([
          import("./lifecycle/runner.js"),
          import("./harnesses/registry.js"),
          this.config(),
          this.commands(),
        ]);
        return new LifecycleRunner({
          runs: this.runs,
          index: this.index,
          harness: loadAdapter,
          materials: this.runMaterials(commands),
          commands,
          runDir: (runId) => join(this.paths.runs, runId),
          now: this.now,
          log: (line) => this.log(line),
          env: this.options.env,
          runTimeoutMs,
          runIdleTimeoutMs,
        });
      },
    };
  }

  /** Each operation's material loads only when a run of that kind needs it. */
  private runMaterials(commands: CommandRunner): RunMaterials {
    return {
      sources: async (spec, context) => {
        const [{ parseSourceRefs }, service] = await Promise.all([import("./sources/service.js"), this.sources()]);
        // Specs queued before sources were resolved at queue time carry only the addresses.
        const refs =
          spec.sources.length > 0
            ? parseSourceRefs(spec.sources)
            : await service.resolve(spec.inputs, { cwd: context.repositoryRoot, repositoryRoot: context.repositoryRoot });
        return service.prepare(refs, context);
      },
      garden: async (index, issues, budgetChars) => {
        const { gardenContext } = await import("./lifecycle/context/garden.js");
        return gardenContext({ summary: await index.summary(), issues, budgetChars });
      },
      build: async (root, budgetChars) => {
        const { buildInventory } = await import("./lifecycle/context/build.js");
        return buildInventory({ root, run: commands, env: this.options.env, budgetChars });
      },
    };
  }

  close(): void {
    (this.cache.get("index") as IndexService | undefined)?.close();
    this.db?.close();
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
