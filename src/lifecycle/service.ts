import { existsSync, lstatSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ProductError, invalid } from "../core/errors.js";
import type { Config } from "../config/config.js";
import type { HarnessKind } from "../harnesses/catalog.js";
import { selectHarness } from "../harnesses/registry.js";
import type { RepositoriesService } from "../repositories/service.js";
import type { Repository } from "../repositories/model.js";
import { containedAlmanacPath, normalizeRoot } from "../repositories/identity.js";
import type { RunKind } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import { IMPORTED_SPEC_VERSION, isTerminal } from "../runs/model.js";
import { parseSpec, SPEC_VERSION } from "../runs/spec.js";
import { enqueueAndWake, type ProducerDeps, type Receipt } from "../queue/producer.js";

/**
 * Resolves ingest addresses when a run is queued; a bad address throws a one-line error.
 * `labels` name each source for people (titles, `jobs`); `sources` are stored in the spec.
 */
export type SourceResolver = (
  inputs: string[],
  context: { cwd: string; repositoryRoot: string; confined?: boolean },
) => Promise<{ sources: unknown[]; labels: string[] }>;

/** The pages `ca drift` calls stale in a repository's wiki now, and its notice (outside git). */
export type StalePageFinder = (repository: Repository) => Promise<{ slugs: string[]; notice: string | null }>;

/** What `garden --stale` did: the run it queued for the stale pages, or none when no page is stale. */
export interface StaleGarden {
  repository: string;
  stale: string[];
  notice: string | null;
  receipt: Receipt | null;
}

export interface LifecycleServiceDeps {
  repositories: RepositoriesService;
  stalePages: StalePageFinder;
  producer: ProducerDeps;
  config: () => Config;
  /** The environment agent CLIs are looked up in. */
  env: NodeJS.ProcessEnv;
  resolveSources: SourceResolver;
  /** Writes the starter wiki; `withManual` also copies the writing manual into it. */
  scaffold: (root: string, options: { withManual?: boolean }) => void;
}

export interface OperationOptions {
  using?: HarnessKind;
  title?: string;
  guidance?: string;
  /**
   * The request comes from an agent (the MCP server): ingest paths outside the repository
   * and the agents' transcript folders are answered as missing (src/sources/resolve/confine.ts).
   */
  confined?: boolean;
}

function checkTexts(options: OperationOptions): void {
  for (const [flag, value] of [
    ["--title", options.title],
    ["--guidance", options.guidance],
  ] as const) {
    if (value !== undefined && value.trim() === "") throw invalid(`${flag} must not be blank`);
  }
}

/** The product verbs that queue agent work: init, ingest, garden and retry. */
export class LifecycleService {
  constructor(private readonly deps: LifecycleServiceDeps) {}

  init(path: string, cwd: string, options: OperationOptions & { name?: string; description?: string; withManual?: boolean }): Receipt {
    const root = normalizeRoot(path, cwd);
    if (existsSync(root) && !statSync(root).isDirectory()) throw invalid(`repository path must be a directory: ${root}`);
    // lstat: a dangling symlink named almanac/ exists too, and nothing is written through it.
    if (lstatSync(resolve(root, "almanac"), { throwIfNoEntry: false })) {
      throw new ProductError(
        "already_exists",
        "almanac/ already exists here.\nUse the existing repository wiki (for example `codealmanac garden`) or choose a different directory.",
      );
    }
    // Refuse before anything is written: a wiki scaffolded for a build that cannot run is clutter.
    const harness = this.harness(options);
    const registration = this.deps.repositories.register(root, {
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
    });
    this.deps.scaffold(root, { withManual: options.withManual === true });
    return this.queue(registration.repository, "build", harness, { inputs: [], sources: [] }, options);
  }

  async ingest(cwd: string, wiki: string | undefined, inputs: string[], options: OperationOptions): Promise<Receipt> {
    const repository = this.deps.repositories.select(cwd, wiki);
    const addresses = inputs.map((input) => input.trim());
    if (addresses.length === 0) throw invalid("ingest needs at least one input");
    if (addresses.some((input) => input === "")) throw invalid("ingest inputs must not be blank");
    const harness = this.harness(options);
    const context = { cwd, repositoryRoot: repository.rootPath, ...(options.confined ? { confined: true } : {}) };
    const { sources, labels } = await this.deps.resolveSources(addresses, context);
    return this.queue(repository, "ingest", harness, { inputs: labels, sources }, options);
  }

  /**
   * An ingest spec for a repository, with its sources resolved, but not queued: sync
   * queues it itself, in the same transaction that moves its transcript cursors.
   */
  async prepareIngest(repository: Repository, addresses: string[], options: OperationOptions): Promise<RunSpec> {
    const harness = this.harness(options);
    const { sources, labels } = await this.deps.resolveSources(addresses, { cwd: repository.rootPath, repositoryRoot: repository.rootPath });
    return this.spec("ingest", harness, { inputs: labels, sources }, options);
  }

  garden(cwd: string, wiki: string | undefined, options: OperationOptions): Receipt {
    const repository = this.deps.repositories.select(cwd, wiki);
    return this.queue(repository, "garden", this.harness(options), { inputs: [], sources: [] }, options);
  }

  /**
   * `garden --stale`: a garden run for exactly the pages drift calls stale now, named in its
   * spec; nothing is queued when there are none (and then no agent needs to be installed).
   */
  async gardenStale(cwd: string, wiki: string | undefined, options: OperationOptions): Promise<StaleGarden> {
    const repository = this.deps.repositories.select(cwd, wiki);
    checkTexts(options);
    containedAlmanacPath(repository.rootPath);
    const { slugs, notice } = await this.deps.stalePages(repository);
    if (slugs.length === 0) return { repository: repository.name, stale: [], notice, receipt: null };
    const spec: RunSpec = { ...this.spec("garden", this.harness(options), { inputs: [], sources: [] }, options), stale_pages: slugs };
    const { receipt } = enqueueAndWake(this.deps.producer, { repository, kind: "garden", spec });
    return { repository: repository.name, stale: slugs, notice, receipt };
  }

  /** Queues a failed or cancelled run's spec again as a new run. */
  retry(runId: string): { receipt: Receipt; kind: RunKind } {
    const { runs } = this.deps.producer;
    const record = runs.requireRun(runId);
    if (!isTerminal(record.status) || record.status === "done") {
      throw new ProductError("conflict", `only a failed or cancelled job can be retried; ${runId} is ${record.status}`);
    }
    if (record.specVersion === IMPORTED_SPEC_VERSION) {
      throw invalid(`job ${runId} was carried over from the Python CodeAlmanac and cannot be retried; queue the work again (ca ingest, ca garden)`);
    }
    const parsed = parseSpec(record.specJson);
    if (!parsed.ok) throw invalid(`job ${runId} cannot be retried: ${parsed.error}`);
    const repository: Repository = {
      repositoryId: record.repositoryId,
      name: record.repositoryName,
      description: "",
      rootPath: record.repositoryRoot,
      registeredAt: record.createdAt,
    };
    const { receipt } = enqueueAndWake(this.deps.producer, { repository, kind: record.kind, spec: parsed.spec, retryOf: runId });
    return { receipt, kind: record.kind };
  }

  private harness(options: OperationOptions) {
    checkTexts(options);
    const config = this.deps.config();
    return selectHarness({
      ...(options.using !== undefined ? { using: options.using } : {}),
      configured: { kind: config.harnessDefault, model: config.harnessModel },
      env: this.deps.env,
    });
  }

  private queue(
    repository: Repository,
    kind: RunKind,
    harness: { kind: HarnessKind; model: string },
    material: { inputs: string[]; sources: unknown[] },
    options: OperationOptions,
  ): Receipt {
    // A wiki whose almanac/ leads out of the repository is refused now, not when the run starts.
    containedAlmanacPath(repository.rootPath);
    const spec = this.spec(kind, harness, material, options);
    return enqueueAndWake(this.deps.producer, { repository, kind, spec }).receipt;
  }

  private spec(
    kind: RunKind,
    harness: { kind: HarnessKind; model: string },
    material: { inputs: string[]; sources: unknown[] },
    options: OperationOptions,
  ): RunSpec {
    return {
      version: SPEC_VERSION,
      kind,
      harness: harness.kind,
      model: harness.model,
      inputs: material.inputs,
      sources: material.sources,
      title: options.title?.trim() ?? null,
      guidance: options.guidance?.trim() ?? null,
      auto_commit: this.deps.config().autoCommit,
    };
  }
}
