import type { Context, Hono } from "hono";
import { notFound } from "../../core/errors.js";
import type { Repository } from "../../repositories/model.js";
import { RUN_KINDS, RUN_STATUSES, type RunRecord } from "../../runs/model.js";
import type { ViewerDeps } from "../deps.js";
import { forbidden, HttpError } from "../errors.js";
import { choiceParam, countParam, limitParam, runIdParam } from "../params.js";
import { sameOrigin, TOKEN_HEADER, tokenMatches } from "../safety.js";
import { repositoryFor, type ViewerEnv } from "../selection.js";
import { jobRun } from "../shapes.js";
import { jobEventStream } from "../sse.js";
import { StepFeed } from "../steps.js";

const JOBS_LIMIT = { fallback: 100, max: 10_000 };

/** The jobs screens: list, detail, the live event stream, and cancel (the viewer's only mutation). */
export function jobRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  app.get("/api/jobs", (c) => {
    const statuses = choiceParam(c.req.queries("status") ?? [], RUN_STATUSES, "status");
    const kinds = choiceParam(c.req.queries("kind") ?? [], RUN_KINDS, "kind");
    const limit = limitParam(c.req.query("limit"), JOBS_LIMIT);
    const repository = repositoryFor(deps, c.req.query("wiki"));
    const filter = { repositoryId: repository.repositoryId, ...(statuses ? { statuses } : {}), ...(kinds ? { kinds } : {}) };
    const records = deps.runs.listRuns({ ...filter, limit });
    const warnings = deps.runs.warningCounts(records.map((r) => r.runId));
    return c.json({
      wiki: repository.name,
      total: deps.runs.countMatchingRuns(filter),
      runs: records.map((record) => jobRun(record, warnings.get(record.runId) ?? 0)),
    });
  });

  app.get("/api/jobs/:runId", (c) => {
    const { repository, record } = runOf(c, deps);
    const events = deps.runs.listEvents(record.runId);
    return c.json({
      wiki: repository.name,
      run: runJson(deps, record),
      steps: new StepFeed().project(events),
      last_seq: events.at(-1)?.seq ?? 0,
    });
  });

  app.get("/api/jobs/:runId/events", (c) => {
    const { record } = runOf(c, deps);
    // A reconnecting EventSource sends the last id it saw, which is newer than its URL's `after`.
    const after = countParam(c.req.header("last-event-id") ?? c.req.query("after"), "after", { fallback: 0, max: Number.MAX_SAFE_INTEGER });
    return jobEventStream(c, deps, record.runId, after);
  });

  app.post("/api/jobs/:runId/cancel", async (c) => {
    guardMutation(c, deps);
    const { repository, record } = runOf(c, deps);
    const outcome = await deps.cancelRun(record.runId, repository.repositoryId);
    return c.json({ run: runJson(deps, outcome.record), outcome: outcome.changed ? "cancelled" : "unchanged" });
  });

  app.all("/api/jobs/:runId/cancel", (c) => {
    c.header("Allow", "POST");
    throw new HttpError(405, "method_not_allowed", `${c.req.method} is not allowed here: cancel is a POST`);
  });
}

export function runJson(deps: ViewerDeps, record: RunRecord) {
  return jobRun(record, deps.runs.warningCounts([record.runId]).get(record.runId) ?? 0);
}

/** The run named in the path, if it belongs to the selected wiki (another wiki's run is not found). */
function runOf(c: Context<ViewerEnv>, deps: ViewerDeps): { repository: Repository; record: RunRecord } {
  const runId = runIdParam(c.req.param("runId") ?? "");
  const repository = repositoryFor(deps, c.req.query("wiki"));
  const record = deps.runs.getRun(runId);
  if (!record || record.repositoryId !== repository.repositoryId) throw notFound("run", runId);
  return { repository, record };
}

/**
 * Cancel changes state, so a page elsewhere must not be able to send it: the launch
 * token in a header (which no other origin can set without a preflight we never grant),
 * this server's own Origin, and a JSON body type.
 */
function guardMutation(c: Context<ViewerEnv>, deps: ViewerDeps): void {
  if (!tokenMatches(c.req.header(TOKEN_HEADER), deps.access.token)) {
    throw forbidden("cancel needs this launch's token in the X-CodeAlmanac-Token header");
  }
  const fetchSite = c.req.header("sec-fetch-site");
  if (!sameOrigin(c.req.header("origin"), c.req.header("host")) || (fetchSite !== undefined && !["same-origin", "none"].includes(fetchSite))) {
    throw forbidden("cross-origin requests cannot cancel jobs");
  }
  if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
    throw forbidden("cancel needs Content-Type: application/json");
  }
}
