/**
 * The state database of the Python CodeAlmanac (0.4): what we carry over from it (how it
 * is told from ours is detect.ts). It shares our file name, `codealmanac.db`, but has no schema
 * version (it makes its tables with CREATE TABLE IF NOT EXISTS) and other columns: times
 * are ISO-8601 text, and each run's full record is a JSON blob in `record_json`.
 */
import * as z from "zod/mini";
import { basename } from "node:path";
import { kebab } from "../../core/kebab.js";
import type { Db } from "../../core/sqlite.js";
import type { Repository } from "../../repositories/model.js";
import {
  EVENT_KINDS,
  FAILURE_CATEGORIES,
  RUN_KINDS,
  RUN_STATUSES,
  isTerminal,
  type FailureCategory,
  type HistoricRun,
  type RunEventKind,
} from "../../runs/model.js";

/** The origin recorded in each carried-over run. */
export const PYTHON_ORIGIN = "codealmanac-python-0.4";

/** Why a run it left queued or running is history here and not work. */
export const UNFINISHED_NOTE = "left unfinished by the Python CodeAlmanac; not carried over as work";

export interface PythonLedger {
  repositories: Repository[];
  runs: HistoricRun[];
  /** Rows that could not be read as what the Python CodeAlmanac writes, left behind. */
  skipped: number;
}

const text = z.string().check(z.refine((value) => value.trim() !== "", "must not be blank"));
const isoTime = z.pipe(
  z.string(),
  z.transform((value, ctx) => {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) ctx.issues.push({ code: "custom", message: "not a time", input: value });
    return ms;
  }),
);
const optionalTime = z.optional(z.nullable(z.catch(z.nullable(isoTime), null)));

const RepositoryRow = z.object({
  repository_id: text,
  name: z.string(),
  description: z.nullable(z.string()),
  root_path: text,
  registered_at: z.string(),
});

const RunRow = z.object({
  run_id: z.string().check(z.regex(/^[A-Za-z0-9_-]+$/)),
  repository_id: text,
  kind: z.enum(RUN_KINDS),
  status: z.enum(RUN_STATUSES),
  title: z.nullable(z.string()),
  created_at: isoTime,
  updated_at: z.string(),
  record_json: z.string(),
  spec_json: z.nullable(z.string()),
});

/** The parts of its `RunRecord` JSON we keep; anything else in it is ignored. */
const RunRecordJson = z.looseObject({
  summary: z.optional(z.nullable(z.string())),
  error: z.optional(z.nullable(z.string())),
  failure_category: z.optional(z.nullable(z.string())),
  started_at: optionalTime,
  finished_at: optionalTime,
  harness_transcript: z.optional(
    z.nullable(
      z.catch(
        z.nullable(
          z.looseObject({
            kind: text,
            session_id: z.optional(z.nullable(z.string())),
            transcript_path: z.optional(z.nullable(z.string())),
          }),
        ),
        null,
      ),
    ),
  ),
});

const EventRow = z.object({ run_id: z.string(), sequence: z.number(), created_at: z.string(), event_json: z.string() });
const EventJson = z.looseObject({ kind: z.optional(z.string()), message: z.optional(z.string()) });

/** Everything worth keeping, read in one transaction so the rows agree with each other. */
export function readPythonLedger(db: Db): PythonLedger {
  return db.transaction((): PythonLedger => {
    let skipped = 0;
    const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
    const repositories: Repository[] = [];
    for (const raw of tables.has("repositories") ? db.prepare("SELECT * FROM repositories").all() : []) {
      const repository = toRepository(raw);
      if (repository) repositories.push(repository);
      else skipped++;
    }
    const events = tables.has("run_events") ? eventsByRun(db) : new Map<string, HistoricRun["events"]>();
    const known = new Map(repositories.map((r) => [r.repositoryId, r]));
    const runs: HistoricRun[] = [];
    for (const raw of tables.has("runs") ? db.prepare("SELECT * FROM runs").all() : []) {
      const run = toRun(raw, known, events);
      if (run) runs.push(run);
      else skipped++;
    }
    return { repositories, runs, skipped };
  })();
}

function toRepository(raw: unknown): Repository | null {
  const row = RepositoryRow.safeParse(raw);
  if (!row.success) return null;
  const { repository_id, name, description, root_path, registered_at } = row.data;
  const wanted = kebab(name) || kebab(basename(root_path));
  if (wanted === "") return null;
  const registeredAt = Date.parse(registered_at);
  return {
    repositoryId: repository_id,
    name: wanted,
    description: description?.trim() ?? "",
    rootPath: root_path,
    registeredAt: Number.isNaN(registeredAt) ? 0 : registeredAt,
  };
}

function toRun(raw: unknown, repositories: Map<string, Repository>, events: Map<string, HistoricRun["events"]>): HistoricRun | null {
  const row = RunRow.safeParse(raw);
  if (!row.success) return null;
  const { run_id, repository_id, kind, status, title, created_at, updated_at, record_json, spec_json } = row.data;
  const record = RunRecordJson.safeParse(parseJson(record_json));
  const r = record.success ? record.data : {};
  const finished = isTerminal(status);
  const updatedAt = Date.parse(updated_at);
  const category = FAILURE_CATEGORIES.find((c) => c === r.failure_category) ?? null;
  const repository = repositories.get(repository_id);
  return {
    runId: run_id,
    repositoryId: repository_id,
    repositoryName: repository?.name ?? repository_id,
    repositoryRoot: repository?.rootPath ?? "",
    kind,
    status: finished ? status : "cancelled",
    title: title?.trim() || null,
    summary: r.summary?.trim() || null,
    error: finished ? r.error?.trim() || null : UNFINISHED_NOTE,
    failureCategory: status === "failed" ? (category as FailureCategory | null) : null,
    createdAt: created_at,
    updatedAt: Number.isNaN(updatedAt) ? created_at : updatedAt,
    startedAt: r.started_at ?? null,
    finishedAt: finished ? (r.finished_at ?? null) : null,
    harness: r.harness_transcript
      ? { kind: r.harness_transcript.kind, sessionId: r.harness_transcript.session_id ?? null, transcriptPath: r.harness_transcript.transcript_path ?? null }
      : null,
    origin: PYTHON_ORIGIN,
    originalSpec: spec_json === null ? null : parseJson(spec_json),
    events: events.get(run_id) ?? [],
  };
}

function eventsByRun(db: Db): Map<string, HistoricRun["events"]> {
  const byRun = new Map<string, HistoricRun["events"]>();
  for (const raw of db.prepare("SELECT * FROM run_events ORDER BY run_id, sequence").all()) {
    const row = EventRow.safeParse(raw);
    if (!row.success) continue;
    const event = EventJson.safeParse(parseJson(row.data.event_json));
    const message = (event.success ? event.data.message : undefined)?.trim();
    const createdAt = Date.parse(row.data.created_at);
    if (!message || Number.isNaN(createdAt)) continue;
    const kind = EVENT_KINDS.find((k) => k === (event.success ? event.data.kind : undefined)) ?? "message";
    const list = byRun.get(row.data.run_id) ?? [];
    list.push({ seq: row.data.sequence, createdAt, kind: kind as RunEventKind, message });
    byRun.set(row.data.run_id, list);
  }
  return byRun;
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return null;
  }
}
