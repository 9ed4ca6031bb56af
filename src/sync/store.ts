import type { Db } from "../core/sqlite.js";
import type { RunStatus } from "../runs/model.js";

export interface SyncCursor {
  pathKey: string;
  app: string;
  path: string;
  sessionId: string;
  repositoryId: string;
  ingestedOffset: number;
  ingestedActivity: number | null;
  /** Fingerprint of the bytes just before `ingestedOffset` (null at 0, and on cursors older than fingerprints). */
  ingestedPrint: string | null;
  /** The size the last sync saw; -1 when the file must be opened next time whatever its stat says. */
  seenSize: number;
  seenMtime: number;
  pendingRunId: string | null;
  pendingOffset: number | null;
  pendingActivity: number | null;
  pendingPrint: string | null;
}

/** What one transcript of a queued run will absorb, and what its cursor looked like when planned. */
export interface Reservation {
  pathKey: string;
  app: string;
  path: string;
  sessionId: string;
  repositoryId: string;
  /** The cursor as the plan read it (null: none); the reservation stands only if it is unchanged. */
  expected: { ingestedOffset: number; ingestedPrint: string | null } | null;
  fromOffset: number;
  /** Fingerprint of the bytes just before `fromOffset` (null at 0). */
  fromPrint: string | null;
  toOffset: number;
  /** Fingerprint of the bytes just before `toOffset`. */
  toPrint: string | null;
  activity: number;
  size: number;
  mtime: number;
}

interface CursorRow {
  path_key: string;
  app: string;
  path: string;
  session_id: string;
  repository_id: string;
  ingested_offset: number;
  ingested_activity: number | null;
  ingested_print: string | null;
  seen_size: number;
  seen_mtime: number;
  pending_run_id: string | null;
  pending_offset: number | null;
  pending_activity: number | null;
  pending_print: string | null;
}

const toCursor = (row: CursorRow): SyncCursor => ({
  pathKey: row.path_key,
  app: row.app,
  path: row.path,
  sessionId: row.session_id,
  repositoryId: row.repository_id,
  ingestedOffset: row.ingested_offset,
  ingestedActivity: row.ingested_activity,
  ingestedPrint: row.ingested_print,
  seenSize: row.seen_size,
  seenMtime: row.seen_mtime,
  pendingRunId: row.pending_run_id,
  pendingOffset: row.pending_offset,
  pendingActivity: row.pending_activity,
  pendingPrint: row.pending_print,
});

/** A transcript's part a queued run already holds, as its cursor records it. */
export interface PendingPart {
  pathKey: string;
  app: string;
  path: string;
  sessionId: string;
  fromOffset: number;
  toOffset: number;
}

/**
 * Takes `kept` into the run `runId` (which holds `held`) inside the reserving transaction,
 * and says whether it did: it must refuse a run that is no longer queued.
 */
export type Joiner = (runId: string, held: readonly PendingPart[], kept: readonly Reservation[]) => boolean;

/** How a run a cursor waited on ended; `lost` when the ledger no longer holds it. */
export interface RunOutcome {
  runId: string;
  status: RunStatus | "lost";
}

/**
 * A cursor with its pending part settled: absorbed (it becomes the ingested part) when
 * the run ended `done`; otherwise dropped, so the same bytes are offered again, and the
 * seen size cleared so that even an unchanged file is opened next time. One rule, used
 * both to write settlements and to preview them (`sync status`).
 */
export function settledCursor(cursor: SyncCursor, status: RunOutcome["status"]): SyncCursor {
  const cleared = { ...cursor, pendingRunId: null, pendingOffset: null, pendingActivity: null, pendingPrint: null };
  if (status !== "done") return { ...cleared, seenSize: -1 };
  return { ...cleared, ingestedOffset: cursor.pendingOffset ?? cursor.ingestedOffset, ingestedActivity: cursor.pendingActivity, ingestedPrint: cursor.pendingPrint };
}

/** Owns `sync_cursors` and `sync_scans`. */
export class SyncStore {
  constructor(private readonly db: Db) {}

  cursors(): Map<string, SyncCursor> {
    const rows = this.db.prepare("SELECT * FROM sync_cursors").all() as CursorRow[];
    return new Map(rows.map((row) => [row.path_key, toCursor(row)]));
  }

  /** When each app's transcripts were last scanned whole (no --wiki filter, nothing failed to queue). */
  scans(): Map<string, number> {
    const rows = this.db.prepare("SELECT app, scanned_at FROM sync_scans").all() as { app: string; scanned_at: number }[];
    return new Map(rows.map((row) => [row.app, row.scanned_at]));
  }

  /**
   * The only way a run for transcripts is queued: inside one BEGIN IMMEDIATE, keep the
   * reservations whose cursor is still what the plan read, queue the run for them
   * (`queue`, which inserts into the run ledger in the same transaction), and mark them
   * pending on that run. A second sync racing this one finds the cursors changed and
   * queues nothing for them: two syncs never queue the same bytes twice. With `join`, a
   * run already queued for the repository may take them instead of a new one (see
   * `joinPending`): a burst of sessions ending together becomes one run.
   */
  reserveAndQueue(
    reservations: readonly Reservation[],
    now: number,
    queue: (kept: Reservation[]) => string,
    join?: Joiner,
  ): { runId: string; kept: Reservation[]; joined: boolean } | null {
    return this.db
      .transaction(() => {
        const kept = reservations.filter((r) => this.unchanged(r));
        if (kept.length === 0) return null;
        const joinedRun = join ? this.joinPending(kept, join) : null;
        const runId = joinedRun ?? queue(kept);
        const upsert = this.db.prepare(
          `INSERT INTO sync_cursors (path_key, app, path, session_id, repository_id, ingested_offset, ingested_activity, ingested_print,
             seen_size, seen_mtime, pending_run_id, pending_offset, pending_activity, pending_print, updated_at)
           VALUES (@pathKey, @app, @path, @sessionId, @repositoryId, @fromOffset, NULL, @fromPrint,
             @size, @mtime, @runId, @toOffset, @activity, @toPrint, @now)
           ON CONFLICT(path_key) DO UPDATE SET
             app = excluded.app, path = excluded.path, session_id = excluded.session_id, repository_id = excluded.repository_id,
             ingested_offset = @fromOffset, ingested_print = @fromPrint, seen_size = @size, seen_mtime = @mtime,
             pending_run_id = @runId, pending_offset = @toOffset, pending_activity = @activity, pending_print = @toPrint, updated_at = @now`,
        );
        for (const r of kept) {
          upsert.run({
            pathKey: r.pathKey, app: r.app, path: r.path, sessionId: r.sessionId, repositoryId: r.repositoryId,
            fromOffset: r.fromOffset, fromPrint: r.fromPrint, toOffset: r.toOffset, toPrint: r.toPrint,
            activity: r.activity, size: r.size, mtime: r.mtime, runId, now,
          });
        }
        return { runId, kept, joined: joinedRun !== null };
      })
      .immediate();
  }

  /**
   * Offers the kept reservations to each run the repository's cursors wait on, oldest
   * first, with the parts it already holds; the first run `join` takes them into (it
   * does so only while the run is still queued) is the one they are reserved for.
   */
  private joinPending(kept: readonly Reservation[], join: Joiner): string | null {
    const rows = this.db
      .prepare(
        `SELECT path_key, app, path, session_id, ingested_offset, pending_offset, pending_run_id FROM sync_cursors
         WHERE repository_id = ? AND pending_run_id IS NOT NULL ORDER BY updated_at, path_key`,
      )
      .all(kept[0]!.repositoryId) as { path_key: string; app: string; path: string; session_id: string; ingested_offset: number; pending_offset: number | null; pending_run_id: string }[];
    const parts = new Map<string, PendingPart[]>();
    for (const row of rows) {
      const list = parts.get(row.pending_run_id) ?? [];
      list.push({ pathKey: row.path_key, app: row.app, path: row.path, sessionId: row.session_id, fromOffset: row.ingested_offset, toOffset: row.pending_offset ?? row.ingested_offset });
      parts.set(row.pending_run_id, list);
    }
    for (const [runId, held] of parts) if (join(runId, held, kept)) return runId;
    return null;
  }

  /**
   * Settles every cursor waiting on one of these runs (see `settledCursor`). Sync calls
   * it for runs that have ended; `jobs prune` calls it, inside its own transaction, for
   * the runs it is about to delete, so no cursor is left pointing at a run that is gone.
   */
  settleRuns(outcomes: readonly RunOutcome[], now: number): void {
    const waiting = this.db.prepare("SELECT * FROM sync_cursors WHERE pending_run_id = ?");
    const write = this.db.prepare(
      `UPDATE sync_cursors SET ingested_offset = @ingestedOffset, ingested_activity = @ingestedActivity, ingested_print = @ingestedPrint,
         seen_size = @seenSize, pending_run_id = NULL, pending_offset = NULL, pending_activity = NULL, pending_print = NULL, updated_at = @now
       WHERE path_key = @pathKey`,
    );
    this.db.transaction(() => {
      for (const { runId, status } of outcomes) {
        for (const row of waiting.all(runId) as CursorRow[]) {
          const settled = settledCursor(toCursor(row), status);
          write.run({ pathKey: settled.pathKey, ingestedOffset: settled.ingestedOffset, ingestedActivity: settled.ingestedActivity, ingestedPrint: settled.ingestedPrint, seenSize: settled.seenSize, now });
        }
      }
    }).immediate();
  }

  recordScan(app: string, at: number): void {
    this.db
      .prepare("INSERT INTO sync_scans (app, scanned_at) VALUES (?, ?) ON CONFLICT(app) DO UPDATE SET scanned_at = excluded.scanned_at")
      .run(app, at);
  }

  /** The cursor is what the plan read: absent as it was, or at the same ingested bytes with no run pending. */
  private unchanged(r: Reservation): boolean {
    const row = this.db
      .prepare("SELECT ingested_offset, ingested_print, pending_run_id FROM sync_cursors WHERE path_key = ?")
      .get(r.pathKey) as { ingested_offset: number; ingested_print: string | null; pending_run_id: string | null } | undefined;
    if (!row || !r.expected) return !row && !r.expected;
    return row.pending_run_id === null && row.ingested_offset === r.expected.ingestedOffset && row.ingested_print === r.expected.ingestedPrint;
  }
}
