import { existsSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ProductError, invalid } from "../core/errors.js";
import type { Config, HarnessName } from "../config/config.js";
import { DEFAULT_MODEL } from "../config/config.js";
import type { RepositoriesService } from "../repositories/service.js";
import type { Repository } from "../repositories/model.js";
import { normalizeRoot } from "../repositories/identity.js";
import type { RunKind } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import { isTerminal } from "../runs/model.js";
import { parseSpec, SPEC_VERSION } from "../runs/spec.js";
import { enqueueAndWake, type ProducerDeps, type Receipt } from "../queue/producer.js";

export interface LifecycleServiceDeps {
  repositories: RepositoriesService;
  producer: ProducerDeps;
  config: () => Config;
  /** Agent CLIs found on PATH. */
  installedHarnesses: () => HarnessName[];
  scaffold: (root: string) => void;
}

export interface OperationOptions {
  using?: HarnessName;
  title?: string;
  guidance?: string;
}

/** The product verbs that queue agent work: init, ingest, garden and retry. */
export class LifecycleService {
  constructor(private readonly deps: LifecycleServiceDeps) {}

  init(path: string, cwd: string, options: OperationOptions & { name?: string; description?: string }): Receipt {
    const root = normalizeRoot(path, cwd);
    if (existsSync(root) && !statSync(root).isDirectory()) throw invalid(`repository path must be a directory: ${root}`);
    if (existsSync(resolve(root, "almanac"))) {
      throw new ProductError(
        "already_exists",
        "almanac/ already exists here.\nUse the existing repository wiki (for example `codealmanac garden`) or choose a different directory.",
      );
    }
    const registration = this.deps.repositories.register(root, {
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.description !== undefined ? { description: options.description } : {}),
    });
    this.deps.scaffold(root);
    return this.queue(registration.repository, "build", [], options);
  }

  ingest(cwd: string, wiki: string | undefined, inputs: string[], options: OperationOptions): Receipt {
    const repository = this.deps.repositories.select(cwd, wiki);
    if (inputs.length === 0) throw invalid("ingest needs at least one input");
    const resolved = inputs.map((input) => resolveInput(input, cwd, repository));
    return this.queue(repository, "ingest", resolved, options);
  }

  garden(cwd: string, wiki: string | undefined, options: OperationOptions): Receipt {
    return this.queue(this.deps.repositories.select(cwd, wiki), "garden", [], options);
  }

  /** Queues a failed or cancelled run's spec again as a new run. */
  retry(runId: string): { receipt: Receipt; kind: RunKind } {
    const { runs } = this.deps.producer;
    const record = runs.requireRun(runId);
    if (!isTerminal(record.status) || record.status === "done") {
      throw new ProductError("conflict", `only a failed or cancelled job can be retried; ${runId} is ${record.status}`);
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

  private queue(repository: Repository, kind: RunKind, inputs: string[], options: OperationOptions): Receipt {
    for (const [flag, value] of [
      ["--title", options.title],
      ["--guidance", options.guidance],
    ] as const) {
      if (value !== undefined && value.trim() === "") throw invalid(`${flag} must not be blank`);
    }
    const config = this.deps.config();
    const harness = options.using ?? config.harnessDefault ?? this.detectHarness();
    const model = harness === config.harnessDefault && config.harnessModel ? config.harnessModel : DEFAULT_MODEL[harness];
    const spec: RunSpec = {
      version: SPEC_VERSION,
      kind,
      harness,
      model,
      inputs,
      title: options.title?.trim() ?? null,
      guidance: options.guidance?.trim() ?? null,
      auto_commit: config.autoCommit,
    };
    return enqueueAndWake(this.deps.producer, { repository, kind, spec }).receipt;
  }

  /** decisions.md §18: config, else the only installed agent CLI, else codex. */
  private detectHarness(): HarnessName {
    const installed = this.deps.installedHarnesses();
    return installed.length === 1 ? installed[0]! : "codex";
  }
}

const VERBATIM = /^(?:[a-z][a-z0-9+.-]*:\/\/|github:|transcript:)|\.\.\.?[^/]/i;

/**
 * Paths are resolved against the user's cwd when the job is queued (not later, against
 * the repository root) and must lie inside the repository. URLs, github: addresses and
 * git ranges pass through unchanged.
 */
function resolveInput(input: string, cwd: string, repository: Repository): string {
  const trimmed = input.trim();
  if (trimmed === "") throw invalid("ingest inputs must not be blank");
  if (VERBATIM.test(trimmed)) return trimmed;
  const absolute = isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed);
  if (!existsSync(absolute)) return trimmed;
  const real = normalizeRoot(absolute);
  const rel = relative(repository.rootPath, real);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw invalid(`path is outside repository ${repository.name}: ${real}`);
  }
  const isDir = statSync(real).isDirectory();
  const shaped = rel === "" ? "." : rel.split(sep).join("/");
  return isDir && shaped !== "." ? `${shaped}/` : shaped;
}
