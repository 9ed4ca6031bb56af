import type { RunRecord } from "../runs/model.js";
import { runSummaryJson, type RunSummaryJson } from "../runs/json.js";
import { isoTime } from "../core/time.js";
import type { RunStep } from "../runs/steps.js";
import type { PageRow } from "../index/views/viewer.js";
import { pageDriftJson } from "../evidence/json.js";
import type { PagesDrift, PageFreshness } from "../evidence/freshness.js";

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

/** A run as the viewer shows it: the shared summary (runs/json.ts) plus its count of warnings. */
export type JobRun = RunSummaryJson & { warnings: number };

/** A transcript step; `key` names the card it belongs to, so a tool's late result replaces its card. */
export type JobStep = Omit<RunStep, "timestamp"> & { key: string; timestamp: string | null };


export function pageSummary(row: PageRow): PageSummary {
  return {
    slug: row.slug,
    title: row.title,
    summary: row.summary,
    path: row.rel_path,
    topics: JSON.parse(row.topics_json) as string[],
    // The index keeps whole seconds.
    updated_at: isoTime(row.updated_at * 1000),
  };
}

/** A page's freshness with each drifting source (path, lines, status, reason, commits newest first): the page's side panel. */
export type PageFreshnessDetail = PageFreshness & { sources: ReturnType<typeof pageDriftJson>["sources"] };

export function freshnessDetail(drift: PagesDrift, slug: string): PageFreshnessDetail {
  const page = drift.page(slug);
  const sources = page ? pageDriftJson(page).sources.filter((source) => source.status !== "fresh") : [];
  return { ...drift.freshness(slug), sources };
}

export function jobRun(record: RunRecord, warnings: number): JobRun {
  return { ...runSummaryJson(record), warnings };
}

export function jobStep(step: RunStep, key: string): JobStep {
  return { ...step, key, timestamp: isoTime(step.timestamp) };
}
