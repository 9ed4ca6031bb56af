import { afterEach, describe, expect, test } from "vitest";
import { join } from "node:path";
import { openDatabase } from "../../src/core/sqlite.js";
import { repositoryMigrations } from "../../src/repositories/schema.js";
import { runMigrations } from "../../src/runs/schema.js";
import { RunStore } from "../../src/runs/store.js";
import type { RunEventKind } from "../../src/runs/model.js";
import { syncMigrations } from "../../src/sync/schema.js";
import { sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { emptyRepo, garden, parkedRun, processAlive, readRun, waitForFile, waitForStatus } from "../queue/support.js";
import { cancel, getJson, openEvents, shellToken, startViewer, type JobRun, type JobStep, type ServerEvent } from "./support.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

interface JobList {
  wiki: string;
  total: number;
  runs: JobRun[];
}

interface JobDetail {
  wiki: string;
  run: JobRun;
  steps: JobStep[];
  last_seq: number;
}

/** Appends a ledger event the way the executor does, through the run store on the real state database. */
function appendEvent(runId: string, kind: RunEventKind, message: string, payload?: unknown): number {
  const db = openDatabase(join(box.state, "codealmanac.db"), {
    migrations: [...repositoryMigrations, ...runMigrations, ...syncMigrations],
    onNewerSchema: "refuse",
  });
  try {
    return new RunStore(db).appendEvent(runId, Date.now(), kind, message, payload);
  } finally {
    db.close();
  }
}

const toolUse = { kind: "tool_use", tool_id: "t1", tool_name: "Write", tool_display: { kind: "file_write", title: "Write", path: "almanac/notes.md" } };
const toolResult = { kind: "tool_result", tool_id: "t1", tool_result: "File created", tool_display: { status: "completed" } };

/** A second wiki, registered the way any read registers it. */
function otherWiki(): string {
  const root = writeWiki(join(box.dir, "other"), {});
  box.run(["search"], { cwd: root });
  return root;
}

async function nextOf(stream: { next(): Promise<ServerEvent | null> }, event: string): Promise<ServerEvent> {
  for (;;) {
    const next = await stream.next();
    if (!next) throw new Error(`the stream ended before a ${event} event`);
    if (next.event === event) return next;
  }
}

describe("viewer API: jobs", () => {
  test("GET /api/jobs lists the selected wiki's runs newest first, with filters, limit and total", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const first = await parkedRun(box, root);
    const second = await parkedRun(box, root);
    const viewer = await startViewer(box, { cwd: root });
    const { status, body } = await getJson<JobList>(viewer, "/api/jobs");
    expect(status).toBe(200);
    expect(body.wiki).toBe("repo");
    expect(body.total).toBe(2);
    expect(body.runs.map((r) => r.run_id)).toEqual([second.run_id, first.run_id]);
    expect(body.runs[0]).toMatchObject({
      kind: "garden",
      status: "queued",
      title: "Garden wiki",
      summary: null,
      error: null,
      failure_category: null,
      started_at: null,
      finished_at: null,
      page_changes: null,
      warnings: 0,
    });
    expect(body.runs[0]!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
    expect((await getJson<JobList>(viewer, "/api/jobs?limit=1")).body).toMatchObject({ total: 2, runs: [{ run_id: second.run_id }] });
    expect((await getJson<JobList>(viewer, "/api/jobs?status=done")).body).toMatchObject({ total: 0, runs: [] });
    expect((await getJson<JobList>(viewer, "/api/jobs?status=running,queued&kind=garden")).body.total).toBe(2);
    expect((await getJson<JobList>(viewer, "/api/jobs?kind=ingest")).body.total).toBe(0);
  });

  test.each([
    ["/api/jobs?status=bogus", 'invalid status "bogus": expected queued, running, done, failed, cancelled'],
    ["/api/jobs?kind=bogus", 'invalid kind "bogus": expected build, ingest, garden'],
    ["/api/jobs?limit=abc", 'invalid limit "abc": it must be an integer from 0 to 10000'],
    ["/api/jobs?limit=-1", 'invalid limit "-1": it must be an integer from 0 to 10000'],
    ["/api/jobs/bad.id", 'invalid run id "bad.id": it must match ^[A-Za-z0-9_-]+$'],
    ["/api/jobs/bad%20id/events", 'invalid run id "bad id": it must match ^[A-Za-z0-9_-]+$'],
  ])("a bad jobs parameter is a 422: %s", async (path, message) => {
    box = sandbox();
    const viewer = await startViewer(box, { cwd: emptyRepo(box) });
    const { status, body } = await getJson(viewer, path);
    expect(status).toBe(422);
    expect(body).toEqual({ error: { code: "validation_failed", message } });
  });

  test("GET /api/jobs/<id>: the run with its transcript steps and the last sequence; unknown and other wikis' runs are 404s", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    otherWiki();
    const viewer = await startViewer(box, { cwd: root });
    const { status, body } = await getJson<JobDetail>(viewer, `/api/jobs/${run.run_id}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ wiki: "repo", run: { run_id: run.run_id, status: "queued" }, last_seq: 1 });
    expect(body.steps).toEqual([{ key: "s1", sequence: 1, timestamp: expect.any(String), kind: "status", title: "Queued Garden", body: "queued garden", error: false }]);
    const unknown = await getJson(viewer, "/api/jobs/garden-20260101000000-deadbeef");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: "not_found", message: "run not found: garden-20260101000000-deadbeef" } });
    const elsewhere = await getJson(viewer, `/api/jobs/${run.run_id}?wiki=other`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual({ error: { code: "not_found", message: `run not found: ${run.run_id}` } });
    expect((await getJson<JobList>(viewer, "/api/jobs?wiki=other")).body).toEqual({ wiki: "other", total: 0, runs: [] });
  });

  test("the events stream sends only new events, completes a tool's card under its key, and ends when the run does", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    const viewer = await startViewer(box, { cwd: root });
    const stream = await openEvents(viewer, `/api/jobs/${run.run_id}/events?after=1`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    expect(stream.headers.get("x-content-type-options")).toBe("nosniff");
    expect(JSON.parse((await stream.next())!.data)).toMatchObject({ run_id: run.run_id, status: "queued" });

    const useSeq = appendEvent(run.run_id, "tool", "Write almanac/notes.md", toolUse);
    const started = await nextOf(stream, "steps");
    expect(started.id).toBe(String(useSeq));
    expect(JSON.parse(started.data)).toEqual({
      last_seq: useSeq,
      steps: [expect.objectContaining({ key: `s${useSeq}`, sequence: useSeq, kind: "tool", title: "Write", target: "almanac/notes.md", status: "started" })],
    });

    const resultSeq = appendEvent(run.run_id, "tool", "tool result", toolResult);
    const completed = JSON.parse((await nextOf(stream, "steps")).data) as { steps: JobStep[]; last_seq: number };
    expect(completed.last_seq).toBe(resultSeq);
    expect(completed.steps).toEqual([expect.objectContaining({ key: `s${useSeq}`, sequence: resultSeq, status: "completed", body: "File created" })]);

    expect(box.run(["jobs", "cancel", run.run_id]).code).toBe(0);
    // Appending events touches the run's updated_at, so a queued `run` update may come first.
    const rest = (await stream.rest()).filter((e) => e.event !== "run" || JSON.parse(e.data).status !== "queued");
    expect(rest.map((e) => e.event)).toEqual(["steps", "run", "end"]);
    expect(JSON.parse(rest[0]!.data).steps.map((s: JobStep) => s.title)).toEqual(["Cancelled"]);
    expect(JSON.parse(rest[1]!.data)).toMatchObject({ status: "cancelled" });
    expect(JSON.parse(rest[2]!.data)).toEqual({ status: "cancelled", last_seq: resultSeq + 1 });
  });

  test("a reconnecting stream resumes after Last-Event-ID, and a tool's late result keeps the key the detail gave it", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    const useSeq = appendEvent(run.run_id, "tool", "Write almanac/notes.md", toolUse);
    const viewer = await startViewer(box, { cwd: root });
    const detail = (await getJson<JobDetail>(viewer, `/api/jobs/${run.run_id}`)).body;
    expect(detail.last_seq).toBe(useSeq);
    expect(detail.steps.at(-1)).toMatchObject({ key: `s${useSeq}`, status: "started" });
    const resultSeq = appendEvent(run.run_id, "tool", "tool result", toolResult);
    const stream = await openEvents(viewer, `/api/jobs/${run.run_id}/events?after=0`, { "Last-Event-ID": String(useSeq) });
    const steps = JSON.parse((await nextOf(stream, "steps")).data) as { steps: JobStep[]; last_seq: number };
    expect(steps).toEqual({ last_seq: resultSeq, steps: [expect.objectContaining({ key: `s${useSeq}`, sequence: resultSeq, status: "completed" })] });
    stream.close();
  });

  test("a running fake-agent run streams its new steps live, then its final state and end", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const receipt = garden(box, root, { FAKE_CLAUDE_DELAY_MS: "1500" });
    await waitForStatus(box, receipt.run_id, ["running"]);
    const viewer = await startViewer(box, { cwd: root });
    const before = (await getJson<JobDetail>(viewer, `/api/jobs/${receipt.run_id}`)).body;
    expect(before.run.status).toBe("running");
    const stream = await openEvents(viewer, `/api/jobs/${receipt.run_id}/events?after=${before.last_seq}`);
    const events = await stream.rest();
    const batches = events.filter((e) => e.event === "steps").map((e) => JSON.parse(e.data) as { steps: JobStep[]; last_seq: number });
    expect(batches.length).toBeGreaterThan(0);
    const sequences = batches.flatMap((b) => b.steps.map((s) => s.sequence));
    expect(sequences.every((seq) => seq > before.last_seq)).toBe(true);
    expect(batches.map((b) => b.last_seq)).toEqual([...batches.map((b) => b.last_seq)].sort((a, b) => a - b));
    expect(new Set(batches.map((b) => b.last_seq)).size).toBe(batches.length);
    expect(batches.flatMap((b) => b.steps).some((s) => s.kind === "assistant" && String(s.body).includes("Updated the wiki."))).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: "end" });
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ status: "done" });
    const runs = events.filter((e) => e.event === "run").map((e) => JSON.parse(e.data) as JobRun);
    expect(runs.at(-1)).toMatchObject({ run_id: receipt.run_id, status: "done" });
  });

  test("POST cancel with the token stops a running run through the jobs service: executor and agent are gone", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const startedFile = join(box.dir, "agent.pid");
    const receipt = garden(box, root, { FAKE_CLAUDE_SCENARIO: "hang", FAKE_CLAUDE_STARTED_FILE: startedFile });
    const agent = Number(await waitForFile(startedFile));
    const executor = (await waitForStatus(box, receipt.run_id, ["running"])).executor_pid!;
    const viewer = await startViewer(box, { cwd: root });
    const token = await shellToken(viewer);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const reply = await cancel(viewer, receipt.run_id, { "x-codealmanac-token": token!, origin: viewer.origin });
    expect(reply.status).toBe(200);
    expect(reply.json<{ run: JobRun; outcome: string }>()).toMatchObject({ outcome: "cancelled", run: { run_id: receipt.run_id, status: "cancelled" } });
    expect(processAlive(agent)).toBe(false);
    expect(processAlive(executor)).toBe(false);
    expect(readRun(box, receipt.run_id)?.status).toBe("cancelled");
  });

  test("cancel refuses a missing or wrong token, another origin, a cross-site fetch and a non-JSON body; the run stays queued", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    const viewer = await startViewer(box, { cwd: root });
    const token = (await shellToken(viewer))!;
    const refusals: [Record<string, string>, string][] = [
      [{}, "cancel needs this launch's token in the X-CodeAlmanac-Token header"],
      [{ "x-codealmanac-token": "not-the-token" }, "cancel needs this launch's token in the X-CodeAlmanac-Token header"],
      [{ "x-codealmanac-token": token, origin: "http://evil.example" }, "cross-origin requests cannot cancel jobs"],
      [{ "x-codealmanac-token": token, origin: `http://localhost:${viewer.port + 1}` }, "cross-origin requests cannot cancel jobs"],
      [{ "x-codealmanac-token": token, "sec-fetch-site": "cross-site" }, "cross-origin requests cannot cancel jobs"],
      [{ "x-codealmanac-token": token, "content-type": "text/plain" }, "cancel needs Content-Type: application/json"],
    ];
    for (const [headers, message] of refusals) {
      const reply = await cancel(viewer, run.run_id, headers);
      expect(reply.status, JSON.stringify(headers)).toBe(403);
      expect(reply.json()).toEqual({ error: { code: "forbidden", message } });
    }
    expect(readRun(box, run.run_id)?.status).toBe("queued");
    const wrongMethod = await fetch(`${viewer.origin}/api/jobs/${run.run_id}/cancel`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await wrongMethod.json()).toEqual({ error: { code: "method_not_allowed", message: "GET is not allowed here: cancel is a POST" } });
    expect(readRun(box, run.run_id)?.status).toBe("queued");
  });

  test("cancel of a queued run, then again: cancelled, then unchanged; another wiki's run is not found", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    otherWiki();
    const viewer = await startViewer(box, { cwd: root });
    const headers = { "x-codealmanac-token": (await shellToken(viewer))! };
    const elsewhere = await raw404(viewer.origin, run.run_id, headers);
    expect(elsewhere).toEqual({ error: { code: "not_found", message: `run not found: ${run.run_id}` } });
    expect(readRun(box, run.run_id)?.status).toBe("queued");
    const first = await cancel(viewer, run.run_id, headers);
    expect(first.json<{ outcome: string; run: JobRun }>()).toMatchObject({ outcome: "cancelled", run: { status: "cancelled" } });
    const again = await cancel(viewer, run.run_id, headers);
    expect(again.json<{ outcome: string; run: JobRun }>()).toMatchObject({ outcome: "unchanged", run: { status: "cancelled" } });
  });
});

async function raw404(origin: string, runId: string, headers: Record<string, string>) {
  const res = await fetch(`${origin}/api/jobs/${runId}/cancel?wiki=other`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: "{}",
  });
  expect(res.status).toBe(404);
  return res.json();
}
