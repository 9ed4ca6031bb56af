import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { indexPath, statePaths } from "../core/paths.js";
import type { CommandRunner } from "../core/command.js";
import { oneLine, ProductError } from "../core/errors.js";
import type { FailureCategory, PageChanges, RunRecord } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import type { RunRecorder } from "../runs/access.js";
import type { OperationRunner } from "../queue/executor.js";
import { HARNESS_KINDS, isHarnessKind, type HarnessKind } from "../harnesses/catalog.js";
import type { HarnessAdapter, HarnessRunResult } from "../harnesses/types.js";
import type { HarnessEvent } from "../harnesses/events.js";
import { runEventKindFor } from "../harnesses/events.js";
import type { IndexService, WikiIndex } from "../index/service.js";
import type { ValidationIssue } from "../index/views/validate.js";
import { diffPages } from "../index/views/pages.js";
import type { SourceBrief } from "../sources/model.js";
import type { PageDrift } from "../evidence/types.js";
import type { StalePageBrief } from "./context/stale.js";
import { redact, type PrivacyRules } from "../privacy/redact.js";
import { staleOutcome, uneditedTargets, type StaleTarget } from "./stale-outcome.js";
import {
  BUILD_BUDGET_CHARS,
  GARDEN_BUDGET_CHARS,
  SOURCE_BUDGET_CHARS,
  STALE_BUDGET_CHARS,
  renderPrompt,
  preparationMessage,
  type PromptMaterial,
} from "./prompts.js";
import { stampEvidence, type EvidenceStampReport, type UnstampedSource } from "../index/stamp-evidence.js";
import { compareSnapshots, describeOutside, headCommit, takeSnapshot, type GitSnapshot } from "./write-boundary.js";
import { agentEnvironment, prepareAgentTools, removeAgentTools, type AgentTools, type CliEntry } from "./agent-tools.js";
import { commitSubject, commitWikiChanges, type WikiCommitOutcome } from "./wiki-commit.js";
import { OrderedWrites, redactStrings } from "./redacted-record.js";
import { scanForSecrets, secretFoundMessage, writtenWikiFiles } from "./secret-gate.js";

/** What a run needs prepared before the agent starts, each within its share of the prompt; app.ts wires them. */
export interface RunMaterials {
  sources(spec: RunSpec, context: { repositoryRoot: string; workDir: string; budgetChars: number }): Promise<SourceBrief[]>;
  garden(index: WikiIndex, issues: ValidationIssue[], budgetChars: number): Promise<unknown>;
  build(root: string, budgetChars: number): Promise<unknown>;
  /** `garden --stale`: each page's stale evidence with the diffs of its files since it was verified. */
  stale(index: WikiIndex, pages: readonly PageDrift[], context: { repositoryRoot: string; workDir: string; budgetChars: number }): Promise<StalePageBrief[]>;
}

export interface LifecycleDeps {
  runs: RunRecorder;
  index: IndexService;
  harness: (kind: HarnessKind) => Promise<HarnessAdapter>;
  materials: RunMaterials;
  /** What `ca drift` says of these pages now (never called with none). */
  drift: (index: WikiIndex, slugs: readonly string[]) => Promise<PageDrift[]>;
  commands: CommandRunner;
  /**
   * The user's own patterns beside the built-in detectors (`privacy.redact`): the secret gate
   * and the redaction of what the agent reports both use them.
   */
  privacyRules: () => Promise<PrivacyRules>;
  /** The run's own folder in the state root. */
  runDir: (runId: string) => string;
  now: () => number;
  log: (line: string) => void;
  /** The run's environment: every command of the run (git, the agent) starts from it. */
  env: NodeJS.ProcessEnv;
  /** This installation's CLI, which the agent's `codealmanac` must run. */
  cli: CliEntry;
  /** The writing manual the agent reads for a wiki (almanac/ path in): the wiki's own copy, else the packaged one. */
  manualRoot: (almanacPath: string) => string;
  runTimeoutMs: number;
  runIdleTimeoutMs: number;
  /**
   * Aborted when the executor is told to stop (a cancel or a timeout): the run ends without
   * this executor writing a failure, because whoever stopped it records the outcome once every
   * process of the run is gone.
   */
  stopped?: AbortSignal;
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
 * Executes one build, ingest or garden run: readiness, a validation baseline, the run's
 * material, the agent between two git snapshots, a refresh that records which pages
 * changed, a gate that fails the run only for validation errors the run introduced, and
 * the product's commit of the wiki changes.
 */
export class LifecycleRunner implements OperationRunner {
  constructor(private readonly deps: LifecycleDeps) {}

  async run(record: RunRecord, spec: RunSpec): Promise<void> {
    const { runs, now } = this.deps;
    let tools: AgentTools | null = null;
    try {
      const { adapter, version } = await phase("harness_readiness", () => this.ready(spec.harness));
      const { index, issues } = await phase("indexing", () => this.baseline(record));
      const material = await this.prepare(record, spec, index, issues);
      if (material.stale && material.stale.pages.length === 0) {
        // Every targeted page is fresh (or gone) by now: nothing for an agent to do.
        const none = { targets: [], changes: { created: [], updated: [], deleted: [] }, stillStale: new Set<string>(), unstamped: [] };
        runs.recordStalePages(record.runId, staleOutcome({ ...none, noLongerStale: material.stale.noLongerStale }));
        runs.finishRun(record.runId, now(), { status: "done", summary: "nothing to garden: the targeted pages are no longer stale" });
        return;
      }
      const prompt = renderPrompt(record, spec, index.almanacPath, material, this.deps.manualRoot(index.almanacPath));
      const pagesBefore = await index.pageFingerprints();
      const before = await phase("internal_error", () => takeSnapshot(record.repositoryRoot, this.deps.commands, this.deps.env));
      tools = await phase("internal_error", () => prepareAgentTools(join(this.deps.runDir(record.runId), "agent"), this.deps.cli));
      this.seedAgentIndex(record, index, tools);
      if (this.deps.stopped?.aborted) throw new PhaseFailure("internal_error", new Error("the executor was told to stop before its agent started"));
      const rules = await phase("internal_error", () => this.deps.privacyRules());
      const agent = `${spec.harness}${version ? ` ${version}` : ""}`;
      await phase("internal_error", () => runs.appendEvent(record.runId, now(), "message", `starting ${agent} with model ${spec.model}`));
      const result = await phase("provider_execution", () => this.runAgent(record, spec, { adapter, version, prompt, tools: tools!, rules }));
      runs.recordHarnessSession(record.runId, { kind: result.kind, sessionId: result.sessionId, transcriptPath: result.transcriptPath });
      await phase("internal_error", () => this.recordChanges(record, before));
      if (result.status !== "succeeded") {
        const detail = (await redact(result.failure?.message ?? result.outputText, rules)).text;
        const fix = result.failure?.fix ? ` (${result.failure.fix})` : "";
        throw new PhaseFailure(
          result.failure?.code === "timeout" ? "timeout" : "provider_execution",
          new Error(`harness ${result.kind} ${result.status}: ${oneLine(detail)}${fix}`),
        );
      }
      await phase("indexing", () => index.refresh());
      const pageChanges = diffPages(pagesBefore, await index.pageFingerprints());
      runs.recordPageChanges(record.runId, pageChanges);
      // A secret outranks every other fault: a run that also broke a link fails as secret_found, naming where it is.
      await phase("internal_error", () => this.secretGate(record, index, before, [...pageChanges.created, ...pageChanges.updated], rules));
      await phase("wiki_validation", async () => gate(issues, await index.issues()));
      // The run's summary is also the commit's subject: what the agent said passes the redactor first.
      const summary = result.summary ? (await redact(result.summary, rules)).text : `${spec.kind} completed`;
      // A stale page the agent left as it was is confirmed: it is stamped as verified now, with the pages it wrote.
      const confirmed = material.stale ? uneditedTargets(staleTargets(material.stale), pageChanges) : [];
      // The seam before the commit: the evidence stamp, then the secret gate again, in that
      // order, so what they write or refuse is what gets committed (or not). This time the
      // gate also scans the confirmed pages the stamp rewrote.
      const written = [...pageChanges.created, ...pageChanges.updated, ...confirmed];
      const stamped = await phase("internal_error", () => this.stamp(record, index, written));
      await phase("internal_error", () => this.secretGate(record, index, before, written, rules));
      await phase("internal_error", () => this.commit(record, spec, before, summary));
      if (material.stale) await phase("internal_error", () => this.recordStale(record, index, material.stale!, pageChanges, stamped));
      runs.finishRun(record.runId, now(), { status: "done", summary });
    } catch (error) {
      const category = error instanceof PhaseFailure ? error.category : "internal_error";
      const message = oneLine(error instanceof PhaseFailure ? error.reason : error);
      if (this.deps.stopped?.aborted) {
        this.deps.log(`run ${record.runId} stopped (${message}); the process that stopped it records the outcome`);
        return;
      }
      this.deps.log(`run ${record.runId} failed (${category}): ${message}`);
      try {
        runs.finishRun(record.runId, now(), { status: "failed", category, error: message, errorEvent: message });
      } catch (writeError) {
        this.deps.log(`run ${record.runId}: could not record the failure: ${oneLine(writeError)}`);
      }
    } finally {
      if (tools) this.removeTools(record, tools);
    }
  }

  /**
   * The agent's commands start from a copy of the index the baseline just refreshed: from
   * nothing, their first call would parse every page (seconds on a big wiki). Best effort.
   */
  private seedAgentIndex(record: RunRecord, index: WikiIndex, tools: AgentTools): void {
    try {
      index.copyTo(indexPath(statePaths({ CODEALMANAC_HOME: tools.stateRoot }), record.repositoryId));
    } catch (error) {
      this.deps.log(`run ${record.runId}: the agent's commands start with an empty index: ${oneLine(error)}`);
    }
  }

  private removeTools(record: RunRecord, tools: AgentTools): void {
    try {
      removeAgentTools(tools);
    } catch (error) {
      this.deps.log(`run ${record.runId}: could not remove ${tools.folder}: ${oneLine(error)}`);
    }
  }

  private async ready(kind: string): Promise<{ adapter: HarnessAdapter; version: string | null }> {
    if (!isHarnessKind(kind)) {
      throw new ProductError("execution_failed", `unknown harness "${kind}" (this version runs ${HARNESS_KINDS.join(" and ")})`);
    }
    const adapter = await this.deps.harness(kind);
    const readiness = await adapter.readiness(this.deps.env);
    if (!readiness.available) {
      const repair = readiness.repair ? ` — ${readiness.repair}` : "";
      const others = HARNESS_KINDS.filter((k) => k !== kind);
      throw new ProductError(
        "execution_failed",
        `harness ${kind} is not available: ${readiness.message}${repair}; or retry with --using ${others.join(" or --using ")}`,
      );
    }
    this.deps.log(`harness ready: ${readiness.message}`);
    return { adapter, version: readiness.version ?? null };
  }

  private async baseline(record: RunRecord): Promise<{ index: WikiIndex; issues: ValidationIssue[] }> {
    // Pieced together from the run's record: the index keeps the registration it recorded.
    const index = this.deps.index.open(
      {
        repositoryId: record.repositoryId,
        name: record.repositoryName,
        description: "",
        rootPath: record.repositoryRoot,
        registeredAt: record.createdAt,
      },
      { fromRegistry: false },
    );
    await index.refresh();
    return { index, issues: await index.issues() };
  }

  /** The operation's material: source briefs for ingest, a wiki summary for garden, an inventory for build. */
  private async prepare(record: RunRecord, spec: RunSpec, index: WikiIndex, issues: ValidationIssue[]): Promise<PromptMaterial> {
    const { materials } = this.deps;
    const material: PromptMaterial = {};
    if (spec.kind === "ingest") {
      const workDir = this.deps.runDir(record.runId);
      const context = { repositoryRoot: record.repositoryRoot, workDir, budgetChars: SOURCE_BUDGET_CHARS };
      material.sources = await phase("source_preparation", () => materials.sources(spec, context));
    } else if (spec.kind === "garden" && spec.stale_pages) {
      const targets = spec.stale_pages;
      const stillStale = await phase("indexing", () => this.stillStale(index, targets));
      const context = { repositoryRoot: record.repositoryRoot, workDir: this.deps.runDir(record.runId), budgetChars: STALE_BUDGET_CHARS };
      const pages = stillStale.length > 0 ? await phase("source_preparation", () => materials.stale(index, stillStale, context)) : [];
      const named = new Set(pages.map((page) => page.slug));
      material.stale = { pages, noLongerStale: targets.filter((slug) => !named.has(slug)) };
    } else if (spec.kind === "garden") {
      material.garden = await phase("indexing", () => materials.garden(index, issues, GARDEN_BUDGET_CHARS));
    } else {
      material.build = await phase("internal_error", () => materials.build(record.repositoryRoot, BUILD_BUDGET_CHARS));
    }
    await phase("internal_error", () => this.deps.runs.appendEvent(record.runId, this.deps.now(), "message", preparationMessage(spec, material)));
    return material;
  }

  /** The targeted pages that exist and that drift still calls stale, as drift judges them now. */
  private async stillStale(index: WikiIndex, targets: readonly string[]): Promise<PageDrift[]> {
    const existing = await index.pageFingerprints();
    const present = [...new Set(targets)].filter((slug) => existing.has(slug));
    if (present.length === 0) return [];
    return (await this.deps.drift(index, present)).filter((page) => page.status === "stale");
  }

  /**
   * What the run did with its stale pages (stale-outcome.ts), recorded on the run and announced;
   * pages still stale and pages the agent was not asked to change are warnings.
   */
  private async recordStale(record: RunRecord, index: WikiIndex, stale: NonNullable<PromptMaterial["stale"]>, changes: PageChanges, stamped: EvidenceStampReport | null): Promise<void> {
    const { runs, now } = this.deps;
    const targets = staleTargets(stale);
    const deleted = new Set(changes.deleted);
    const remaining = targets.map((target) => target.slug).filter((slug) => !deleted.has(slug));
    const stillStale = new Set<string>();
    try {
      if (remaining.length > 0) for (const page of await this.deps.drift(index, remaining)) if (page.status === "stale") stillStale.add(page.slug);
    } catch (error) {
      runs.appendEvent(record.runId, now(), "warning", `could not check which pages are still stale: ${oneLine(error)}`);
    }
    const outcome = staleOutcome({ targets, changes, stillStale, unstamped: stamped?.unstamped ?? [], noLongerStale: stale.noLongerStale });
    runs.recordStalePages(record.runId, outcome);
    const { confirmed, corrected, left_stale: leftStale } = outcome;
    runs.appendEvent(record.runId, now(), "message", `stale pages: ${confirmed.length} confirmed, ${corrected.length} corrected, ${leftStale.length} left stale`, outcome);
    if (leftStale.length > 0) {
      runs.appendEvent(record.runId, now(), "warning", `${leftStale.length} page${leftStale.length === 1 ? " is" : "s are"} still stale after the run: ${listed(leftStale)}`);
    }
    const targeted = new Set(outcome.targeted);
    const others = [...changes.created, ...changes.updated, ...changes.deleted].filter((slug) => !targeted.has(slug));
    if (others.length > 0) runs.appendEvent(record.runId, now(), "warning", `the run changed pages it was not asked to: ${listed(others)}`);
  }

  /**
   * The agent's events and stderr pass through the redactor before the ledger and the run log
   * (redacted-record.ts), in the order the agent reported them; the run goes on only once all
   * of them are written.
   */
  private async runAgent(record: RunRecord, spec: RunSpec, agent: AgentLaunch): Promise<HarnessRunResult> {
    const { adapter, version, prompt, tools, rules } = agent;
    const writes = new OrderedWrites();
    const log = (text: string) =>
      writes.add(async () => this.deps.log(`[${spec.harness} stderr] ${(await redact(text.trimEnd(), rules)).text}`));
    try {
      const result = await adapter.run(
        {
          model: spec.model,
          cwd: record.repositoryRoot,
          prompt,
          sessionId: randomUUID(),
          cliVersion: version,
          // The worker enforces runs.timeout; this is only a backstop if no worker is watching.
          timeoutMs: this.deps.runTimeoutMs + 60_000,
          idleTimeoutMs: this.deps.runIdleTimeoutMs,
          env: agentEnvironment(this.deps.env, tools),
          commands: tools.commands,
          onStderr: log,
        },
        (event) => this.record(record.runId, event, writes, rules),
      );
      await writes.drain();
      return result;
    } finally {
      await writes.settled();
    }
  }

  /**
   * The gate before the commit, whether or not `auto_commit` is on: a secret in any wiki file
   * the run wrote fails the run with `secret_found` before anything is staged, and the run
   * records where (secret-gate.ts). The files stay in the working tree.
   */
  private async secretGate(record: RunRecord, index: WikiIndex, before: GitSnapshot | null, slugs: readonly string[], rules: PrivacyRules): Promise<void> {
    const pageFiles = [...(await index.pageFiles(slugs)).values()].map((relPath) => join(index.almanacPath, relPath));
    const files = await writtenWikiFiles({ root: record.repositoryRoot, before, pageFiles }, this.deps.commands, this.deps.env);
    const findings = await scanForSecrets(record.repositoryRoot, files, rules);
    if (findings.length === 0) return;
    this.deps.runs.recordSecretFindings(record.runId, findings);
    throw new PhaseFailure("secret_found", new Error(secretFoundMessage(findings, record.runId)));
  }

  /** Commits made and files touched outside almanac/ are recorded; the files also as a warning. */
  private async recordChanges(record: RunRecord, before: GitSnapshot | null): Promise<void> {
    const { runs, now } = this.deps;
    if (!before) {
      runs.recordChanges(record.runId, { commits: [], outside: [], notes: ["not a git repository: changes outside almanac/ could not be checked"] });
      return;
    }
    const after = await takeSnapshot(record.repositoryRoot, this.deps.commands, this.deps.env);
    if (!after) return;
    const changes = await compareSnapshots(before, after, record.repositoryRoot, this.deps.commands, this.deps.env);
    runs.recordChanges(record.runId, changes);
    const warning = describeOutside(changes);
    if (warning) runs.appendEvent(record.runId, now(), "warning", warning, { outside: changes.outside });
    for (const note of changes.notes) runs.appendEvent(record.runId, now(), "warning", note);
  }

  /**
   * The product, not the agent, stamps the evidence of every page the run created or updated:
   * each file source gets the fingerprint of what it cites and the HEAD it was read at. A
   * failure here is a warning: the run's work is still committed, unstamped.
   */
  private async stamp(record: RunRecord, index: WikiIndex, slugs: string[]): Promise<EvidenceStampReport | null> {
    const { runs, now } = this.deps;
    let report: EvidenceStampReport;
    try {
      const head = await headCommit(record.repositoryRoot, this.deps.commands, this.deps.env);
      report = await stampEvidence(index, slugs, head);
    } catch (error) {
      runs.appendEvent(record.runId, now(), "warning", `evidence not stamped: ${oneLine(error)}`);
      return null;
    }
    if (report.sources > 0) {
      const pages = `${report.pages} page${report.pages === 1 ? "" : "s"}`;
      const counts = { pages: report.pages, sources: report.sources, written: report.written };
      runs.appendEvent(record.runId, now(), "message", `stamped the evidence of ${report.sources} file source${report.sources === 1 ? "" : "s"} on ${pages}`, counts);
    }
    const unstamped = describeUnstamped(report.unstamped);
    if (unstamped) {
      runs.appendEvent(record.runId, now(), "warning", unstamped, { unstamped: report.unstamped.slice(0, UNSTAMPED_LIMIT), count: report.unstamped.length });
    }
    return report;
  }

  /**
   * The product commits the wiki changes; the agent never does. What git refuses (detached
   * HEAD, a merge in progress, no identity, signing that fails) is a warning: the run is still
   * done, and the agent's work stays in the working tree.
   */
  private async commit(record: RunRecord, spec: RunSpec, before: GitSnapshot | null, summary: string): Promise<void> {
    const { runs, now } = this.deps;
    const warn = (message: string) => runs.appendEvent(record.runId, now(), "warning", message);
    if (!spec.auto_commit) {
      runs.appendEvent(record.runId, now(), "message", "nothing committed: with auto_commit off, the wiki changes stay in the working tree");
      return;
    }
    if (!before) {
      warn(`nothing committed: ${record.repositoryRoot} is not in a git work tree`);
      return;
    }
    let outcome: WikiCommitOutcome;
    try {
      outcome = await commitWikiChanges({ root: record.repositoryRoot, before, subject: commitSubject(summary) }, this.deps.commands, this.deps.env);
    } catch (error) {
      // git itself broke (a status that fails, say): still the repository's problem, not the run's.
      warn(`nothing committed: ${oneLine(error)}`);
      return;
    }
    switch (outcome.kind) {
      case "unchanged":
        runs.appendEvent(record.runId, now(), "message", "nothing to commit: no file under almanac/ changed");
        return;
      case "skipped":
        warn(`nothing committed (${outcome.files} changed file${outcome.files === 1 ? "" : "s"} under almanac/ left in the working tree): ${outcome.reason}`);
        return;
      case "committed":
        runs.recordWikiCommit(record.runId, { sha: outcome.sha, subject: outcome.subject, files: outcome.files });
        runs.appendEvent(record.runId, now(), "message", `committed ${outcome.sha.slice(0, 12)} ${outcome.subject}`);
        return;
    }
  }

  /** A failing ledger write is our failure, not the agent's: it surfaces as internal_error once the agent is done. */
  private record(runId: string, event: HarnessEvent, writes: OrderedWrites, rules: PrivacyRules): void {
    const kind = runEventKindFor(event.kind);
    if (kind === null) return;
    // Once told to stop, the agent's own report of how it ended only describes the stop.
    if ((event.kind === "error" || event.kind === "done") && this.deps.stopped?.aborted) return;
    const at = this.deps.now();
    writes.add(async () => {
      const redacted = await redactStrings(event, rules);
      try {
        this.deps.runs.appendEvent(runId, at, kind, redacted.message, redacted);
      } catch (error) {
        throw new PhaseFailure("internal_error", error);
      }
    });
  }
}

/** What runs the agent: the adapter and its CLI's version, the prompt, the agent's commands, and the rules its reports are redacted with. */
interface AgentLaunch {
  adapter: HarnessAdapter;
  version: string | null;
  prompt: string;
  tools: AgentTools;
  rules: PrivacyRules;
}

/** Slugs for one line: the first ten, then how many more. */
function listed(slugs: readonly string[]): string {
  return slugs.slice(0, 10).join(", ") + (slugs.length > 10 ? ` and ${slugs.length - 10} more` : "");
}

function staleTargets(stale: NonNullable<PromptMaterial["stale"]>): StaleTarget[] {
  return stale.pages.map((page) => ({ slug: page.slug, staleSources: page.stale.map((source) => source.id) }));
}

/** At most this many unstamped sources go into the warning's payload (its count says how many there were); a big garden run may have thousands. */
const UNSTAMPED_LIMIT = 200;

/** One line for the sources a finished run could not stamp; a folder source (`src/queue/`) is not among them: it has nothing to fingerprint. */
function describeUnstamped(unstamped: readonly UnstampedSource[]): string | null {
  if (unstamped.length === 0) return null;
  const shown = unstamped.slice(0, 5).map((u) => `${u.page}${u.source ? ` [@${u.source}]` : ""}: ${u.reason}`);
  const more = unstamped.length > 5 ? `; and ${unstamped.length - 5} more` : "";
  const count = unstamped.length;
  return `${count} file source${count === 1 ? "" : "s"} not stamped: ${shown.join("; ")}${more}`;
}

function issueKey(issue: ValidationIssue): string {
  return [issue.category, issue.page ?? "", issue.topic ?? "", issue.path ?? "", issue.message].join("\u0000");
}

/** Lifecycle runs fail only on validation errors they introduced (see the validation-severities decision). */
function gate(before: ValidationIssue[], after: ValidationIssue[]): void {
  const known = new Set(before.filter((i) => i.severity === "error").map(issueKey));
  const introduced = after.filter((i) => i.severity === "error" && !known.has(issueKey(i)));
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
