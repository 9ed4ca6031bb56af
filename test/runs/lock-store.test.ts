import { afterEach, describe, expect, test } from "vitest";
import { enqueue, ledger, type Ledger } from "./helpers.js";

let l: Ledger;
afterEach(() => l?.close());

const a = { token: "a", pid: 100, startTime: "1" };
const b = { token: "b", pid: 200, startTime: "2" };

describe("worker lock", () => {
  test("a live holder with a fresh heartbeat keeps the lock", () => {
    l = ledger();
    expect(l.locks.acquireWorkerLock(a, 1_000, 30_000, () => true)).toBe(true);
    expect(l.locks.acquireWorkerLock(b, 2_000, 30_000, () => true)).toBe(false);
    expect(l.locks.readWorkerLock()?.token).toBe("a");
  });

  test("a dead holder's lock is taken at once", () => {
    l = ledger();
    l.locks.acquireWorkerLock(a, 1_000, 30_000, () => true);
    expect(l.locks.acquireWorkerLock(b, 1_001, 30_000, (o) => o.token !== "a")).toBe(true);
    expect(l.locks.readWorkerLock()?.token).toBe("b");
  });

  test("a live holder whose heartbeat went stale loses the lock, and learns it on its next heartbeat", () => {
    l = ledger();
    l.locks.acquireWorkerLock(a, 1_000, 30_000, () => true);
    expect(l.locks.heartbeat(a, 20_000)).toBe(true);
    expect(l.locks.acquireWorkerLock(b, 49_000, 30_000, () => true)).toBe(false);
    expect(l.locks.acquireWorkerLock(b, 51_000, 30_000, () => true)).toBe(true);
    expect(l.locks.heartbeat(a, 52_000)).toBe(false);
  });

  test("a heartbeat exactly stale_after old is stale", () => {
    l = ledger();
    l.locks.acquireWorkerLock(a, 1_000, 30_000, () => true);
    expect(l.locks.acquireWorkerLock(b, 30_999, 30_000, () => true)).toBe(false);
    expect(l.locks.acquireWorkerLock(b, 31_000, 30_000, () => true)).toBe(true);
    expect(l.locks.readWorkerLock()).toEqual({ ...b, acquiredAt: 31_000, heartbeatAt: 31_000 });
  });

  test("idle handoff releases the lock when nothing is queued", () => {
    l = ledger();
    l.locks.acquireWorkerLock(a, 1_000, 30_000, () => true);
    expect(l.locks.releaseWorkerIfIdle(a)).toBe("released");
    expect(l.locks.readWorkerLock()).toBeNull();
    expect(l.locks.acquireWorkerLock(b, 2_000, 30_000, () => true)).toBe(true);
  });

  test("idle handoff keeps the lock and reports work when a run is queued", () => {
    l = ledger();
    l.locks.acquireWorkerLock(a, 1_000, 30_000, () => true);
    enqueue(l);
    expect(l.locks.releaseWorkerIfIdle(a)).toBe("work_available");
    expect(l.locks.acquireWorkerLock(b, 2_000, 30_000, () => true)).toBe(false);
  });

  test("idle handoff by a worker that lost the lock reports ownership_lost and deletes nothing", () => {
    l = ledger();
    l.locks.acquireWorkerLock(b, 1_000, 30_000, () => true);
    expect(l.locks.releaseWorkerIfIdle(a)).toBe("ownership_lost");
    expect(l.locks.readWorkerLock()?.token).toBe("b");
    expect(l.locks.releaseWorker(a)).toBe(false);
    expect(l.locks.releaseWorker(b)).toBe(true);
  });

  test("only a live holder whose heartbeat is younger than stale_after counts as a live worker", () => {
    l = ledger();
    expect(l.locks.hasLiveWorker(1_000, 30_000, () => true)).toBe(false);
    l.locks.acquireWorkerLock(a, 1_000, 30_000, () => true);
    expect(l.locks.hasLiveWorker(30_999, 30_000, () => true)).toBe(true);
    expect(l.locks.hasLiveWorker(31_000, 30_000, () => true)).toBe(false);
    // A SIGKILLed worker's heartbeat is still fresh: its death alone must not block wake-ups.
    const probed: string[] = [];
    expect(l.locks.hasLiveWorker(1_001, 30_000, (owner) => (probed.push(owner.token), false))).toBe(false);
    expect(probed).toEqual(["a"]);
  });
});
