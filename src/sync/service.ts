import type { HarnessKind } from "../harnesses/catalog.js";
import type { Hooks } from "../queue/hooks.js";
import type { Repository } from "../repositories/model.js";
import type { RepositoriesService } from "../repositories/service.js";
import { isTerminal, type RunRecord, type RunStatus } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import type { RunFootprints } from "../runs/access.js";
import { oneLine } from "../core/errors.js";
import type { PrivacyRules, RedactionCount } from "../privacy/redact.js";
import type { TranscriptPart } from "./redactions.js";
import { transcriptRangeAddress } from "../sources/model.js";
import { TRANSCRIPT_APPS, type TranscriptApp, type TranscriptListing } from "./discovery/index.js";
import { joinedSpec, syncGuidance, syncTitle } from "./guidance.js";
import type { SessionSummary, StartedGroup, SyncSkip, SyncSummary, TranscriptRedactions } from "./model.js";
import { MAX_TRANSCRIPTS_PER_RUN, planSync, type PlanInputs, type PlannedGroup, type PlannedTranscript } from "./plan.js";
import { findSessionFile, type SessionTarget } from "./session.js";
import { settledCursor, type Joiner, type RunOutcome, type SyncCursor, type SyncStore } from "./store.js";

/** `sync --session`: one session, from where its cursor stands. */
export interface SessionRequest {
  target: SessionTarget;
  using?: HarnessKind;
}

export interface SyncRequest {
  apps: readonly TranscriptApp[];
  wiki?: string;
  /** Widens the window for transcripts never synced before (`--since`). */
  sinceMs?: number;
  using?: HarnessKind;
}

/** The transcripts on disk: listing (stat only), identities and activity, and where complete lines end. */
export interface TranscriptDiscovery {
  list: (apps: readonly TranscriptApp[]) => Promise<TranscriptListing>;
  readMetas: PlanInputs["readMetas"];
  extent: PlanInputs["extent"];
}

export interface SyncDeps {
  store: SyncStore;
  runs: RunFootprints;
  repositories: Pick<RepositoriesService, "byName" | "affiliator">;
  discovery: TranscriptDiscovery;
  now: () => number;
  /** `privacy.exclude` (folders whose sessions are never read) and `privacy.redact`. */
  privacyRules: () => Promise<PrivacyRules>;
  /** What the redactor would hide in a transcript's new part (`sync status`); see redactions.ts. */
  countRedactions: (part: TranscriptPart, rules: PrivacyRules) => Promise<RedactionCount[]>;
  /** How far back the first sync looks (`automation.sync.every`). */
  lookbackMs: () => Promise<number>;
  prepareIngest: (repository: Repository, addresses: string[], options: { using?: HarnessKind; title: string; guidance: string }) => Promise<RunSpec>;
  /** Inserts the run into the ledger inside the caller's transaction; no worker is woken. */
  insertRun: (repository: Repository, spec: RunSpec) => RunRecord;
  /** Revises a run's spec inside the caller's transaction, only while it is still queued (RunStore.reviseQueuedSpec). */
  reviseQueued: (runId: string, revise: (record: RunRecord, spec: RunSpec) => { spec: RunSpec; event: string } | null) => boolean;
  /** Wakes a worker once the runs are committed. */
  wake: () => void;
  /** `syncBeforeReserve` fires between planning and the reserving transaction (race tests). */
  hooks: Hooks;
}

/**
 * Turns the user's own agent sessions into ingest runs. `status` plans and writes
 * nothing; `sync` settles cursors, queues one run per repository for the transcripts
 * with new activity, and moves their cursors in the same transaction.
 */
export class SyncService {
  constructor(private readonly deps: SyncDeps) {}

  async status(request: SyncRequest): Promise<SyncSummary> {
    const { plan, since } = await this.plan(request, false);
    const rules = await this.deps.privacyRules();
    const ready = await Promise.all(plan.groups.map(async (group) => ({ ...readyOf(group), redactions: await this.redactionsIn(group, rules) })));
    return { mode: "status", since, completedAt: null, scanned: plan.scanned, eligible: plan.eligible, ready, started: [], skipped: plan.skipped, unchanged: plan.unchanged };
  }

  async sync(request: SyncRequest): Promise<SyncSummary> {
    const { plan, since } = await this.plan(request, true);
    const started: StartedGroup[] = [];
    const skipped: SyncSkip[] = [...plan.skipped];
    // Whether this scan saw every transcript through: not limited by --wiki, every group queued.
    let whole = request.wiki === undefined;
    const skip = (transcripts: readonly PlannedTranscript[], reason: string) => {
      for (const t of transcripts) skipped.push({ transcriptPath: t.path, reason, app: t.app, sessionId: t.sessionId, cwd: t.cwd });
    };
    for (const group of plan.groups) {
      try {
        const { queued, taken } = await this.queueGroup(group, request);
        if (queued) started.push(queued);
        skip(taken, "taken-by-another-sync");
      } catch (error) {
        whole = false;
        skip(group.transcripts, `queue-failed: ${oneLine(error)}`);
      }
    }
    if (started.length > 0) this.wakeWorker(started, skipped);
    const completedAt = this.deps.now();
    if (whole) this.recordScans(request.apps, plan.scanStartedAt, plan.heldBack);
    return { mode: "sync", since, completedAt, scanned: plan.scanned, eligible: plan.eligible, ready: [], started, skipped, unchanged: plan.unchanged };
  }

  /**
   * `sync --session`: only this session's new part, with the cursors, own-run exclusion and
   * affiliation of `sync`, and no activity window (the session was named). It joins the
   * wiki's queued sync run when there is one (see `queueGroup`), so sessions that end
   * together make one run.
   */
  async syncSession(request: SessionRequest): Promise<SessionSummary> {
    const listing = await this.deps.discovery.list(TRANSCRIPT_APPS);
    const file = findSessionFile(request.target, listing.files);
    const { cursors, pendingStatus } = this.settledCursors(true);
    const plan = await planSync({
      files: [file],
      cursors,
      pendingStatus,
      windowStart: () => -Infinity,
      footprints: this.deps.runs.harnessFootprints(),
      affiliator: this.deps.repositories.affiliator(),
      onlyRepositoryId: null,
      exclude: (await this.deps.privacyRules()).exclude ?? [],
      readMetas: this.deps.discovery.readMetas,
      extent: this.deps.discovery.extent,
    });
    const about = { transcriptPath: file.path, app: file.app };
    const group = plan.groups[0];
    if (!group) {
      const skip = plan.skipped[0] ?? { transcriptPath: file.path, reason: "no-new-activity", app: file.app };
      return { ...about, ...(skip.sessionId !== undefined ? { sessionId: skip.sessionId } : {}), ...(skip.cwd !== undefined ? { cwd: skip.cwd } : {}), started: null, skipped: skip };
    }
    const planned = group.transcripts[0]!;
    const session = { ...about, sessionId: planned.sessionId, cwd: planned.cwd };
    const skipped = (reason: string) => ({ ...session, started: null, skipped: { transcriptPath: file.path, reason, app: file.app, sessionId: planned.sessionId, cwd: planned.cwd } });
    let queued: StartedGroup | null;
    try {
      ({ queued } = await this.queueGroup(group, request, { join: true }));
    } catch (error) {
      return skipped(`queue-failed: ${oneLine(error)}`);
    }
    if (!queued) return skipped("taken-by-another-sync");
    const wakeSkips: SyncSkip[] = [];
    if (!queued.joined) this.wakeWorker([queued], wakeSkips);
    return { ...session, started: queued, skipped: wakeSkips[0] ?? null };
  }

  /** One transcript at a time: each is rendered whole in memory, as its run will render it. */
  private async redactionsIn(group: PlannedGroup, rules: PrivacyRules): Promise<TranscriptRedactions[]> {
    const counted: TranscriptRedactions[] = [];
    for (const t of group.transcripts) {
      let redactions: RedactionCount[] | null;
      try {
        redactions = await this.deps.countRedactions({ path: t.path, app: t.app, fromOffset: t.fromOffset, toOffset: t.toOffset }, rules);
      } catch {
        redactions = null;
      }
      counted.push({ transcriptPath: t.path, redactions });
    }
    return counted;
  }

  /**
   * A scan limited by `--wiki`, or one where a group failed to queue, leaves transcripts
   * without cursors behind, so it records nothing. A whole scan records when it started,
   * or, when it deferred transcripts that have no cursor yet, the oldest activity among
   * them: the next window must reach them.
   */
  private recordScans(apps: readonly TranscriptApp[], startedAt: number, heldBack: ReadonlyMap<TranscriptApp, number>): void {
    for (const app of apps) this.deps.store.recordScan(app, Math.min(startedAt, heldBack.get(app) ?? startedAt));
  }

  private async plan(request: SyncRequest, settle: boolean) {
    const scanStartedAt = this.deps.now();
    const only = request.wiki !== undefined ? this.deps.repositories.byName(request.wiki) : null;
    const lookback = await this.deps.lookbackMs();
    const scans = this.deps.store.scans();
    const windowStart = (app: TranscriptApp) => request.sinceMs ?? Math.min(scanStartedAt - lookback, scans.get(app) ?? Infinity);
    const listing = await this.deps.discovery.list(request.apps);
    const { cursors, pendingStatus } = this.settledCursors(settle);
    const plan = await planSync({
      files: listing.files,
      cursors,
      pendingStatus,
      windowStart,
      footprints: this.deps.runs.harnessFootprints(),
      affiliator: this.deps.repositories.affiliator(),
      onlyRepositoryId: only?.repositoryId ?? null,
      exclude: (await this.deps.privacyRules()).exclude ?? [],
      readMetas: this.deps.discovery.readMetas,
      extent: this.deps.discovery.extent,
    });
    const since = Math.min(...request.apps.map(windowStart));
    return { plan: { ...plan, scanned: listing.files.length + listing.inactive, scanStartedAt }, since };
  }

  /**
   * Cursors with each finished run's part settled (see `settledCursor`): absorbed when
   * the run ended `done`, offered again when it failed or was cancelled. `jobs prune`
   * settles the cursors of the runs it deletes, so a run missing from the ledger was lost
   * some other way, and its part is offered again. `sync` writes the settlements;
   * `status` only computes them.
   */
  private settledCursors(write: boolean): { cursors: Map<string, SyncCursor>; pendingStatus: Map<string, RunStatus> } {
    const cursors = this.deps.store.cursors();
    const waiting = [...cursors.values()].filter((c): c is SyncCursor & { pendingRunId: string } => c.pendingRunId !== null);
    const statuses = this.deps.runs.statusesOf([...new Set(waiting.map((c) => c.pendingRunId))]);
    const outcomes = new Map<string, RunOutcome["status"]>();
    for (const cursor of waiting) {
      const status = statuses.get(cursor.pendingRunId) ?? "lost";
      if (status !== "lost" && !isTerminal(status)) continue;
      outcomes.set(cursor.pendingRunId, status);
      cursors.set(cursor.pathKey, settledCursor(cursor, status));
    }
    if (write) this.deps.store.settleRuns([...outcomes].map(([runId, status]) => ({ runId, status })), this.deps.now());
    return { cursors, pendingStatus: statuses };
  }

  /**
   * Queues the group's run; `taken` are its transcripts another sync reserved first. With
   * `join`, a sync run already queued for the repository takes them instead, when it has
   * room and would run with the same agent, model and commit setting.
   */
  private async queueGroup(
    group: PlannedGroup,
    request: { using?: HarnessKind },
    options: { join: boolean } = { join: false },
  ): Promise<{ queued: StartedGroup | null; taken: PlannedTranscript[] }> {
    const addresses = group.transcripts.map((t) => transcriptRangeAddress(t.path, t.fromOffset, t.toOffset));
    const spec = await this.deps.prepareIngest(group.repository, addresses, {
      ...(request.using !== undefined ? { using: request.using } : {}),
      title: syncTitle(group.transcripts),
      guidance: syncGuidance(group.repository, group.transcripts),
    });
    this.deps.hooks.run("syncBeforeReserve");
    const keptSpec = (kept: readonly { pathKey: string }[]) => narrowSpec(spec, group, new Set(kept.map((k) => k.pathKey)));
    const reserved = this.deps.store.reserveAndQueue(
      group.transcripts,
      this.deps.now(),
      (kept) => this.deps.insertRun(group.repository, keptSpec(kept)).runId,
      options.join ? this.joiner(group, keptSpec) : undefined,
    );
    if (!reserved) return { queued: null, taken: group.transcripts };
    const kept = new Set(reserved.kept.map((k) => k.pathKey));
    const ready = readyOf({ repository: group.repository, transcripts: group.transcripts.filter((t) => kept.has(t.pathKey)) });
    const queued = { ...ready, runId: reserved.runId, joined: reserved.joined };
    return { queued, taken: group.transcripts.filter((t) => !kept.has(t.pathKey)) };
  }

  /** Adds the kept transcripts to a queued run of the repository, inside the reserving transaction. */
  private joiner(group: PlannedGroup, keptSpec: (kept: readonly { pathKey: string }[]) => RunSpec): Joiner {
    return (runId, held, kept) => {
      if (held.length + kept.length > MAX_TRANSCRIPTS_PER_RUN) return false;
      const keptKeys = new Set(kept.map((k) => k.pathKey));
      const added = group.transcripts.filter((t) => keptKeys.has(t.pathKey));
      return this.deps.reviseQueued(runId, (record, current) => {
        if (record.repositoryId !== group.repository.repositoryId) return null;
        const spec = joinedSpec(current, keptSpec(kept), group.repository, [...held, ...added]);
        const sessions = added.map((t) => `${t.app} ${t.sessionId}`).join(", ");
        return spec && { spec, event: `sync added ${added.length === 1 ? "a session" : `${added.length} sessions`}: ${sessions}` };
      });
    };
  }

  private wakeWorker(started: StartedGroup[], skipped: SyncSkip[]): void {
    try {
      this.deps.wake();
    } catch (error) {
      for (const group of started) {
        for (const path of group.transcriptPaths) skipped.push({ transcriptPath: path, reason: `worker-spawn-failed: ${oneLine(error)}` });
      }
    }
  }
}

/**
 * The spec for the transcripts the reservation kept: all of them as prepared, or, when
 * another sync took some first, only the rest (inputs and sources are in the group's order).
 */
function narrowSpec(spec: RunSpec, group: PlannedGroup, keep: ReadonlySet<string>): RunSpec {
  const indexes = group.transcripts.flatMap((t, i) => (keep.has(t.pathKey) ? [i] : []));
  const transcripts = indexes.map((i) => group.transcripts[i]!);
  return {
    ...spec,
    inputs: indexes.map((i) => spec.inputs[i]!),
    sources: indexes.map((i) => spec.sources[i]),
    title: syncTitle(transcripts),
    guidance: syncGuidance(group.repository, transcripts),
  };
}

function readyOf(group: PlannedGroup) {
  return {
    repositoryId: group.repository.repositoryId,
    repositoryName: group.repository.name,
    repositoryRoot: group.repository.rootPath,
    transcriptPaths: group.transcripts.map((t) => t.path),
  };
}
