import { afterEach, describe, expect, test } from "vitest";
import { enqueue, ledger, spec, type Ledger } from "./helpers.js";
import { isProductError } from "../../src/core/errors.js";
import type { RunKind } from "../../src/runs/model.js";

/** The ledger's reads and record verbs, over a real migrated SQLite file. */

let l: Ledger;
afterEach(() => l?.close());

let counter = 0;
/** A queued run of `kind` in repository `repo` (repo_a unless said otherwise). */
function queue(kind: RunKind = "garden", repo = "repo_a", now = 1_000): string {
  const runId = `${kind}-${repo}-${counter++}`;
  l.runs.enqueueRun({ runId, repositoryId: repo, repositoryName: repo, repositoryRoot: `/tmp/${repo}`, kind, title: null, spec: spec(kind), logPath: `/tmp/${runId}.log`, now });
  return runId;
}

/** Claims a queued run for execution `executionId` (no worker lock involved). */
function claim(runId: string, executionId = `x-${runId}`, now = 2_000): void {
  expect(l.runs.claimRun(runId, { executionId, pid: 4242, startTime: "123", pgid: 4243, workerToken: null }, now)).toBe("claimed");
}

describe("a run as it is read", () => {
  test("a queued run has no execution, harness, changes or commit yet", () => {
    l = ledger();
    const record = l.runs.requireRun(queue());
    expect(record).toMatchObject({ execution: null, harness: null, pageChanges: null, changes: null, wikiCommit: null, retryOf: null, claimSeq: null, startedAt: null });
  });

  test("a claimed run has its executor's identity", () => {
    l = ledger();
    const runId = queue();
    claim(runId, "exec-1");
    expect(l.runs.requireRun(runId).execution).toEqual({ executionId: "exec-1", pid: 4242, startTime: "123", pgid: 4243, workerToken: null });
  });

  test("a row with part of its executor missing has no execution at all", () => {
    l = ledger();
    for (const column of ["execution_id", "executor_pid", "executor_start_time"]) {
      const runId = queue();
      claim(runId);
      l.db.prepare(`UPDATE runs SET ${column} = NULL WHERE run_id = ?`).run(runId);
      expect(l.runs.requireRun(runId).execution, column).toBeNull();
    }
    const runId = queue();
    claim(runId);
    l.db.prepare("UPDATE runs SET executor_pgid = NULL WHERE run_id = ?").run(runId);
    expect(l.runs.requireRun(runId).execution?.pgid).toBe(4242);
  });

  test("what a run records about its harness, its pages, its changes and its commit reads back", () => {
    l = ledger();
    const runId = queue();
    l.runs.recordHarnessSession(runId, { kind: "claude", sessionId: "s-1", transcriptPath: "/t/s-1.jsonl" });
    l.runs.recordPageChanges(runId, { created: ["a"], updated: ["b"], deleted: [] });
    l.runs.recordChanges(runId, { commits: [{ sha: "abc", subject: "x" }], outside: [{ path: "src/x.ts", change: "modified" }], notes: ["n"] });
    l.runs.recordWikiCommit(runId, { sha: "def", subject: "almanac: x", files: 2 });
    expect(l.runs.requireRun(runId)).toMatchObject({
      harness: { kind: "claude", sessionId: "s-1", transcriptPath: "/t/s-1.jsonl" },
      pageChanges: { created: ["a"], updated: ["b"], deleted: [] },
      changes: { commits: [{ sha: "abc", subject: "x" }], outside: [{ path: "src/x.ts", change: "modified" }], notes: ["n"] },
      wikiCommit: { sha: "def", subject: "almanac: x", files: 2 },
    });
  });

  test("a retry names the run it retries", () => {
    l = ledger();
    const runId = "garden-retry";
    l.runs.enqueueRun({ runId, repositoryId: "repo_a", repositoryName: "a", repositoryRoot: "/a", kind: "garden", title: "T", spec: spec("garden"), logPath: "/l", retryOf: "garden-first", now: 1 });
    expect(l.runs.requireRun(runId)).toMatchObject({ retryOf: "garden-first", title: "T" });
  });

  test("a run that does not exist is not found, by its id", () => {
    l = ledger();
    expect(l.runs.getRun("nope")).toBeUndefined();
    let error: unknown;
    try {
      l.runs.requireRun("nope");
    } catch (caught) {
      error = caught;
    }
    expect(isProductError(error) && [error.code, error.message]).toEqual(["not_found", "run not found: nope"]);
  });
});

describe("listings and counts", () => {
  test("runs list newest first, filtered by repository, statuses and kinds, and limited", () => {
    l = ledger();
    const a1 = queue("garden", "repo_a");
    const a2 = queue("ingest", "repo_a");
    const b1 = queue("garden", "repo_b");
    const a3 = queue("build", "repo_a");
    claim(a3);
    l.runs.requestCancellation(a1, 3_000);
    const ids = (filter: Parameters<typeof l.runs.listRuns>[0]) => l.runs.listRuns(filter).map((r) => r.runId);
    expect(ids({})).toEqual([a3, b1, a2, a1]);
    expect(l.runs.listRuns().map((r) => r.runId)).toEqual([a3, b1, a2, a1]);
    expect(ids({ repositoryId: "repo_a" })).toEqual([a3, a2, a1]);
    expect(ids({ statuses: ["queued"] })).toEqual([b1, a2]);
    expect(ids({ statuses: ["running", "cancelled"] })).toEqual([a3, a1]);
    expect(ids({ kinds: ["garden"] })).toEqual([b1, a1]);
    expect(ids({ repositoryId: "repo_a", statuses: ["queued", "cancelled"], kinds: ["garden", "ingest"] })).toEqual([a2, a1]);
    expect(ids({ statuses: [], kinds: [] })).toEqual([a3, b1, a2, a1]);
    expect(ids({ limit: 2 })).toEqual([a3, b1]);
    expect(ids({ repositoryId: "repo_c" })).toEqual([]);
  });

  test("a filtered count counts what the listing would show without its limit", () => {
    l = ledger();
    const a1 = queue("garden", "repo_a");
    queue("ingest", "repo_a");
    queue("garden", "repo_b");
    l.runs.requestCancellation(a1, 3_000);
    expect(l.runs.countMatchingRuns({})).toBe(3);
    expect(l.runs.countMatchingRuns({ repositoryId: "repo_a" })).toBe(2);
    expect(l.runs.countMatchingRuns({ statuses: ["queued"] })).toBe(2);
    expect(l.runs.countMatchingRuns({ kinds: ["garden"] })).toBe(2);
    expect(l.runs.countMatchingRuns({ repositoryId: "repo_a", statuses: ["queued"], kinds: ["ingest"] })).toBe(1);
    expect(l.runs.countMatchingRuns({ statuses: [], kinds: [] })).toBe(3);
    expect(l.runs.countMatchingRuns({ repositoryId: "repo_c" })).toBe(0);
  });

  test("active runs are the queued and running ones, per repository and per kind", () => {
    l = ledger();
    const running = queue("garden", "repo_a");
    claim(running);
    queue("garden", "repo_a");
    queue("ingest", "repo_a");
    const done = queue("garden", "repo_a");
    l.runs.finishRun(done, 3_000, { status: "done" });
    queue("garden", "repo_b");
    expect(l.runs.countActiveRuns("repo_a")).toBe(3);
    expect(l.runs.countActiveRuns("repo_c")).toBe(0);
    expect(l.runs.countActiveRunsOfKind("repo_a", "garden")).toBe(2);
    expect(l.runs.countActiveRunsOfKind("repo_a", "ingest")).toBe(1);
    expect(l.runs.countActiveRunsOfKind("repo_a", "build")).toBe(0);
  });

  test("the last done run of a kind is when it finished; failures and other kinds do not count", () => {
    l = ledger();
    expect(l.runs.lastDoneAt("repo_a", "garden")).toBeNull();
    for (const [finishedAt, status] of [[5_000, "done"], [7_000, "done"], [9_000, "failed"]] as const) {
      l.runs.finishRun(queue("garden", "repo_a"), finishedAt, { status });
    }
    l.runs.finishRun(queue("ingest", "repo_a"), 11_000, { status: "done" });
    l.runs.finishRun(queue("garden", "repo_b"), 13_000, { status: "done" });
    expect(l.runs.lastDoneAt("repo_a", "garden")).toBe(7_000);
  });

  test("queued work is seen, and running runs list in queue order", () => {
    l = ledger();
    expect(l.runs.hasQueuedRuns()).toBe(false);
    const first = queue();
    const second = queue();
    expect(l.runs.hasQueuedRuns()).toBe(true);
    claim(second);
    claim(first);
    expect(l.runs.hasQueuedRuns()).toBe(false);
    expect(l.runs.runningRuns().map((r) => r.runId)).toEqual([first, second]);
  });

  test("the runs that will run before a queued one are those queued or running ahead of it", () => {
    l = ledger();
    const running = queue();
    claim(running);
    const done = queue();
    l.runs.finishRun(done, 2_500, { status: "done" });
    queue();
    const mine = l.runs.requireRun(queue());
    queue();
    expect(l.runs.unfinishedRunsAhead(mine.seq)).toBe(2);
    expect(l.runs.runsAhead(mine.seq)).toBe(1);
    expect(l.runs.unfinishedRunsAhead(l.runs.requireRun(running).seq)).toBe(0);
  });

  test("warnings are counted per run, for the runs asked about", () => {
    l = ledger();
    const a = queue();
    const b = queue();
    const c = queue();
    l.runs.appendEvent(a, 2_000, "warning", "w1");
    l.runs.appendEvent(a, 2_001, "warning", "w2");
    l.runs.appendEvent(a, 2_002, "error", "e");
    l.runs.appendEvent(b, 2_000, "warning", "w");
    l.runs.appendEvent(c, 2_000, "warning", "w");
    expect(l.runs.warningCounts([a, b, "unknown"])).toEqual(new Map([[a, 2], [b, 1]]));
    expect(l.runs.warningCounts([])).toEqual(new Map());
  });

  test("statuses of the runs asked about; unknown ids are absent", () => {
    l = ledger();
    const a = queue();
    const b = queue();
    l.runs.requestCancellation(b, 2_000);
    expect(l.runs.statusesOf([a, b, "unknown"])).toEqual(new Map([[a, "queued"], [b, "cancelled"]]));
    expect(l.runs.statusesOf([])).toEqual(new Map());
  });

  test("the sessions and transcripts our own runs started", () => {
    l = ledger();
    const a = queue();
    const b = queue();
    const c = queue();
    queue();
    l.runs.recordHarnessSession(a, { kind: "claude", sessionId: "s-a", transcriptPath: "/t/a.jsonl" });
    l.runs.recordHarnessSession(b, { kind: "codex", sessionId: null, transcriptPath: "/t/b.jsonl" });
    l.runs.recordHarnessSession(c, { kind: "claude", sessionId: "s-c", transcriptPath: null });
    expect(l.runs.harnessFootprints()).toEqual({ sessionIds: new Set(["s-a", "s-c"]), transcriptPaths: new Set(["/t/a.jsonl", "/t/b.jsonl"]) });
  });

  test("a prune takes finished runs created before the cutoff, and nothing created at it or still active", () => {
    l = ledger();
    const done = queue("garden", "repo_a", 1_000);
    const failed = queue("garden", "repo_a", 1_000);
    const atCutoff = queue("garden", "repo_a", 2_000);
    const running = queue("garden", "repo_a", 1_000);
    queue("garden", "repo_a", 1_000);
    l.runs.finishRun(done, 1_500, { status: "done" });
    l.runs.finishRun(failed, 1_500, { status: "failed" });
    l.runs.finishRun(atCutoff, 2_500, { status: "done" });
    claim(running);
    expect(l.runs.pruneRuns(2_000, () => undefined).map((r) => [r.runId, r.status])).toEqual([
      [done, "done"],
      [failed, "failed"],
    ]);
    expect(l.runs.listRuns().length).toBe(3);
  });
});

describe("events", () => {
  test("a blank message is recorded as its kind", () => {
    l = ledger();
    const runId = queue();
    l.runs.appendEvent(runId, 2_000, "output", "   ");
    l.runs.appendEvent(runId, 2_001, "message", " hello ");
    expect(l.runs.listEvents(runId, 1).map((e) => e.message)).toEqual(["output", " hello "]);
  });

  test("payloads read back; a damaged or missing one is null; a page of events is limited", () => {
    l = ledger();
    const runId = queue();
    l.runs.appendEvent(runId, 2_000, "tool", "read", { tool: "Read", path: "a.md" });
    l.runs.appendEvent(runId, 2_001, "tool", "broken", { x: 1 });
    l.runs.appendEvent(runId, 2_002, "message", "no payload");
    l.runs.appendEvent(runId, 2_003, "message", "null payload", null);
    l.db.prepare("UPDATE run_events SET payload_json = '{' WHERE run_id = ? AND message = 'broken'").run(runId);
    expect(l.runs.listEvents(runId, 1).map((e) => [e.seq, e.createdAt, e.kind, e.payload])).toEqual([
      [2, 2_000, "tool", { tool: "Read", path: "a.md" }],
      [3, 2_001, "tool", null],
      [4, 2_002, "message", null],
      [5, 2_003, "message", null],
    ]);
    expect(l.runs.listEvents(runId, 1, 2).map((e) => e.seq)).toEqual([2, 3]);
  });
});

describe("failing a run that was never claimed", () => {
  test("only the worker that still holds the lock may", () => {
    l = ledger();
    const runId = enqueue(l);
    l.locks.acquireWorkerLock({ token: "holder", pid: 1, startTime: "1" }, 1_000, 30_000, () => true);
    expect(l.runs.failUnclaimedRun(runId, 2_000, "former", "no executor").changed).toBe(false);
    expect(l.runs.requireRun(runId).status).toBe("queued");
    expect(l.runs.failUnclaimedRun(runId, 2_000, "holder", "no executor")).toMatchObject({ changed: true, record: { status: "failed", error: "no executor" } });
  });
});
