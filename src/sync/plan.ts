import { EXCLUDED_REASON, excludingFolder } from "../privacy/exclude.js";
import type { RunStatus } from "../runs/model.js";
import type { Affiliation } from "../repositories/affiliation.js";
import type { Repository } from "../repositories/model.js";
import type { TranscriptApp, TranscriptFile, TranscriptMeta, DiscoverySkip } from "./discovery/index.js";
import type { Extent } from "./extent.js";
import type { SyncSkip } from "./model.js";
import type { Reservation, SyncCursor } from "./store.js";

export interface PlannedTranscript extends Reservation {
  app: TranscriptApp;
  cwd: string;
}

export interface PlannedGroup {
  repository: Repository;
  transcripts: PlannedTranscript[];
}

export interface PlanInputs {
  files: readonly TranscriptFile[];
  /** Cursors with every pending part already settled against its run's outcome. */
  cursors: ReadonlyMap<string, SyncCursor>;
  /** Status of each run a cursor still waits on. */
  pendingStatus: ReadonlyMap<string, RunStatus>;
  /** Oldest activity a transcript with no cursor may have and still be taken. */
  windowStart: (app: TranscriptApp) => number;
  footprints: { sessionIds: ReadonlySet<string>; transcriptPaths: ReadonlySet<string> };
  affiliator: { affiliate(cwd: string): Affiliation };
  /** Only this repository's transcripts (`--wiki`); the others are left alone. */
  onlyRepositoryId: string | null;
  /** `privacy.exclude`'s folders: their sessions are skipped, and read no further than their cwd. */
  exclude: readonly string[];
  readMetas: (files: readonly TranscriptFile[], exclude: readonly string[]) => Promise<Array<{ ok: true; meta: TranscriptMeta } | { ok: false; skip: DiscoverySkip }>>;
  /** Where the complete lines end, with fingerprints there and at `at` (see `completeExtent`). */
  extent: (path: string, size: number, at: number) => Promise<Extent>;
}

export interface Plan {
  groups: PlannedGroup[];
  skipped: SyncSkip[];
  unchanged: number;
  eligible: number;
  /**
   * Per app, the oldest activity of a transcript left for a later sync that has no cursor
   * yet (deferred): the window of the next sync must still reach back to it.
   */
  heldBack: Map<TranscriptApp, number>;
}

/** Transcript files are keyed without `.zst`: Codex compresses idle rollouts in place, and the cursor must follow. */
export function pathKeyOf(path: string): string {
  return path.replace(/\.zst$/i, "");
}

/**
 * Decides, for every transcript file, whether a sync takes it and which bytes. Files are
 * judged by stat first; only those that may hold new activity are opened.
 */
export async function planSync(inputs: PlanInputs): Promise<Plan> {
  const skipped: SyncSkip[] = [];
  const toOpen: TranscriptFile[] = [];
  let unchanged = 0;
  for (const file of inputs.files) {
    const cursor = inputs.cursors.get(pathKeyOf(file.path));
    if (cursor && cursor.pendingRunId === null && cursor.seenSize === file.size && cursor.seenMtime === Math.trunc(file.mtimeMs)) {
      unchanged += 1;
    } else if (!cursor && file.mtimeMs < inputs.windowStart(file.app)) {
      skipped.push({ transcriptPath: file.path, reason: "inactive", app: file.app });
    } else {
      toOpen.push(file);
    }
  }
  const metas = await inputs.readMetas(toOpen, inputs.exclude);
  const candidates = new Map<string, { repository: Repository; transcripts: Candidate[] }>();
  for (const [index, result] of metas.entries()) {
    const file = toOpen[index]!;
    if (!result.ok) {
      skipped.push(skipOf(result.skip));
      continue;
    }
    const judged = judge(file, result.meta, inputs);
    if ("reason" in judged) {
      skipped.push(judged);
      continue;
    }
    const group = candidates.get(judged.repository.repositoryId) ?? { repository: judged.repository, transcripts: [] };
    group.transcripts.push(judged);
    candidates.set(judged.repository.repositoryId, group);
  }
  const groups: PlannedGroup[] = [];
  const heldBack = new Map<TranscriptApp, number>();
  for (const { repository, transcripts } of [...candidates.values()].sort((a, b) => a.repository.repositoryId.localeCompare(b.repository.repositoryId))) {
    const planned = await rangesFor(transcripts, inputs, skipped, heldBack);
    if (planned.length === 0) continue;
    planned.sort((a, b) => a.app.localeCompare(b.app) || a.sessionId.localeCompare(b.sessionId) || a.path.localeCompare(b.path));
    groups.push({ repository, transcripts: planned });
  }
  return { groups, skipped, unchanged, eligible: groups.reduce((n, g) => n + g.transcripts.length, 0), heldBack };
}

interface Candidate {
  repository: Repository;
  file: TranscriptFile;
  meta: TranscriptMeta;
  cursor: SyncCursor | null;
}

/**
 * The byte range each candidate adds, most recently active first, up to the per-run
 * limit; the rest keep their cursors (or, without one, hold the window open) for the
 * next sync.
 */
async function rangesFor(candidates: Candidate[], inputs: PlanInputs, skipped: SyncSkip[], heldBack: Map<TranscriptApp, number>): Promise<PlannedTranscript[]> {
  candidates.sort((a, b) => b.meta.lastActivityMs - a.meta.lastActivityMs || a.file.path.localeCompare(b.file.path));
  const planned: PlannedTranscript[] = [];
  for (const { repository, file, meta, cursor } of candidates) {
    const about = { transcriptPath: file.path, app: meta.app, sessionId: meta.sessionId, cwd: meta.cwd };
    if (planned.length >= MAX_TRANSCRIPTS_PER_RUN) {
      skipped.push({ ...about, reason: `deferred: over ${MAX_TRANSCRIPTS_PER_RUN} transcripts for one run; the next sync takes it` });
      if (!cursor) holdBack(heldBack, meta.app, Math.min(file.mtimeMs, meta.lastActivityMs));
      continue;
    }
    let extent: Extent;
    try {
      extent = await inputs.extent(file.path, file.size, cursor?.ingestedOffset ?? 0);
    } catch (error) {
      skipped.push({ ...about, reason: `unreadable: ${error instanceof Error ? error.message : String(error)}` });
      continue;
    }
    const from = resumeAt(cursor, extent);
    if (extent.end <= from) {
      skipped.push({ ...about, reason: "no-new-activity" });
      continue;
    }
    planned.push({
      pathKey: pathKeyOf(file.path),
      app: meta.app,
      path: file.path,
      sessionId: meta.sessionId,
      cwd: meta.cwd,
      repositoryId: repository.repositoryId,
      expected: cursor ? { ingestedOffset: cursor.ingestedOffset, ingestedPrint: cursor.ingestedPrint } : null,
      fromOffset: from,
      fromPrint: from > 0 ? extent.atPrint : null,
      toOffset: extent.end,
      toPrint: extent.endPrint,
      activity: meta.lastActivityMs,
      size: file.size,
      mtime: Math.trunc(file.mtimeMs),
    });
  }
  return planned;
}

/**
 * Where the new part starts: at the cursor when the file still holds, up to there, the
 * bytes the wiki absorbed; from the start when it was rewritten since (it no longer
 * reaches the cursor, the cursor no longer falls on a line boundary, or the bytes before
 * it are not the ones fingerprinted then). A cursor from before fingerprints is trusted
 * whenever it falls on a line boundary.
 */
export function resumeAt(cursor: SyncCursor | null, extent: Extent): number {
  if (!cursor || extent.atPrint === null) return 0;
  if (cursor.ingestedPrint !== null && cursor.ingestedPrint !== extent.atPrint) return 0;
  return cursor.ingestedOffset;
}

function holdBack(heldBack: Map<TranscriptApp, number>, app: TranscriptApp, since: number): void {
  heldBack.set(app, Math.min(since, heldBack.get(app) ?? since));
}

function judge(file: TranscriptFile, meta: TranscriptMeta, inputs: PlanInputs): Candidate | SyncSkip {
  const about = { transcriptPath: file.path, app: meta.app, sessionId: meta.sessionId, cwd: meta.cwd };
  const { footprints } = inputs;
  if (meta.ownRun || footprints.sessionIds.has(meta.sessionId) || footprints.transcriptPaths.has(file.path) || footprints.transcriptPaths.has(pathKeyOf(file.path))) {
    return { ...about, reason: "own-run" };
  }
  // The tail may move a Claude session's cwd (a `relocated` line) into an excluded folder.
  if (excludingFolder(meta.cwd, inputs.exclude) !== null) return { ...about, reason: EXCLUDED_REASON };
  const affiliation = inputs.affiliator.affiliate(meta.cwd);
  if (!affiliation.ok) return { ...about, reason: affiliation.reason };
  if (inputs.onlyRepositoryId !== null && affiliation.repository.repositoryId !== inputs.onlyRepositoryId) {
    return { ...about, reason: "other-wiki" };
  }
  const cursor = inputs.cursors.get(pathKeyOf(file.path)) ?? null;
  if (cursor?.pendingRunId) {
    return { ...about, reason: `in-flight: ${cursor.pendingRunId} (${inputs.pendingStatus.get(cursor.pendingRunId)})` };
  }
  if (!cursor && meta.lastActivityMs < inputs.windowStart(meta.app)) return { ...about, reason: "inactive" };
  return { repository: affiliation.repository, file, meta, cursor };
}

/**
 * One run reads at most this many transcripts: beyond it each would get too small a share
 * of the prompt to be worth reading.
 */
export const MAX_TRANSCRIPTS_PER_RUN = 25;

function skipOf(skip: DiscoverySkip): SyncSkip {
  return {
    transcriptPath: skip.path,
    reason: skip.reason,
    app: skip.app,
    ...(skip.sessionId !== undefined ? { sessionId: skip.sessionId } : {}),
    ...(skip.cwd !== undefined ? { cwd: skip.cwd } : {}),
  };
}
