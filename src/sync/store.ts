import type { Db } from "../core/sqlite.js";

export interface SyncCursor {
  pathKey: string;
  app: string;
  path: string;
  sessionId: string;
  repositoryId: string;
  ingestedOffset: number;
  ingestedActivity: number | null;
  seenSize: number;
  seenMtime: number;
  pendingRunId: string | null;
  pendingOffset: number | null;
  pendingActivity: number | null;
}

/** What one transcript of a queued run will absorb, and what its cursor looked like when planned. */
export interface Reservation {
  pathKey: string;
  app: string;
  path: string;
  sessionId: string;
  repositoryId: string;
  /** The cursor as the plan read it (null: none); the reservation stands only if it is unchanged. */
  expected: { ingestedOffset: number; pendingRunId: string | null } | null;
  fromOffset: number;
  toOffset: number;
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
  seen_size: number;
  seen_mtime: number;
  pending_run_id: string | null;
  pending_offset: number | null;
  pending_activity: number | null;
}

const toCursor = (row: CursorRow): SyncCursor => ({
  pathKey: row.path_key,
  app: row.app,
  path: row.path,
  sessionId: row.session_id,
  repositoryId: row.repository_id,
  ingestedOffset: row.ingested_offset,
  ingestedActivity: row.ingested_activity,
  seenSize: row.seen_size,
  seenMtime: row.seen_mtime,
  pendingRunId: row.pending_run_id,
  pendingOffset: row.pending_offset,
  pendingActivity: row.pending_activity,
});

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
   * queues nothing for them: two syncs never queue the same bytes twice.
   */
  reserveAndQueue(reservations: readonly Reservation[], now: number, queue: (kept: Reservation[]) => string): { runId: string; kept: Reservation[] } | null {
    return this.db
      .transaction(() => {
        const kept = reservations.filter((r) => this.unchanged(r));
        if (kept.length === 0) return null;
        const runId = queue(kept);
        const upsert = this.db.prepare(
          `INSERT INTO sync_cursors (path_key, app, path, session_id, repository_id, ingested_offset, ingested_activity,
             seen_size, seen_mtime, pending_run_id, pending_offset, pending_activity, updated_at)
           VALUES (@pathKey, @app, @path, @sessionId, @repositoryId, @fromOffset, NULL, @size, @mtime, @runId, @toOffset, @activity, @now)
           ON CONFLICT(path_key) DO UPDATE SET
             app = excluded.app, path = excluded.path, session_id = excluded.session_id, repository_id = excluded.repository_id,
             ingested_offset = @fromOffset, seen_size = @size, seen_mtime = @mtime,
             pending_run_id = @runId, pending_offset = @toOffset, pending_activity = @activity, updated_at = @now`,
        );
        for (const r of kept) {
          upsert.run({
            pathKey: r.pathKey, app: r.app, path: r.path, sessionId: r.sessionId, repositoryId: r.repositoryId,
            fromOffset: r.fromOffset, toOffset: r.toOffset, activity: r.activity, size: r.size, mtime: r.mtime, runId, now,
          });
        }
        return { runId, kept };
      })
      .immediate();
  }

  /** The pending part was absorbed (its run ended `done`): it becomes the ingested part. */
  settleAbsorbed(pathKey: string, runId: string, now: number): void {
    this.db
      .prepare(
        `UPDATE sync_cursors SET ingested_offset = pending_offset, ingested_activity = pending_activity,
           pending_run_id = NULL, pending_offset = NULL, pending_activity = NULL, updated_at = ?
         WHERE path_key = ? AND pending_run_id = ?`,
      )
      .run(now, pathKey, runId);
  }

  /**
   * The pending run failed or was cancelled: forget it, so the same bytes are offered
   * again (the seen size is cleared so the unchanged file is still opened next time).
   */
  settleFailed(pathKey: string, runId: string, now: number): void {
    this.db
      .prepare(
        `UPDATE sync_cursors SET pending_run_id = NULL, pending_offset = NULL, pending_activity = NULL, seen_size = -1, updated_at = ?
         WHERE path_key = ? AND pending_run_id = ?`,
      )
      .run(now, pathKey, runId);
  }

  recordScan(app: string, at: number): void {
    this.db
      .prepare("INSERT INTO sync_scans (app, scanned_at) VALUES (?, ?) ON CONFLICT(app) DO UPDATE SET scanned_at = excluded.scanned_at")
      .run(app, at);
  }

  private unchanged(r: Reservation): boolean {
    const row = this.db
      .prepare("SELECT ingested_offset, pending_run_id FROM sync_cursors WHERE path_key = ?")
      .get(r.pathKey) as { ingested_offset: number; pending_run_id: string | null } | undefined;
    if (!row || !r.expected) return !row && !r.expected;
    return row.ingested_offset === r.expected.ingestedOffset && row.pending_run_id === r.expected.pendingRunId;
  }
}
