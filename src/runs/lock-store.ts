import type { Db } from "../core/sqlite.js";

export interface LockOwner {
  token: string;
  pid: number;
  startTime: string;
}

export interface HeldLock extends LockOwner {
  acquiredAt: number;
  heartbeatAt: number;
}

export type IdleHandoff = "released" | "work_available" | "ownership_lost";

/** Liveness of a lock holder: the same process (pid and start time) is still running. */
export type OwnerProbe = (owner: LockOwner) => boolean;

interface LockRow {
  token: string;
  pid: number;
  start_time: string;
  acquired_at: number;
  heartbeat_at: number;
}

/** Owns the single-row `worker_lock` table: at most one worker drains the queue. */
export class LockStore {
  constructor(private readonly db: Db) {}

  readWorkerLock(): HeldLock | null {
    const row = this.db.prepare("SELECT * FROM worker_lock WHERE id = 1").get() as LockRow | undefined;
    return row
      ? { token: row.token, pid: row.pid, startTime: row.start_time, acquiredAt: row.acquired_at, heartbeatAt: row.heartbeat_at }
      : null;
  }

  /** The token of the worker holding the lock, or null when nobody holds it. */
  heldToken(): string | null {
    const token = this.db.prepare("SELECT token FROM worker_lock WHERE id = 1").pluck().get() as string | undefined;
    return token ?? null;
  }

  /**
   * Check-and-claim in one BEGIN IMMEDIATE. A lock is taken over at once when its owner
   * is gone or is another process under a reused pid, or when its heartbeat is older
   * than `staleAfterMs` (safe because claims check the token and new workers adopt
   * live executors first).
   */
  acquireWorkerLock(owner: LockOwner, now: number, staleAfterMs: number, isAlive: OwnerProbe): boolean {
    return this.db
      .transaction((): boolean => {
        const held = this.readWorkerLock();
        if (held && held.token !== owner.token && isAlive(held) && now - held.heartbeatAt < staleAfterMs) return false;
        this.db
          .prepare(
            `INSERT INTO worker_lock (id, token, pid, start_time, acquired_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?)
             ON CONFLICT(id) DO UPDATE SET token = excluded.token, pid = excluded.pid, start_time = excluded.start_time,
               acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
          )
          .run(owner.token, owner.pid, owner.startTime, now, now);
        return true;
      })
      .immediate();
  }

  /** Renews the heartbeat; false means the lock is no longer ours. */
  heartbeat(owner: LockOwner, now: number): boolean {
    return this.db.prepare("UPDATE worker_lock SET heartbeat_at = ? WHERE id = 1 AND token = ?").run(now, owner.token).changes > 0;
  }

  /**
   * The atomic idle handoff: in the same write transaction class as enqueue, either
   * a queued run is visible (keep draining) or the lock is released.
   */
  releaseWorkerIfIdle(owner: LockOwner): IdleHandoff {
    return this.db
      .transaction((): IdleHandoff => {
        const held = this.readWorkerLock();
        if (!held || held.token !== owner.token) return "ownership_lost";
        const queued = this.db.prepare("SELECT 1 FROM runs WHERE status = 'queued' ORDER BY seq LIMIT 1").get();
        if (queued) return "work_available";
        this.db.prepare("DELETE FROM worker_lock WHERE id = 1").run();
        return "released";
      })
      .immediate();
  }

  /** Plain release for a bounded drain or a worker that is stopping; owner-checked. */
  releaseWorker(owner: LockOwner): boolean {
    return this.db.prepare("DELETE FROM worker_lock WHERE id = 1 AND token = ?").run(owner.token).changes > 0;
  }

  /** A live holder with a fresh heartbeat exists (used to decide whether to wake a worker). */
  hasLiveWorker(now: number, staleAfterMs: number, isAlive: OwnerProbe): boolean {
    const held = this.readWorkerLock();
    return held !== null && isAlive(held) && now - held.heartbeatAt < staleAfterMs;
  }
}
