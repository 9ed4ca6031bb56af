import type { Db } from "../core/sqlite.js";
import { notFound } from "../core/errors.js";
import { LockStore } from "./lock-store.js";
import {
  type ExecutionRef,
  type FailureCategory,
  type HistoricRun,
  IMPORTED_SPEC_VERSION,
  type PageChanges,
  type RunChanges,
  type RunEvent,
  type RunEventKind,
  type RunKind,
  type RunRecord,
  type RunStatus,
  type TerminalStatus,
  type Transition,
  type SecretFinding,
  type StalePagesOutcome,
  type WikiCommit,
} from "./model.js";
import type { RunSpec, SpecParse } from "./spec.js";
import type { ListFilter, RunFootprints, RunReads, RunRecorder } from "./access.js";
import {
  decideCancelRequest,
  decideClaim,
  decideFailUnclaimed,
  decideFinish,
  decideFinishCancellation,
  finishChange,
  type ClaimOutcome,
  type Decision,
  type Finish,
  type RunChange,
} from "./transitions.js";

export type { ClaimOutcome, Finish } from "./transitions.js";
export type { ListFilter } from "./access.js";

/** A finished run `pruneRuns` deletes. */
export interface PrunedRun {
  runId: string;
  logPath: string;
  status: TerminalStatus;
}

interface RunRow {
  seq: number;
  run_id: string;
  repository_id: string;
  repository_name: string;
  repository_root: string;
  kind: RunKind;
  status: RunStatus;
  title: string | null;
  summary: string | null;
  error: string | null;
  failure_category: FailureCategory | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
  cancel_requested_at: number | null;
  spec_version: number;
  spec_json: string;
  execution_id: string | null;
  executor_pid: number | null;
  executor_start_time: string | null;
  executor_pgid: number | null;
  worker_token: string | null;
  claim_seq: number | null;
  harness_kind: string | null;
  harness_session_id: string | null;
  transcript_path: string | null;
  page_changes_json: string | null;
  changes_json?: string | null;
  wiki_commit_json?: string | null;
  stale_pages_json?: string | null;
  secret_findings_json?: string | null;
  log_path: string;
  retry_of: string | null;
  last_event_at?: number | null;
}

const SELECT_RUN = `SELECT r.*, (SELECT MAX(e.created_at) FROM run_events e WHERE e.run_id = r.run_id) AS last_event_at FROM runs r`;

function toRecord(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    seq: row.seq,
    repositoryId: row.repository_id,
    repositoryName: row.repository_name,
    repositoryRoot: row.repository_root,
    kind: row.kind,
    status: row.status,
    title: row.title,
    summary: row.summary,
    error: row.error,
    failureCategory: row.failure_category,
    createdAt: row.created_at,
    updatedAt: Math.max(row.updated_at, row.last_event_at ?? 0),
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    cancelRequestedAt: row.cancel_requested_at,
    execution:
      row.execution_id && row.executor_pid !== null && row.executor_start_time !== null
        ? {
            executionId: row.execution_id,
            pid: row.executor_pid,
            startTime: row.executor_start_time,
            pgid: row.executor_pgid ?? row.executor_pid,
            workerToken: row.worker_token,
          }
        : null,
    harness: row.harness_kind
      ? { kind: row.harness_kind, sessionId: row.harness_session_id, transcriptPath: row.transcript_path }
      : null,
    pageChanges: row.page_changes_json ? (JSON.parse(row.page_changes_json) as PageChanges) : null,
    changes: row.changes_json ? (JSON.parse(row.changes_json) as RunChanges) : null,
    wikiCommit: row.wiki_commit_json ? (JSON.parse(row.wiki_commit_json) as WikiCommit) : null,
    stalePages: row.stale_pages_json ? (JSON.parse(row.stale_pages_json) as StalePagesOutcome) : null,
    secretFindings: row.secret_findings_json ? (JSON.parse(row.secret_findings_json) as SecretFinding[]) : null,
    logPath: row.log_path,
    retryOf: row.retry_of,
    claimSeq: row.claim_seq,
    specVersion: row.spec_version,
    specJson: row.spec_json,
  };
}

export interface EnqueueRequest {
  runId: string;
  repositoryId: string;
  repositoryName: string;
  repositoryRoot: string;
  kind: RunKind;
  title: string | null;
  spec: RunSpec;
  logPath: string;
  retryOf?: string;
  now: number;
}

export type QueuedRun = { record: RunRecord; spec: RunSpec };

/**
 * Owns `runs` and `run_events`. Every change of a run's state (enqueue, claim, finish,
 * cancel, prune) is one named BEGIN IMMEDIATE transaction, and which changes are allowed is
 * decided by the pure functions of transitions.ts. The `record…` verbs, which note what a
 * running run did (its agent session, page changes, repository changes, wiki commit), are
 * single UPDATEs of one row: atomic on their own, and never a transition. The worker lock
 * is read through `LockStore`, which alone owns `worker_lock`. Other domains are handed the
 * narrow views of access.ts, never the store.
 */
export class RunStore implements RunReads, RunFootprints, RunRecorder {
  private readonly locks: LockStore;

  constructor(readonly db: Db) {
    this.locks = new LockStore(db);
  }

  // ---- reads -------------------------------------------------------------

  getRun(runId: string): RunRecord | undefined {
    const row = this.db.prepare(`${SELECT_RUN} WHERE r.run_id = ?`).get(runId) as RunRow | undefined;
    return row && toRecord(row);
  }

  requireRun(runId: string): RunRecord {
    const record = this.getRun(runId);
    if (!record) throw notFound("run", runId);
    return record;
  }

  listRuns(filter: ListFilter = {}): RunRecord[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.repositoryId) {
      where.push("r.repository_id = ?");
      params.push(filter.repositoryId);
    }
    if (filter.statuses?.length) {
      where.push(`r.status IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(filter.statuses));
    }
    if (filter.kinds?.length) {
      where.push(`r.kind IN (SELECT value FROM json_each(?))`);
      params.push(JSON.stringify(filter.kinds));
    }
    const sql = `${SELECT_RUN} ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY r.seq DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...params, filter.limit ?? -1) as RunRow[];
    return rows.map(toRecord);
  }

  /**
   * Run ids a short form can name, newest first: ids that start with `text`, or whose
   * trailing hex part does (`c66c5349` or `c66c` for `build-20261201194329-c66c5349`).
   * Compared as plain text, so no character in `text` is a wildcard.
   */
  runIdsStartingWith(text: string, repositoryId: string | undefined, limit: number): string[] {
    const rows = this.db
      .prepare(
        `SELECT run_id FROM runs
         WHERE (substr(run_id, 1, length(@text)) = @text OR substr(run_id, length(run_id) - 7, length(@text)) = @text)
           AND (@repository IS NULL OR repository_id = @repository)
         ORDER BY seq DESC LIMIT @limit`,
      )
      .all({ text, repository: repositoryId ?? null, limit }) as { run_id: string }[];
    return rows.map((row) => row.run_id);
  }

  /** How many runs a filtered listing would show without its limit. */
  countMatchingRuns(filter: Omit<ListFilter, "limit">): number {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.repositoryId) {
      where.push("repository_id = ?");
      params.push(filter.repositoryId);
    }
    if (filter.statuses?.length) {
      where.push("status IN (SELECT value FROM json_each(?))");
      params.push(JSON.stringify(filter.statuses));
    }
    if (filter.kinds?.length) {
      where.push("kind IN (SELECT value FROM json_each(?))");
      params.push(JSON.stringify(filter.kinds));
    }
    const sql = `SELECT COUNT(*) FROM runs ${where.length ? `WHERE ${where.join(" AND ")}` : ""}`;
    return this.db.prepare(sql).pluck().get(...params) as number;
  }

  /** Warning events per run, for the runs given (runs without any are absent). */
  warningCounts(runIds: readonly string[]): Map<string, number> {
    if (runIds.length === 0) return new Map();
    const rows = this.db
      .prepare(
        `SELECT run_id, COUNT(*) AS n FROM run_events
         WHERE run_id IN (SELECT value FROM json_each(?)) AND kind = 'warning' GROUP BY run_id`,
      )
      .all(JSON.stringify(runIds)) as { run_id: string; n: number }[];
    return new Map(rows.map((row) => [row.run_id, row.n]));
  }

  countActiveRuns(repositoryId: string): number {
    return this.db
      .prepare("SELECT COUNT(*) FROM runs WHERE repository_id = ? AND status IN ('queued', 'running')")
      .pluck()
      .get(repositoryId) as number;
  }

  /** The agent sessions our own runs started: sync must never ingest them. */
  harnessFootprints(): { sessionIds: Set<string>; transcriptPaths: Set<string> } {
    const rows = this.db
      .prepare("SELECT harness_session_id, transcript_path FROM runs WHERE harness_session_id IS NOT NULL OR transcript_path IS NOT NULL")
      .all() as { harness_session_id: string | null; transcript_path: string | null }[];
    const sessionIds = new Set<string>();
    const transcriptPaths = new Set<string>();
    for (const row of rows) {
      if (row.harness_session_id) sessionIds.add(row.harness_session_id);
      if (row.transcript_path) transcriptPaths.add(row.transcript_path);
    }
    return { sessionIds, transcriptPaths };
  }

  statusesOf(runIds: readonly string[]): Map<string, RunStatus> {
    if (runIds.length === 0) return new Map();
    const rows = this.db
      .prepare("SELECT run_id, status FROM runs WHERE run_id IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify(runIds)) as { run_id: string; status: RunStatus }[];
    return new Map(rows.map((row) => [row.run_id, row.status]));
  }

  /** Queued or running runs of one kind in a repository. */
  countActiveRunsOfKind(repositoryId: string, kind: RunKind): number {
    return this.db
      .prepare("SELECT COUNT(*) FROM runs WHERE repository_id = ? AND kind = ? AND status IN ('queued', 'running')")
      .pluck()
      .get(repositoryId, kind) as number;
  }

  /** When the latest run of this kind that ended `done` finished, or null. */
  lastDoneAt(repositoryId: string, kind: RunKind): number | null {
    const value = this.db
      .prepare("SELECT MAX(finished_at) FROM runs WHERE repository_id = ? AND kind = ? AND status = 'done'")
      .pluck()
      .get(repositoryId, kind) as number | null;
    return value ?? null;
  }

  hasQueuedRuns(): boolean {
    return this.db.prepare("SELECT 1 FROM runs WHERE status = 'queued' LIMIT 1").get() !== undefined;
  }

  runningRuns(): RunRecord[] {
    return (this.db.prepare(`${SELECT_RUN} WHERE r.status = 'running' ORDER BY r.seq`).all() as RunRow[]).map(toRecord);
  }

  /** Queued runs committed before this one: how long the new run will wait. */
  runsAhead(seq: number): number {
    return this.db.prepare("SELECT COUNT(*) FROM runs WHERE status = 'queued' AND seq < ?").pluck().get(seq) as number;
  }

  /** Runs that will run before this one: queued before it, or running (the queue is first in, first out). */
  unfinishedRunsAhead(seq: number): number {
    return this.db.prepare("SELECT COUNT(*) FROM runs WHERE status IN ('queued', 'running') AND seq < ?").pluck().get(seq) as number;
  }

  listEvents(runId: string, afterSeq = 0, limit = -1): RunEvent[] {
    const rows = this.db
      .prepare(
        "SELECT run_id, seq, created_at, kind, message, payload_json FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      )
      .all(runId, afterSeq, limit) as {
      run_id: string;
      seq: number;
      created_at: number;
      kind: RunEventKind;
      message: string;
      payload_json: string | null;
    }[];
    return rows.map((r) => ({
      runId: r.run_id,
      seq: r.seq,
      createdAt: r.created_at,
      kind: r.kind,
      message: r.message,
      payload: r.payload_json ? safeJson(r.payload_json) : null,
    }));
  }

  // ---- named transactions -----------------------------------------------

  /**
   * Adds runs of another ledger as history, oldest first so `seq` keeps their order, with
   * their events, in one BEGIN IMMEDIATE; a run id already here is left as it is. Returns
   * how many were added.
   */
  importHistory(runs: readonly HistoricRun[]): number {
    const insertRun = this.db.prepare(
      `INSERT OR IGNORE INTO runs (run_id, repository_id, repository_name, repository_root, kind, status, title, summary,
         error, failure_category, created_at, updated_at, started_at, finished_at, spec_version, spec_json, log_path,
         harness_kind, harness_session_id, transcript_path)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?)`,
    );
    const insertEvent = this.db.prepare(
      "INSERT OR IGNORE INTO run_events (run_id, seq, created_at, kind, message) VALUES (?, ?, ?, ?, ?)",
    );
    return this.db
      .transaction((): number => {
        let added = 0;
        for (const run of [...runs].sort((a, b) => a.createdAt - b.createdAt || a.runId.localeCompare(b.runId))) {
          const spec = JSON.stringify({ imported_from: run.origin, spec: run.originalSpec ?? null });
          const inserted = insertRun.run(
            run.runId, run.repositoryId, run.repositoryName, run.repositoryRoot, run.kind, run.status, run.title,
            run.summary, run.error, run.failureCategory, run.createdAt, run.updatedAt, run.startedAt, run.finishedAt,
            IMPORTED_SPEC_VERSION, spec, run.harness?.kind ?? null, run.harness?.sessionId ?? null,
            run.harness?.transcriptPath ?? null,
          ).changes;
          if (inserted === 0) continue;
          added++;
          for (const event of run.events) insertEvent.run(run.runId, event.seq, event.createdAt, event.kind, event.message);
        }
        return added;
      })
      .immediate();
  }

  /** Producer: the run, its spec and its first event, in one BEGIN IMMEDIATE. */
  enqueueRun(request: EnqueueRequest): RunRecord {
    return this.db
      .transaction((): RunRecord => {
        this.db
          .prepare(
            `INSERT INTO runs (run_id, repository_id, repository_name, repository_root, kind, status, title,
               created_at, updated_at, spec_version, spec_json, log_path, retry_of)
             VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            request.runId,
            request.repositoryId,
            request.repositoryName,
            request.repositoryRoot,
            request.kind,
            request.title,
            request.now,
            request.now,
            request.spec.version,
            JSON.stringify(request.spec),
            request.logPath,
            request.retryOf ?? null,
          );
        this.insertEvent(request.runId, request.now, "status", `queued ${request.kind}`);
        return this.requireRun(request.runId);
      })
      .immediate();
  }

  /**
   * The oldest queued run whose spec parses. A spec that does not parse fails its run
   * in the same transaction and the search continues, so one bad row never wedges the queue.
   */
  takeNextQueued(now: number, parseSpec: (json: string) => SpecParse): QueuedRun | null {
    return this.db
      .transaction((): QueuedRun | null => {
        for (;;) {
          const row = this.db.prepare(`${SELECT_RUN} WHERE r.status = 'queued' ORDER BY r.seq LIMIT 1`).get() as
            | RunRow
            | undefined;
          if (!row) return null;
          const parsed = parseSpec(row.spec_json);
          const record = toRecord(row);
          if (parsed.ok) return { record, spec: parsed.spec };
          this.applyChange(row.run_id, finishChange(record, now, { status: "failed", error: parsed.error, category: "internal_error", errorEvent: parsed.error }));
        }
      })
      .immediate();
  }

  /**
   * A queued run's spec, revised (more material for a sync ingest): `revise` gets the run
   * and its current spec and returns the new spec with the event that says why, or null to
   * leave it. Only a run still `queued` is revised, in one transaction, so it is atomic
   * against `claimRun`: the executor reads the spec after its claim and sees either the
   * old spec or the new one, and a run claimed first is left as it is (false).
   */
  reviseQueuedSpec(
    runId: string,
    now: number,
    revise: (record: RunRecord, spec: RunSpec) => { spec: RunSpec; event: string } | null,
    parse: (json: string) => SpecParse,
  ): boolean {
    return this.db
      .transaction((): boolean => {
        const record = this.getRun(runId);
        if (record?.status !== "queued") return false;
        const parsed = parse(record.specJson);
        const revised = parsed.ok ? revise(record, parsed.spec) : null;
        if (!revised) return false;
        this.db
          .prepare("UPDATE runs SET spec_json = ?, title = ?, updated_at = ? WHERE run_id = ? AND status = 'queued'")
          .run(JSON.stringify(revised.spec), revised.spec.title ?? record.title, now, runId);
        this.insertEvent(runId, now, "status", revised.event);
        return true;
      })
      .immediate();
  }

  /**
   * The executor's claim: queued → running with its identity, only while the run is
   * still queued and the worker that spawned it still holds the lock.
   */
  claimRun(runId: string, execution: ExecutionRef, now: number): ClaimOutcome {
    return this.db
      .transaction((): ClaimOutcome => {
        const status = this.db.prepare("SELECT status FROM runs WHERE run_id = ?").pluck().get(runId) as
          | RunStatus
          | undefined;
        const outcome = decideClaim(status, { heldToken: this.locks.heldToken(), workerToken: execution.workerToken });
        if (outcome !== "claimed") return outcome;
        this.db
          .prepare(
            `UPDATE runs SET status = 'running', started_at = ?, updated_at = ?, execution_id = ?, executor_pid = ?,
               executor_start_time = ?, executor_pgid = ?, worker_token = ?,
               claim_seq = (SELECT COALESCE(MAX(claim_seq), 0) + 1 FROM runs)
             WHERE run_id = ?`,
          )
          .run(now, now, execution.executionId, execution.pid, execution.startTime, execution.pgid, execution.workerToken, runId);
        this.insertEvent(runId, now, "status", "running");
        return "claimed";
      })
      .immediate();
  }

  /** Appends one event; the run row is not rewritten. */
  appendEvent(runId: string, now: number, kind: RunEventKind, message: string, payload?: unknown): number {
    return this.insertEvent(runId, now, kind, message, payload);
  }

  /**
   * The first terminal write wins. With `executionId`, the write applies only while
   * the run is still executed by that execution (reconciliation after an executor exit).
   */
  finishRun(runId: string, now: number, finish: Finish, executionId?: string): Transition {
    return this.transition(runId, (record) => decideFinish(record, now, finish, executionId));
  }

  /** Fails a run that never got claimed, but only for the worker that still owns the queue. */
  failUnclaimedRun(runId: string, now: number, workerToken: string, error: string): Transition {
    return this.transition(runId, (record) =>
      decideFailUnclaimed(record, now, { heldToken: this.locks.heldToken(), workerToken }, error),
    );
  }

  /** queued → cancelled at once; running → intent recorded; terminal → no change. */
  requestCancellation(runId: string, now: number): Transition {
    return this.transition(runId, (record) => decideCancelRequest(record, now));
  }

  /** running (same execution, intent recorded) → cancelled, once its processes are confirmed gone. */
  finishCancellation(runId: string, now: number, executionId: string): Transition {
    return this.transition(runId, (record) => decideFinishCancellation(record, now, executionId));
  }

  recordHarnessSession(runId: string, harness: { kind: string; sessionId: string | null; transcriptPath: string | null }): void {
    this.db
      .prepare("UPDATE runs SET harness_kind = ?, harness_session_id = ?, transcript_path = ? WHERE run_id = ?")
      .run(harness.kind, harness.sessionId, harness.transcriptPath, runId);
  }

  recordPageChanges(runId: string, changes: PageChanges): void {
    this.db.prepare("UPDATE runs SET page_changes_json = ? WHERE run_id = ?").run(JSON.stringify(changes), runId);
  }

  recordChanges(runId: string, changes: RunChanges): void {
    this.db.prepare("UPDATE runs SET changes_json = ? WHERE run_id = ?").run(JSON.stringify(changes), runId);
  }

  /** The commit the product made of the run's wiki changes. */
  recordWikiCommit(runId: string, commit: WikiCommit): void {
    this.db.prepare("UPDATE runs SET wiki_commit_json = ? WHERE run_id = ?").run(JSON.stringify(commit), runId);
  }

  /** What a `garden --stale` run did with the stale pages it targeted. */
  recordStalePages(runId: string, outcome: StalePagesOutcome): void {
    this.db.prepare("UPDATE runs SET stale_pages_json = ? WHERE run_id = ?").run(JSON.stringify(outcome), runId);
  }

  /** Where the secret gate found secrets in the run's pages (never the secrets). */
  recordSecretFindings(runId: string, findings: readonly SecretFinding[]): void {
    this.db.prepare("UPDATE runs SET secret_findings_json = ? WHERE run_id = ?").run(JSON.stringify(findings), runId);
  }

  /**
   * Deletes finished runs (and their events) created before `before`; returns what was
   * deleted. `settle` runs first in the same transaction with the runs about to go, so
   * whatever points at them elsewhere in the state database (sync cursors) is settled
   * against their outcome in the same commit.
   */
  pruneRuns(before: number, settle: (runs: readonly PrunedRun[]) => void): PrunedRun[] {
    return this.db
      .transaction(() => {
        const rows = this.db
          .prepare("SELECT run_id AS runId, log_path AS logPath, status FROM runs WHERE status IN ('done', 'failed', 'cancelled') AND created_at < ?")
          .all(before) as PrunedRun[];
        settle(rows);
        const del = this.db.prepare("DELETE FROM runs WHERE run_id = ?");
        for (const row of rows) del.run(row.runId);
        return rows;
      })
      .immediate();
  }

  // ---- helpers (always inside a caller's transaction) --------------------

  /**
   * One transition: read the run (it must exist), let `decide` allow or refuse the change,
   * write it, and return the run as it is now. A refusal leaves the row untouched.
   */
  private transition(runId: string, decide: (record: RunRecord) => Decision): Transition {
    return this.db
      .transaction((): Transition => {
        const record = this.requireRun(runId);
        const decision = decide(record);
        if (!decision.ok) return { record, changed: false };
        this.applyChange(runId, decision.change);
        return { record: this.requireRun(runId), changed: true };
      })
      .immediate();
  }

  /** Writes a change a transition function allowed: the row fields, then its events in order. */
  private applyChange(runId: string, change: RunChange): void {
    const { updatedAt: now } = change.fields;
    if (change.kind === "cancel_requested") {
      this.db
        .prepare("UPDATE runs SET cancel_requested_at = ?, updated_at = ? WHERE run_id = ?")
        .run(change.fields.cancelRequestedAt, now, runId);
    } else {
      const f = change.fields;
      this.db
        .prepare(
          `UPDATE runs SET status = ?, summary = ?, error = ?, failure_category = ?,
             finished_at = ?, updated_at = ? WHERE run_id = ?`,
        )
        .run(f.status, f.summary, f.error, f.failureCategory, f.finishedAt, now, runId);
    }
    for (const event of change.events) this.insertEvent(runId, now, event.kind, event.message);
  }

  private insertEvent(runId: string, now: number, kind: RunEventKind, message: string, payload?: unknown): number {
    const text = message.trim() === "" ? kind : message;
    return this.db
      .prepare(
        `INSERT INTO run_events (run_id, seq, created_at, kind, message, payload_json)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = ?), ?, ?, ?, ?)
         RETURNING seq`,
      )
      .pluck()
      .get(runId, runId, now, kind, text, payload === undefined || payload === null ? null : JSON.stringify(payload)) as number;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
