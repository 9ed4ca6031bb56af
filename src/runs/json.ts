import { isoTime } from "../core/time.js";
import type { RunRecord } from "./model.js";

/**
 * A run as JSON: the one serializer of the run shape. `jobs --json`, `jobs show --json`,
 * `--wait --json` and `jobs attach --json` print it whole; the viewer and MCP answer with
 * `runSummaryJson`, which is the same minus what only this machine can use.
 */
export function runJson(r: RunRecord) {
  return {
    ...runSummaryJson(r),
    repository_id: r.repositoryId,
    execution: r.execution
      ? {
          execution_id: r.execution.executionId,
          pid: r.execution.pid,
          process_started_at: r.execution.startTime,
          process_group: r.execution.pgid,
        }
      : null,
    log_path: r.logPath,
  };
}

/**
 * The run without its process identity and log path: a browser (the viewer) or another
 * program (MCP) can do nothing with this machine's pids and files, and the viewer, bound to
 * a non-loopback address, must not tell them to anyone who asks.
 */
export function runSummaryJson(r: RunRecord) {
  return {
    run_id: r.runId,
    repository: r.repositoryName,
    kind: r.kind,
    status: r.status,
    title: r.title,
    summary: r.summary,
    error: r.error,
    failure_category: r.failureCategory,
    created_at: isoTime(r.createdAt),
    updated_at: isoTime(r.updatedAt),
    started_at: isoTime(r.startedAt),
    finished_at: isoTime(r.finishedAt),
    cancellation_requested_at: isoTime(r.cancelRequestedAt),
    page_changes: r.pageChanges,
    commits: r.changes?.commits ?? null,
    outside_changes: r.changes?.outside ?? null,
    change_notes: r.changes && r.changes.notes.length > 0 ? r.changes.notes : null,
    // The product's own commit of the wiki changes; `commits` are the agent's.
    wiki_commit: r.wikiCommit ? { sha: r.wikiCommit.sha, subject: r.wikiCommit.subject, files: r.wikiCommit.files } : null,
    // `garden --stale`: the pages it confirmed, corrected and left stale (null for any other run).
    stale_pages: r.stalePages
      ? {
          targeted: r.stalePages.targeted,
          confirmed: r.stalePages.confirmed,
          corrected: r.stalePages.corrected,
          left_stale: r.stalePages.left_stale,
          no_longer_stale: r.stalePages.no_longer_stale,
        }
      : null,
    // The secret gate's findings (file, line, kind; never the secret): the run failed with `secret_found`.
    secret_findings: r.secretFindings ? r.secretFindings.map((f) => ({ file: f.file, line: f.line, kind: f.kind })) : null,
    harness_transcript: r.harness
      ? { kind: r.harness.kind, session_id: r.harness.sessionId, transcript_path: r.harness.transcriptPath }
      : null,
    retry_of: r.retryOf,
  };
}

export type RunJson = ReturnType<typeof runJson>;
export type RunSummaryJson = ReturnType<typeof runSummaryJson>;
