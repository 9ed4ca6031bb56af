import type { HarnessKind } from "../harnesses/catalog.js";
import type { Hooks } from "../queue/hooks.js";
import type { Repository } from "../repositories/model.js";
import type { RepositoriesService } from "../repositories/service.js";
import { isTerminal, type RunRecord, type RunStatus } from "../runs/model.js";
import type { RunSpec } from "../runs/spec.js";
import type { RunStore } from "../runs/store.js";
import { oneLine } from "../core/errors.js";
import { transcriptRangeAddress } from "../sources/model.js";
import { listTranscriptFiles, readTranscriptMetas, type TranscriptApp } from "./discovery/index.js";
import { completeExtent } from "./extent.js";
import { syncGuidance, syncTitle } from "./guidance.js";
import type { StartedGroup, SyncSkip, SyncSummary } from "./model.js";
import { planSync, type PlannedGroup } from "./plan.js";
import type { SyncCursor, SyncStore } from "./store.js";

export interface SyncRequest {
  apps: readonly TranscriptApp[];
  wiki?: string;
  /** Widens the window for transcripts never synced before (`--since`). */
  sinceMs?: number;
  using?: HarnessKind;
}

export interface SyncDeps {
  store: SyncStore;
  runs: RunStore;
  repositories: RepositoriesService;
  env: NodeJS.ProcessEnv;
  now: () => number;
  /** How far back the first sync looks (`automation.sync.every`). */
  lookbackMs: () => Promise<number>;
  prepareIngest: (repository: Repository, addresses: string[], options: { using?: HarnessKind; title: string; guidance: string }) => Promise<RunSpec>;
  /** Inserts the run into the ledger inside the caller's transaction; no worker is woken. */
  insertRun: (repository: Repository, spec: RunSpec) => RunRecord;
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
    const ready = plan.groups.map(readyOf);
    return { mode: "status", since, completedAt: null, scanned: plan.scanned, eligible: plan.eligible, ready, started: [], skipped: plan.skipped, unchanged: plan.unchanged };
  }

  async sync(request: SyncRequest): Promise<SyncSummary> {
    const { plan, since } = await this.plan(request, true);
    const started: StartedGroup[] = [];
    const skipped: SyncSkip[] = [...plan.skipped];
    let failures = 0;
    for (const group of plan.groups) {
      try {
        const outcome = await this.queueGroup(group, request);
        if (outcome) started.push(outcome);
        else for (const t of group.transcripts) skipped.push({ transcriptPath: t.path, reason: "taken-by-another-sync", app: t.app, sessionId: t.sessionId, cwd: t.cwd });
      } catch (error) {
        failures += 1;
        for (const t of group.transcripts) skipped.push({ transcriptPath: t.path, reason: `queue-failed: ${oneLine(error)}`, app: t.app, sessionId: t.sessionId, cwd: t.cwd });
      }
    }
    if (started.length > 0) this.wakeWorker(started, skipped);
    const completedAt = this.deps.now();
    if (request.wiki === undefined && failures === 0) for (const app of request.apps) this.deps.store.recordScan(app, plan.scanStartedAt);
    return { mode: "sync", since, completedAt, scanned: plan.scanned, eligible: plan.eligible, ready: [], started, skipped, unchanged: plan.unchanged };
  }

  private async plan(request: SyncRequest, settle: boolean) {
    const scanStartedAt = this.deps.now();
    const only = request.wiki !== undefined ? this.deps.repositories.byName(request.wiki) : null;
    const lookback = await this.deps.lookbackMs();
    const scans = this.deps.store.scans();
    const windowStart = (app: TranscriptApp) => request.sinceMs ?? Math.min(scanStartedAt - lookback, scans.get(app) ?? Infinity);
    const listing = await listTranscriptFiles(request.apps, this.deps.env);
    const { cursors, pendingStatus } = this.settledCursors(settle);
    const plan = await planSync({
      files: listing.files,
      cursors,
      pendingStatus,
      windowStart,
      footprints: this.deps.runs.harnessFootprints(),
      affiliator: this.deps.repositories.affiliator(),
      onlyRepositoryId: only?.repositoryId ?? null,
      readMetas: readTranscriptMetas,
      extent: completeExtent,
    });
    const since = Math.min(...request.apps.map(windowStart));
    return { plan: { ...plan, scanned: listing.files.length + listing.inactive, scanStartedAt }, since };
  }

  /**
   * Cursors with each finished run's part settled: absorbed when the run ended `done`,
   * offered again when it failed or was cancelled (or was pruned from the ledger).
   * `sync` writes the settlements; `status` only computes them.
   */
  private settledCursors(write: boolean): { cursors: Map<string, SyncCursor>; pendingStatus: Map<string, RunStatus> } {
    const cursors = this.deps.store.cursors();
    const pendingIds = [...new Set([...cursors.values()].map((c) => c.pendingRunId).filter((id): id is string => id !== null))];
    const statuses = this.deps.runs.statusesOf(pendingIds);
    const now = this.deps.now();
    for (const cursor of cursors.values()) {
      const runId = cursor.pendingRunId;
      if (runId === null) continue;
      const status = statuses.get(runId);
      if (status !== undefined && !isTerminal(status)) continue;
      const absorbed = status === "done";
      if (write) {
        if (absorbed) this.deps.store.settleAbsorbed(cursor.pathKey, runId, now);
        else this.deps.store.settleFailed(cursor.pathKey, runId, now);
      }
      if (absorbed) {
        cursor.ingestedOffset = cursor.pendingOffset ?? cursor.ingestedOffset;
        cursor.ingestedActivity = cursor.pendingActivity;
      } else {
        cursor.seenSize = -1;
      }
      cursor.pendingRunId = null;
      cursor.pendingOffset = null;
      cursor.pendingActivity = null;
    }
    return { cursors, pendingStatus: statuses };
  }

  private async queueGroup(group: PlannedGroup, request: SyncRequest): Promise<StartedGroup | null> {
    const addresses = group.transcripts.map((t) => transcriptRangeAddress(t.path, t.fromOffset, t.toOffset));
    const spec = await this.deps.prepareIngest(group.repository, addresses, {
      ...(request.using !== undefined ? { using: request.using } : {}),
      title: syncTitle(group.transcripts),
      guidance: syncGuidance(group.repository, group.transcripts),
    });
    this.deps.hooks.run("syncBeforeReserve");
    const reserved = this.deps.store.reserveAndQueue(group.transcripts, this.deps.now(), (kept) => {
      const keep = new Set(kept.map((k) => k.pathKey));
      const indexes = group.transcripts.flatMap((t, i) => (keep.has(t.pathKey) ? [i] : []));
      const narrowed = kept.length === group.transcripts.length ? spec : narrowSpec(spec, indexes, group, keep);
      return this.deps.insertRun(group.repository, narrowed).runId;
    });
    if (!reserved) return null;
    return { ...readyOf({ repository: group.repository, transcripts: group.transcripts.filter((t) => reserved.kept.some((k) => k.pathKey === t.pathKey)) }), runId: reserved.runId };
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

/** Another sync took some of the transcripts first: the run covers only the rest. */
function narrowSpec(spec: RunSpec, indexes: number[], group: PlannedGroup, keep: Set<string>): RunSpec {
  const transcripts = group.transcripts.filter((t) => keep.has(t.pathKey));
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
