import { randomUUID } from "node:crypto";
import { oneLine, ProductError } from "../core/errors.js";
import type { FailureCategory, RunRecord } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import type { RunStore } from "../runs/store.js";
import type { OperationRunner } from "../queue/executor.js";
import type { HarnessAdapter, HarnessKind } from "../harnesses/types.js";
import type { HarnessEvent } from "../harnesses/events.js";
import { runEventKindFor } from "../harnesses/events.js";
import type { IndexService, WikiIndex } from "../index/service.js";
import type { ValidationIssue } from "../index/views/validate.js";
import { renderPrompt, preparationMessage } from "./prompts.js";

export interface LifecycleDeps {
  runs: RunStore;
  index: IndexService;
  harness: (kind: HarnessKind) => HarnessAdapter | null;
  now: () => number;
  log: (line: string) => void;
  env: NodeJS.ProcessEnv;
  runTimeoutMs: number;
}

/** A failure inside a named phase of the run: it carries the category the run fails with. */
class PhaseFailure extends Error {
  constructor(
    readonly category: FailureCategory,
    readonly reason: unknown,
  ) {
    super(oneLine(reason));
  }
}

async function phase<T>(category: FailureCategory, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PhaseFailure) throw error;
    throw new PhaseFailure(category, error);
  }
}

/**
 * Executes one build, ingest or garden run: readiness, a validation baseline, the agent,
 * a refresh that records which pages changed, and a gate that fails the run only for
 * validation errors the run introduced.
 */
export class LifecycleRunner implements OperationRunner {
  constructor(private readonly deps: LifecycleDeps) {}

  async run(record: RunRecord, spec: RunSpec): Promise<void> {
    const { runs, now } = this.deps;
    try {
      const adapter = await phase("harness_readiness", () => this.ready(spec.harness));
      const { index, before } = await phase("indexing", () => this.baseline(record));
      await phase("internal_error", () => runs.appendEvent(record.runId, now(), "message", preparationMessage(spec)));
      const prompt = renderPrompt(record, spec, index.almanacPath);
      const result = await phase("provider_execution", () =>
        adapter.run(
          {
            model: spec.model,
            cwd: record.repositoryRoot,
            prompt,
            sessionId: randomUUID(),
            // The worker enforces runs.timeout; this is only a backstop if no worker is watching.
            timeoutMs: this.deps.runTimeoutMs + 60_000,
            env: this.deps.env,
            onStderr: (text) => this.deps.log(`[${spec.harness} stderr] ${text.trimEnd()}`),
          },
          (event) => this.record(record.runId, event),
        ),
      );
      runs.recordHarnessSession(record.runId, {
        kind: result.kind,
        sessionId: result.sessionId,
        transcriptPath: result.transcriptPath,
      });
      if (result.status !== "succeeded") {
        const detail = result.failure?.message ?? result.outputText;
        const fix = result.failure?.fix ? ` (${result.failure.fix})` : "";
        throw new PhaseFailure(
          result.failure?.code === "timeout" ? "timeout" : "provider_execution",
          new Error(`harness ${result.kind} ${result.status}: ${oneLine(detail)}${fix}`),
        );
      }
      const after = await phase("indexing", () => index.refresh());
      runs.recordPageChanges(record.runId, { created: after.created, updated: after.updated, deleted: after.deleted });
      await phase("wiki_validation", async () => gate(before, await index.issues()));
      runs.finishRun(record.runId, now(), { status: "done", summary: result.summary ?? `${spec.kind} completed` });
    } catch (error) {
      const category = error instanceof PhaseFailure ? error.category : "internal_error";
      const message = oneLine(error instanceof PhaseFailure ? error.reason : error);
      this.deps.log(`run ${record.runId} failed (${category}): ${message}`);
      try {
        runs.finishRun(record.runId, now(), { status: "failed", category, error: message, errorEvent: message });
      } catch (writeError) {
        this.deps.log(`run ${record.runId}: could not record the failure: ${oneLine(writeError)}`);
      }
    }
  }

  private async ready(kind: HarnessKind): Promise<HarnessAdapter> {
    const adapter = this.deps.harness(kind);
    if (!adapter) {
      throw new ProductError("execution_failed", `the ${kind === "codex" ? "Codex" : kind} harness is not available yet; use --using claude`);
    }
    const readiness = await adapter.readiness(this.deps.env);
    if (!readiness.available) {
      const repair = readiness.repair ? ` — ${readiness.repair}` : "";
      throw new ProductError("execution_failed", `harness ${kind} is not available: ${readiness.message}${repair}`);
    }
    return adapter;
  }

  private async baseline(record: RunRecord): Promise<{ index: WikiIndex; before: Set<string> }> {
    const index = this.deps.index.open({
      repositoryId: record.repositoryId,
      name: record.repositoryName,
      description: "",
      rootPath: record.repositoryRoot,
      registeredAt: record.createdAt,
    });
    await index.refresh();
    return { index, before: new Set(errorKeys(await index.issues())) };
  }

  /** A failing ledger write is our failure, not the agent's: it surfaces as internal_error. */
  private record(runId: string, event: HarnessEvent): void {
    const kind = runEventKindFor(event.kind);
    if (kind === null) return;
    try {
      this.deps.runs.appendEvent(runId, this.deps.now(), kind, event.message, event);
    } catch (error) {
      throw new PhaseFailure("internal_error", error);
    }
  }
}

function errorKeys(issues: ValidationIssue[]): string[] {
  return issues.filter((i) => i.severity === "error").map(issueKey);
}

function issueKey(issue: ValidationIssue): string {
  return [issue.category, issue.page ?? "", issue.topic ?? "", issue.path ?? "", issue.message].join("\u0000");
}

/** Lifecycle runs fail only on validation errors they introduced (decisions.md §6). */
function gate(before: Set<string>, after: ValidationIssue[]): void {
  const introduced = after.filter((i) => i.severity === "error" && !before.has(issueKey(i)));
  if (introduced.length === 0) return;
  const first = introduced[0]!;
  const where = first.page ?? first.topic ?? first.path;
  const text = `${first.category}: ${first.message}${where ? ` (${where})` : ""}`;
  throw new ProductError(
    "validation_failed",
    introduced.length === 1
      ? `validation failed: ${text}`
      : `validation failed: ${introduced.length} new errors; first: ${text}`,
  );
}
