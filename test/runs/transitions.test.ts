import { describe, expect, test } from "vitest";
import type { RunRecord, RunStatus } from "../../src/runs/model.js";
import {
  decideCancelRequest,
  decideClaim,
  decideFailUnclaimed,
  decideFinish,
  decideFinishCancellation,
  finishChange,
  type Decision,
} from "../../src/runs/transitions.js";

/** A run row as the store would read it; no SQLite involved. */
function run(status: RunStatus, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    runId: "garden-20260101000000-00000001",
    seq: 1,
    repositoryId: "repo_0123456789abcdef",
    repositoryName: "demo",
    repositoryRoot: "/tmp/demo",
    kind: "garden",
    status,
    title: null,
    summary: null,
    error: null,
    failureCategory: null,
    createdAt: 1_000,
    updatedAt: 1_000,
    startedAt: status === "queued" ? null : 2_000,
    finishedAt: status === "queued" || status === "running" ? null : 3_000,
    cancelRequestedAt: null,
    execution:
      status === "queued"
        ? null
        : { executionId: "exec-1", pid: 4242, startTime: "123456", pgid: 4242, workerToken: "worker-a" },
    harness: null,
    pageChanges: null,
    changes: null,
    wikiCommit: null,
    stalePages: null,
    secretFindings: null,
    logPath: "/tmp/run.log",
    retryOf: null,
    claimSeq: status === "queued" ? null : 1,
    specVersion: 1,
    specJson: "{}",
    ...extra,
  };
}

const TERMINAL: RunStatus[] = ["done", "failed", "cancelled"];

function refusal(decision: Decision): string | null {
  return decision.ok ? null : decision.refusal;
}

function allowed(decision: Decision) {
  if (!decision.ok) throw new Error(`refused: ${decision.refusal}`);
  return decision.change;
}

describe("the terminal write", () => {
  test("a failure keeps its error and category, and gets internal_error when it has none", () => {
    expect(finishChange(run("running"), 5_000, { status: "failed", error: "boom", category: "timeout" })).toEqual({
      kind: "finish",
      fields: { status: "failed", summary: null, error: "boom", failureCategory: "timeout", finishedAt: 5_000, updatedAt: 5_000 },
      events: [{ kind: "status", message: "failed" }],
    });
    expect(finishChange(run("running"), 5_000, { status: "failed" }).fields).toMatchObject({
      error: null,
      failureCategory: "internal_error",
    });
  });

  test("only a failure keeps an error or a category", () => {
    for (const status of ["done", "cancelled"] as const) {
      expect(finishChange(run("running"), 5_000, { status, error: "ignored", category: "timeout" }).fields).toMatchObject({
        status,
        error: null,
        failureCategory: null,
      });
    }
  });

  test("a missing summary keeps the run's summary; a given one replaces it", () => {
    const current = run("running", { summary: "earlier" });
    expect(finishChange(current, 5_000, { status: "done" }).fields.summary).toBe("earlier");
    expect(finishChange(current, 5_000, { status: "done", summary: null }).fields.summary).toBe("earlier");
    expect(finishChange(current, 5_000, { status: "done", summary: "now" }).fields.summary).toBe("now");
  });

  test("an error event comes just before the status event", () => {
    expect(finishChange(run("running"), 5_000, { status: "failed", errorEvent: "agent said no" }).events).toEqual([
      { kind: "error", message: "agent said no" },
      { kind: "status", message: "failed" },
    ]);
  });
});

describe("finishing a run", () => {
  test("queued and running runs finish", () => {
    for (const status of ["queued", "running"] as const) {
      expect(allowed(decideFinish(run(status), 5_000, { status: "done", summary: "ok" }))).toMatchObject({
        kind: "finish",
        fields: { status: "done", summary: "ok", finishedAt: 5_000 },
      });
    }
  });

  test("the first terminal write wins", () => {
    for (const status of TERMINAL) expect(refusal(decideFinish(run(status), 5_000, { status: "failed" }))).toBe("terminal");
  });

  test("bound to an execution, only that execution's run finishes", () => {
    expect(allowed(decideFinish(run("running"), 5_000, { status: "failed" }, "exec-1")).kind).toBe("finish");
    expect(refusal(decideFinish(run("running"), 5_000, { status: "failed" }, "exec-2"))).toBe("other_execution");
    expect(refusal(decideFinish(run("queued"), 5_000, { status: "failed" }, "exec-1"))).toBe("other_execution");
    expect(refusal(decideFinish(run("done"), 5_000, { status: "failed" }, "exec-1"))).toBe("terminal");
  });
});

describe("failing a run that was never claimed", () => {
  const lock = { heldToken: "worker-a", workerToken: "worker-a" };

  test("a queued run fails as internal_error for the worker holding the lock", () => {
    expect(allowed(decideFailUnclaimed(run("queued"), 5_000, lock, "spawn failed"))).toEqual({
      kind: "finish",
      fields: {
        status: "failed",
        summary: null,
        error: "spawn failed",
        failureCategory: "internal_error",
        finishedAt: 5_000,
        updatedAt: 5_000,
      },
      events: [
        { kind: "error", message: "spawn failed" },
        { kind: "status", message: "failed" },
      ],
    });
  });

  test("a worker that lost the lock, or finds no lock, changes nothing", () => {
    expect(refusal(decideFailUnclaimed(run("queued"), 5_000, { heldToken: "worker-b", workerToken: "worker-a" }, "x"))).toBe(
      "lock_lost",
    );
    expect(refusal(decideFailUnclaimed(run("queued"), 5_000, { heldToken: null, workerToken: "worker-a" }, "x"))).toBe("lock_lost");
  });

  test("a run that is no longer queued is left alone", () => {
    for (const status of ["running", ...TERMINAL] as RunStatus[]) {
      expect(refusal(decideFailUnclaimed(run(status), 5_000, lock, "x"))).toBe("not_queued");
    }
  });
});

describe("requesting cancellation", () => {
  test("a queued run is cancelled at once", () => {
    expect(allowed(decideCancelRequest(run("queued"), 5_000))).toEqual({
      kind: "finish",
      fields: { status: "cancelled", summary: null, error: null, failureCategory: null, finishedAt: 5_000, updatedAt: 5_000 },
      events: [{ kind: "status", message: "cancelled" }],
    });
  });

  test("a running run records the intent once", () => {
    expect(allowed(decideCancelRequest(run("running"), 5_000))).toEqual({
      kind: "cancel_requested",
      fields: { cancelRequestedAt: 5_000, updatedAt: 5_000 },
      events: [{ kind: "message", message: "cancellation requested" }],
    });
    expect(refusal(decideCancelRequest(run("running", { cancelRequestedAt: 4_000 }), 5_000))).toBe("already_requested");
  });

  test("a finished run changes nothing", () => {
    for (const status of TERMINAL) expect(refusal(decideCancelRequest(run(status), 5_000))).toBe("terminal");
  });
});

describe("finishing a cancellation", () => {
  const requested = (status: RunStatus) => run(status, { cancelRequestedAt: 4_000 });

  test("a running run of the same execution with the intent recorded becomes cancelled", () => {
    expect(allowed(decideFinishCancellation(requested("running"), 5_000, "exec-1"))).toMatchObject({
      kind: "finish",
      fields: { status: "cancelled", finishedAt: 5_000 },
    });
  });

  test("another execution, or no intent, changes nothing", () => {
    expect(refusal(decideFinishCancellation(requested("running"), 5_000, "exec-2"))).toBe("other_execution");
    expect(refusal(decideFinishCancellation(run("running"), 5_000, "exec-1"))).toBe("not_requested");
  });

  test("a running row without a recorded executor belongs to no execution", () => {
    expect(refusal(decideFinishCancellation(run("running", { cancelRequestedAt: 4_000, execution: null }), 5_000, "exec-1"))).toBe("other_execution");
  });

  test("only a running run can finish its cancellation", () => {
    for (const status of ["queued", ...TERMINAL] as RunStatus[]) {
      expect(refusal(decideFinishCancellation(requested(status), 5_000, "exec-1"))).toBe("not_running");
    }
  });
});

describe("claiming a run", () => {
  test("a queued run is claimed by its worker while that worker holds the lock", () => {
    expect(decideClaim("queued", { heldToken: "worker-a", workerToken: "worker-a" })).toBe("claimed");
  });

  test("an executor started without a worker claims whatever the lock says", () => {
    expect(decideClaim("queued", { heldToken: null, workerToken: null })).toBe("claimed");
    expect(decideClaim("queued", { heldToken: "worker-b", workerToken: null })).toBe("claimed");
  });

  test("a worker that lost the lock, or finds none, cannot claim", () => {
    expect(decideClaim("queued", { heldToken: "worker-b", workerToken: "worker-a" })).toBe("lock_lost");
    expect(decideClaim("queued", { heldToken: null, workerToken: "worker-a" })).toBe("lock_lost");
  });

  test("only a queued run can be claimed, whatever the lock", () => {
    for (const status of ["running", ...TERMINAL, undefined] as (RunStatus | undefined)[]) {
      expect(decideClaim(status, { heldToken: "worker-a", workerToken: "worker-a" })).toBe("not_queued");
    }
  });
});
