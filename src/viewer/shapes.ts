import type { RunRecord } from "../runs/model.js";
import type { RunStep } from "../runs/steps.js";
import type { PageRow } from "../index/views/viewer.js";

/** The JSON the viewer's API answers with: snake_case keys, ISO-8601 UTC times or null. */

export interface PageSummary {
  slug: string;
  title: string;
  summary: string | null;
  /** Relative to almanac/, e.g. `architecture/README.md`. */
  path: string;
  topics: string[];
  updated_at: string | null;
}

export interface JobRun {
  run_id: string;
  kind: string;
  status: string;
  title: string | null;
  summary: string | null;
  error: string | null;
  failure_category: string | null;
  created_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string | null;
  page_changes: { created: string[]; updated: string[]; deleted: string[] } | null;
  harness: { kind: string; session_id: string | null; transcript_path: string | null } | null;
  warnings: number;
}

/** A transcript step; `key` names the card it belongs to, so a tool's late result replaces its card. */
export type JobStep = Omit<RunStep, "timestamp"> & { key: string; timestamp: string | null };

export function iso(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

export function pageSummary(row: PageRow): PageSummary {
  return {
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    path: row.rel_path,
    topics: JSON.parse(row.topics_json) as string[],
    // The index keeps whole seconds.
    updated_at: iso(row.updated_at * 1000),
  };
}

export function jobRun(record: RunRecord, warnings: number): JobRun {
  return {
    run_id: record.runId,
    kind: record.kind,
    status: record.status,
    title: record.title,
    summary: record.summary,
    error: record.error,
    failure_category: record.failureCategory,
    created_at: iso(record.createdAt),
    started_at: iso(record.startedAt),
    finished_at: iso(record.finishedAt),
    updated_at: iso(record.updatedAt),
    page_changes: record.pageChanges,
    harness: record.harness
      ? { kind: record.harness.kind, session_id: record.harness.sessionId, transcript_path: record.harness.transcriptPath }
      : null,
    warnings,
  };
}

export function jobStep(step: RunStep, key: string): JobStep {
  return { ...step, key, timestamp: iso(step.timestamp) };
}
