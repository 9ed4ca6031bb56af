import { afterEach, describe, expect, test } from "vitest";
import { join } from "node:path";
import { insertRun } from "../../src/queue/producer.js";
import { RunEnvironments } from "../../src/queue/run-environment.js";
import type { HookName } from "../../src/queue/hooks.js";
import { Affiliator } from "../../src/repositories/affiliation.js";
import { notFound } from "../../src/core/errors.js";
import type { Repository } from "../../src/repositories/model.js";
import { parseSpec, type RunSpec } from "../../src/runs/spec.js";
import type { TranscriptApp, TranscriptFile, TranscriptMeta } from "../../src/sync/discovery/index.js";
import type { Extent } from "../../src/sync/extent.js";
import { SyncService, type SyncRequest } from "../../src/sync/service.js";
import { reservation, syncState, type SyncState } from "./state.js";

/**
 * SyncService with a real SyncStore and RunStore on a temporary database, and fake
 * ports for discovery, preparing the run and waking the worker.
 */
const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;

const repo = (id: string, rootPath: string): Repository => ({ repositoryId: id, name: id.replace(/^repo_/, ""), description: "", rootPath, registeredAt: 0 });
const REPO_A = repo("repo_a", "/work/a");
const REPO_B = repo("repo_b", "/work/b");

interface Prepared {
  repository: Repository;
  addresses: string[];
  options: { using?: string; title: string; guidance: string };
}

interface Rig {
  state: SyncState;
  service: SyncService;
  clock: { now: number; step: number; calls: number };
  files: TranscriptFile[];
  inactive: number;
  metas: Map<string, TranscriptMeta>;
  extents: Map<string, Extent>;
  listed: (readonly TranscriptApp[])[];
  lookback: number;
  prepared: Prepared[];
  prepareFails: Map<string, Error>;
  wakes: number;
  wakeFails: Error | null;
  /** Runs when sync reaches `syncBeforeReserve`, each time. */
  beforeReserve: (() => void) | null;
  wikiAsked: string[];
}

let rigs: Rig[] = [];
afterEach(() => {
  for (const r of rigs) r.state.close();
  rigs = [];
});

function rig(existing?: SyncState): Rig {
  const state = existing ?? syncState();
  const r: Rig = {
    state,
    service: undefined as unknown as SyncService,
    clock: { now: NOW, step: 0, calls: 0 },
    files: [],
    inactive: 0,
    metas: new Map(),
    extents: new Map(),
    listed: [],
    lookback: 5 * HOUR,
    prepared: [],
    prepareFails: new Map(),
    wakes: 0,
    wakeFails: null,
    beforeReserve: null,
    wikiAsked: [],
  };
  const now = () => {
    const at = r.clock.now + r.clock.calls * r.clock.step;
    r.clock.calls += 1;
    return at;
  };
  r.service = new SyncService({
    store: state.store,
    runs: state.runs,
    repositories: {
      byName: (name) => {
        r.wikiAsked.push(name);
        const found = [REPO_A, REPO_B].find((x) => x.name === name);
        if (!found) throw notFound("repository", name);
        return found;
      },
      affiliator: () => new Affiliator([REPO_A, REPO_B]),
    },
    privacyRules: async () => ({}),
    countRedactions: async () => [],
    discovery: {
      list: async (apps) => {
        r.listed.push(apps);
        return { files: r.files.filter((f) => apps.includes(f.app)), inactive: r.inactive, subagentFiles: 0 };
      },
      readMetas: async (files) => files.map((f) => ({ ok: true as const, meta: r.metas.get(f.path)! })),
      extent: async (path, _size, at) => {
        const e = r.extents.get(path)!;
        return { ...e, atPrint: at === 0 ? null : e.atPrint };
      },
    },
    now,
    lookbackMs: async () => r.lookback,
    prepareIngest: async (repository, addresses, options) => {
      r.prepared.push({ repository, addresses, options });
      const failure = r.prepareFails.get(repository.repositoryId);
      if (failure) throw failure;
      return specFor(addresses, options);
    },
    insertRun: (repository, spec) =>
      insertRun({ runs: state.runs, now, runLogDir: "/tmp/logs", environments: new RunEnvironments(join(state.dir, "runs")), env: {} }, { repository, kind: "ingest", spec }),
    reviseQueued: (runId, revise) => state.runs.reviseQueuedSpec(runId, now(), revise, parseSpec),
    wake: () => {
      r.wakes += 1;
      if (r.wakeFails) throw r.wakeFails;
    },
    hooks: { run: (name: HookName) => (name === "syncBeforeReserve" ? r.beforeReserve?.() : undefined) },
  });
  rigs.push(r);
  return r;
}

function specFor(addresses: string[], options: { using?: string; title: string; guidance: string }): RunSpec {
  return {
    version: 1,
    kind: "ingest",
    harness: options.using ?? "claude",
    model: "m",
    inputs: addresses.map((a) => `label of ${a}`),
    sources: addresses.map((address) => ({ address })),
    title: options.title,
    guidance: options.guidance,
    auto_commit: false,
  };
}

interface TranscriptOptions {
  app?: TranscriptApp;
  cwd?: string;
  size?: number;
  mtimeMs?: number;
  activity?: number;
  end?: number;
  print?: string;
  atPrint?: string | null;
}

/** A transcript the fake discovery lists: active an hour ago, its complete lines ending at `end`. */
function transcript(r: Rig, name: string, o: TranscriptOptions = {}): string {
  const app = o.app ?? "claude";
  const path = `/home/${app}/${name}.jsonl`;
  r.files = r.files.filter((f) => f.path !== path);
  r.files.push({ app, path, size: o.size ?? (o.end ?? 1_000) + 10, mtimeMs: o.mtimeMs ?? NOW - HOUR });
  r.metas.set(path, { app, path, sessionId: name, cwd: o.cwd ?? "/work/a", startedAtMs: 0, lastActivityMs: o.activity ?? NOW - HOUR, ownRun: false });
  r.extents.set(path, { end: o.end ?? 1_000, endPrint: o.print ?? `p${o.end ?? 1_000}`, atPrint: o.atPrint === undefined ? `p${o.end ?? 1_000}` : o.atPrint });
  return path;
}

/** Grows a transcript: its old end keeps its fingerprint, and the new end has its own. */
function grow(r: Rig, name: string, from: number, to: number, o: TranscriptOptions = {}): string {
  return transcript(r, name, { end: to, atPrint: `p${from}`, size: to + 10, mtimeMs: NOW - HOUR / 2, ...o });
}

const sync = (r: Rig, request: Partial<SyncRequest> = {}) => r.service.sync({ apps: ["claude", "codex"], ...request });
const status = (r: Rig, request: Partial<SyncRequest> = {}) => r.service.status({ apps: ["claude", "codex"], ...request });
const runs = (r: Rig) => r.state.runs.listRuns({});
const specOf = (r: Rig, runId: string) => JSON.parse(r.state.runs.requireRun(runId).specJson) as RunSpec;
const cursor = (r: Rig, path: string) => r.state.store.cursors().get(path);
const setStatus = (r: Rig, runId: string, s: string) => r.state.db.prepare("UPDATE runs SET status = ? WHERE run_id = ?").run(s, runId);

describe("status", () => {
  test("plans and writes nothing: no cursor, no run, no scan time, no wake", async () => {
    const r = rig();
    const a = transcript(r, "a");
    r.inactive = 3;
    const summary = await status(r);
    expect(summary).toEqual({
      mode: "status",
      since: NOW - 5 * HOUR,
      completedAt: null,
      scanned: 4,
      eligible: 1,
      ready: [{ repositoryId: "repo_a", repositoryName: "a", repositoryRoot: "/work/a", transcriptPaths: [a], redactions: [{ transcriptPath: a, redactions: [] }] }],
      started: [],
      skipped: [],
      unchanged: 0,
    });
    expect(r.state.store.cursors()).toEqual(new Map());
    expect(r.state.store.scans()).toEqual(new Map());
    expect(runs(r)).toEqual([]);
    expect(r.prepared).toEqual([]);
    expect(r.wakes).toBe(0);
    expect(r.listed).toEqual([["claude", "codex"]]);
  });

  test("previews settlements without writing them", async () => {
    const r = rig();
    const a = transcript(r, "a", { end: 1_000 });
    const first = (await sync(r)).started[0]!;
    setStatus(r, first.runId, "done");
    grow(r, "a", 1_000, 1_500);
    const before = cursor(r, a);
    const preview = await status(r);
    expect(preview.ready.map((g) => g.transcriptPaths)).toEqual([[a]]);
    expect(preview.skipped).toEqual([]);
    expect(cursor(r, a)).toEqual(before);
    const queued = (await sync(r)).started[0]!;
    expect(specOf(r, queued.runId).sources).toEqual([{ address: `transcript:${a}#bytes=1000-1500` }]);
  });
});

describe("sync", () => {
  test("queues one run per repository with the new bytes of each transcript, marks them pending, and wakes one worker", async () => {
    const r = rig();
    const a1 = transcript(r, "a1", { end: 700, activity: NOW - 2 * HOUR });
    const a2 = transcript(r, "a2", { app: "codex", end: 800 });
    const b = transcript(r, "b", { cwd: "/work/b/src", end: 900 });
    r.inactive = 2;
    const summary = await sync(r);
    expect(summary.mode).toBe("sync");
    expect(summary.completedAt).toBe(NOW);
    expect(summary.scanned).toBe(5);
    expect(summary.eligible).toBe(3);
    expect(summary.ready).toEqual([]);
    expect(summary.skipped).toEqual([]);
    expect(summary.unchanged).toBe(0);
    const [ra, rb] = summary.started;
    expect(summary.started).toHaveLength(2);
    expect(ra).toEqual({ repositoryId: "repo_a", repositoryName: "a", repositoryRoot: "/work/a", transcriptPaths: [a1, a2], runId: ra!.runId, joined: false });
    expect(rb).toEqual({ repositoryId: "repo_b", repositoryName: "b", repositoryRoot: "/work/b", transcriptPaths: [b], runId: rb!.runId, joined: false });
    expect(r.prepared.map((p) => [p.repository.repositoryId, p.addresses])).toEqual([
      ["repo_a", [`transcript:${a1}#bytes=0-700`, `transcript:${a2}#bytes=0-800`]],
      ["repo_b", [`transcript:${b}#bytes=0-900`]],
    ]);
    expect(r.prepared[0]!.options).toEqual({
      title: "Sync 2 transcripts",
      guidance: expect.stringContaining(`- Claude Code a1: ${a1} (bytes 0–700)`),
    });
    expect(r.prepared[1]!.options.title).toBe("Sync claude transcript b");
    expect(specOf(r, ra!.runId).inputs).toEqual([`label of transcript:${a1}#bytes=0-700`, `label of transcript:${a2}#bytes=0-800`]);
    expect(r.state.runs.requireRun(ra!.runId)).toMatchObject({ status: "queued", kind: "ingest", repositoryId: "repo_a" });
    expect(cursor(r, a1)).toMatchObject({ pendingRunId: ra!.runId, ingestedOffset: 0, pendingOffset: 700, pendingPrint: "p700", seenSize: 710 });
    expect(cursor(r, b)).toMatchObject({ pendingRunId: rb!.runId, pendingOffset: 900 });
    expect(r.wakes).toBe(1);
  });

  test("--using is passed to the run; without it the options name no harness", async () => {
    const r = rig();
    transcript(r, "a");
    await sync(r, { using: "codex" });
    expect(r.prepared[0]!.options.using).toBe("codex");
    transcript(r, "b");
    await sync(r);
    expect("using" in r.prepared[1]!.options).toBe(false);
  });

  test("nothing to queue: no run, no wake, and the whole scan is still recorded", async () => {
    const r = rig();
    const summary = await sync(r);
    expect(summary.started).toEqual([]);
    expect(r.wakes).toBe(0);
    expect(r.state.store.scans()).toEqual(new Map([["claude", NOW], ["codex", NOW]]));
  });

  test("a transcript waiting on its run is in-flight and is not queued again", async () => {
    const r = rig();
    const a = transcript(r, "a");
    const first = (await sync(r)).started[0]!;
    setStatus(r, first.runId, "running");
    const again = await sync(r);
    expect(again.started).toEqual([]);
    expect(again.skipped).toEqual([{ transcriptPath: a, reason: `in-flight: ${first.runId} (running)`, app: "claude", sessionId: "a", cwd: "/work/a" }]);
    expect(runs(r)).toHaveLength(1);
    expect(r.wakes).toBe(1);
  });

  test("--wiki asks for that repository and leaves the others' transcripts alone", async () => {
    const r = rig();
    const a = transcript(r, "a");
    const b = transcript(r, "b", { cwd: "/work/b" });
    const summary = await sync(r, { wiki: "b" });
    expect(r.wikiAsked).toEqual(["b"]);
    expect(summary.started.map((s) => s.transcriptPaths)).toEqual([[b]]);
    expect(summary.skipped).toEqual([{ transcriptPath: a, reason: "other-wiki", app: "claude", sessionId: "a", cwd: "/work/a" }]);
    expect(cursor(r, a)).toBeUndefined();
  });

  test("--from lists only those apps", async () => {
    const r = rig();
    transcript(r, "a");
    const c = transcript(r, "c", { app: "codex" });
    const summary = await sync(r, { apps: ["codex"] });
    expect(r.listed).toEqual([["codex"]]);
    expect(summary.started.flatMap((s) => s.transcriptPaths)).toEqual([c]);
  });

  test("a transcript a run of ours left is own-run", async () => {
    const r = rig();
    transcript(r, "a");
    const first = (await sync(r)).started[0]!;
    r.state.runs.recordHarnessSession(first.runId, { kind: "claude", sessionId: "ours", transcriptPath: null });
    transcript(r, "ours");
    const summary = await sync(r);
    expect(summary.skipped.map((s) => [s.sessionId, s.reason])).toEqual([
      ["a", `in-flight: ${first.runId} (queued)`],
      ["ours", "own-run"],
    ]);
  });
});

describe("settlement of the runs cursors wait on", () => {
  test("done: the part is absorbed; nothing new is no-new-activity, and what is appended is taken from there", async () => {
    const r = rig();
    const a = transcript(r, "a", { end: 1_000 });
    const first = (await sync(r)).started[0]!;
    setStatus(r, first.runId, "done");
    r.files[0]!.mtimeMs += 1;
    const idle = await sync(r);
    expect(idle.started).toEqual([]);
    expect(idle.skipped.map((s) => s.reason)).toEqual(["no-new-activity"]);
    expect(cursor(r, a)).toMatchObject({ ingestedOffset: 1_000, ingestedPrint: "p1000", pendingRunId: null, seenSize: 1_010 });
    grow(r, "a", 1_000, 1_600);
    const next = (await sync(r)).started[0]!;
    expect(specOf(r, next.runId).sources).toEqual([{ address: `transcript:${a}#bytes=1000-1600` }]);
  });

  test.each(["failed", "cancelled"])("%s: the same bytes are offered again, even though the file is unchanged", async (outcome) => {
    const r = rig();
    const a = transcript(r, "a", { end: 1_000 });
    const first = (await sync(r)).started[0]!;
    setStatus(r, first.runId, outcome);
    const retry = await sync(r);
    expect(retry.unchanged).toBe(0);
    expect(specOf(r, retry.started[0]!.runId).sources).toEqual([{ address: `transcript:${a}#bytes=0-1000` }]);
    expect(retry.started[0]!.runId).not.toBe(first.runId);
  });

  test("a run the ledger no longer holds is taken as failed: its part is offered again", async () => {
    const r = rig();
    const a = transcript(r, "a", { end: 1_000 });
    const first = (await sync(r)).started[0]!;
    r.state.db.prepare("DELETE FROM runs WHERE run_id = ?").run(first.runId);
    const retry = await sync(r);
    expect(specOf(r, retry.started[0]!.runId).sources).toEqual([{ address: `transcript:${a}#bytes=0-1000` }]);
  });

  test("a pruned run's cursor was settled by the prune: done stays absorbed, failed is offered again", async () => {
    const r = rig();
    const done = transcript(r, "done", { end: 1_000 });
    const firstDone = (await sync(r)).started[0]!;
    const failed = transcript(r, "failed", { end: 2_000 });
    const firstFailed = (await sync(r)).started[0]!;
    setStatus(r, firstDone.runId, "done");
    setStatus(r, firstFailed.runId, "failed");
    r.state.runs.pruneRuns(Number.MAX_SAFE_INTEGER, (pruned) => r.state.store.settleRuns(pruned, NOW));
    expect(runs(r)).toEqual([]);
    const after = await sync(r);
    expect(after.started.map((s) => s.transcriptPaths)).toEqual([[failed]]);
    expect(after.unchanged).toBe(1);
    expect(cursor(r, done)).toMatchObject({ ingestedOffset: 1_000, pendingRunId: null });
  });

  test("a run still queued or running keeps its cursor waiting", async () => {
    const r = rig();
    const a = transcript(r, "a");
    const first = (await sync(r)).started[0]!;
    await sync(r);
    expect(cursor(r, a)).toMatchObject({ pendingRunId: first.runId, pendingOffset: 1_000 });
  });
});

describe("a transcript changed under the cursor", () => {
  test("rewritten since it was absorbed: taken again from its start", async () => {
    const r = rig();
    const a = transcript(r, "a", { end: 1_000 });
    setStatus(r, (await sync(r)).started[0]!.runId, "done");
    transcript(r, "a", { end: 1_400, atPrint: "someone else's bytes", mtimeMs: NOW - 1 });
    const again = (await sync(r)).started[0]!;
    expect(specOf(r, again.runId).sources).toEqual([{ address: `transcript:${a}#bytes=0-1400` }]);
    expect(cursor(r, a)).toMatchObject({ ingestedOffset: 0, ingestedPrint: null, pendingOffset: 1_400 });
  });
});

describe("two syncs at once", () => {
  test("a cursor taken between plan and reserve: nothing is queued twice", async () => {
    const r = rig();
    const a = transcript(r, "a");
    // What a second sync's reservation does, at the exact point between this sync's plan and its own.
    r.beforeReserve = () => {
      r.beforeReserve = null;
      expect(r.state.open().store.reserveAndQueue([reservation(a, { toOffset: 1_000 })], NOW, () => "ingest-inner")).not.toBeNull();
    };
    const summary = await sync(r);
    expect(summary.started).toEqual([]);
    expect(summary.skipped).toEqual([{ transcriptPath: a, reason: "taken-by-another-sync", app: "claude", sessionId: "a", cwd: "/work/a" }]);
    expect(runs(r)).toEqual([]);
    expect(cursor(r, a)?.pendingRunId).toBe("ingest-inner");
    expect(r.wakes).toBe(0);
    expect(r.state.store.scans()).toEqual(new Map([["claude", NOW], ["codex", NOW]]));
  });

  test("a second sync planned from the same cursors finds them pending and queues nothing", async () => {
    const r = rig();
    transcript(r, "a");
    const other = rig(r.state);
    other.files = r.files;
    other.metas = r.metas;
    other.extents = r.extents;
    const first = await sync(r);
    const second = await other.service.sync({ apps: ["claude"] });
    expect(second.started).toEqual([]);
    expect(second.skipped.map((s) => s.reason)).toEqual([`in-flight: ${first.started[0]!.runId} (queued)`]);
    expect(runs(r)).toHaveLength(1);
  });

  test("when another sync took some of a group's transcripts, the run covers only the rest: inputs, sources, title and guidance", async () => {
    const r = rig();
    const a = transcript(r, "a", { end: 700 });
    const b = transcript(r, "b", { end: 800 });
    const c = transcript(r, "c", { end: 900 });
    r.beforeReserve = () => {
      r.beforeReserve = null;
      r.state.store.reserveAndQueue([reservation(a, { toOffset: 700 }), reservation(c, { toOffset: 900 })], NOW, () => "ingest-inner");
    };
    const summary = await sync(r);
    expect(summary.started).toEqual([{ repositoryId: "repo_a", repositoryName: "a", repositoryRoot: "/work/a", transcriptPaths: [b], runId: summary.started[0]!.runId, joined: false }]);
    expect(summary.skipped).toEqual([
      { transcriptPath: a, reason: "taken-by-another-sync", app: "claude", sessionId: "a", cwd: "/work/a" },
      { transcriptPath: c, reason: "taken-by-another-sync", app: "claude", sessionId: "c", cwd: "/work/a" },
    ]);
    const spec = specOf(r, summary.started[0]!.runId);
    expect(spec.inputs).toEqual([`label of transcript:${b}#bytes=0-800`]);
    expect(spec.sources).toEqual([{ address: `transcript:${b}#bytes=0-800` }]);
    expect(spec.title).toBe("Sync claude transcript b");
    expect(spec.guidance).toContain(`- Claude Code b: ${b} (bytes 0–800)`);
    expect(spec.guidance).not.toContain(a);
    expect(spec.guidance).not.toContain(c);
    expect(spec).toMatchObject({ version: 1, kind: "ingest", harness: "claude", model: "m", auto_commit: false });
    expect(cursor(r, b)?.pendingRunId).toBe(summary.started[0]!.runId);
    expect(r.wakes).toBe(1);
  });

  test("with all of a group kept, the prepared spec is queued as it is", async () => {
    const r = rig();
    transcript(r, "a", { end: 700 });
    transcript(r, "b", { end: 800 });
    const summary = await sync(r);
    const spec = specOf(r, summary.started[0]!.runId);
    expect(spec).toEqual(specFor(r.prepared[0]!.addresses, r.prepared[0]!.options));
  });
});

describe("failures", () => {
  test("a group that cannot be queued is skipped as queue-failed; the others are queued; no scan time is recorded", async () => {
    const r = rig();
    const a1 = transcript(r, "a1");
    const a2 = transcript(r, "a2");
    const b = transcript(r, "b", { cwd: "/work/b" });
    r.prepareFails.set("repo_a", new Error("no agent installed\nsecond line"));
    const summary = await sync(r);
    expect(summary.started.map((s) => s.transcriptPaths)).toEqual([[b]]);
    expect(summary.skipped).toEqual([
      { transcriptPath: a1, reason: "queue-failed: no agent installed", app: "claude", sessionId: "a1", cwd: "/work/a" },
      { transcriptPath: a2, reason: "queue-failed: no agent installed", app: "claude", sessionId: "a2", cwd: "/work/a" },
    ]);
    expect(cursor(r, a1)).toBeUndefined();
    expect(r.state.store.scans()).toEqual(new Map());
    expect(r.wakes).toBe(1);
  });

  test("a worker that cannot be started leaves the runs queued and says so for every transcript started", async () => {
    const r = rig();
    const a1 = transcript(r, "a1");
    const a2 = transcript(r, "a2");
    const b = transcript(r, "b", { cwd: "/work/b" });
    r.wakeFails = new Error("spawn EAGAIN");
    const summary = await sync(r);
    expect(summary.started).toHaveLength(2);
    expect(summary.skipped).toEqual([
      { transcriptPath: a1, reason: "worker-spawn-failed: spawn EAGAIN" },
      { transcriptPath: a2, reason: "worker-spawn-failed: spawn EAGAIN" },
      { transcriptPath: b, reason: "worker-spawn-failed: spawn EAGAIN" },
    ]);
    expect(runs(r).map((run) => run.status)).toEqual(["queued", "queued"]);
    expect(r.wakes).toBe(1);
    expect(r.state.store.scans()).toEqual(new Map([["claude", NOW], ["codex", NOW]]));
  });
});

describe("the window and the recorded scan time", () => {
  test("the first sync looks back the lookback; a transcript older than that is inactive", async () => {
    const r = rig();
    const old = transcript(r, "old", { mtimeMs: NOW - 5 * HOUR - 1, activity: NOW - 5 * HOUR - 1 });
    const edge = transcript(r, "edge", { mtimeMs: NOW - 5 * HOUR, activity: NOW - 5 * HOUR });
    const summary = await status(r);
    expect(summary.since).toBe(NOW - 5 * HOUR);
    expect(summary.skipped).toEqual([{ transcriptPath: old, reason: "inactive", app: "claude" }]);
    expect(summary.ready.flatMap((g) => g.transcriptPaths)).toEqual([edge]);
  });

  test("after a whole scan the window reaches back to it when that is older than the lookback, per app", async () => {
    const r = rig();
    r.state.store.recordScan("claude", NOW - 9 * HOUR);
    r.state.store.recordScan("codex", NOW - 2 * HOUR);
    const claude = transcript(r, "claude", { mtimeMs: NOW - 8 * HOUR, activity: NOW - 8 * HOUR });
    const codex = transcript(r, "codex", { app: "codex", mtimeMs: NOW - 6 * HOUR, activity: NOW - 6 * HOUR });
    const summary = await status(r);
    expect(summary.since).toBe(NOW - 9 * HOUR);
    expect(summary.ready.flatMap((g) => g.transcriptPaths)).toEqual([claude]);
    expect(summary.skipped).toEqual([{ transcriptPath: codex, reason: "inactive", app: "codex" }]);
    expect((await status(r, { apps: ["codex"] })).since).toBe(NOW - 5 * HOUR);
  });

  test("--since sets the window whatever was scanned before", async () => {
    const r = rig();
    r.state.store.recordScan("claude", NOW - 9 * HOUR);
    const old = transcript(r, "old", { mtimeMs: NOW - 20 * HOUR, activity: NOW - 20 * HOUR });
    transcript(r, "recent", { mtimeMs: NOW - 2 * HOUR, activity: NOW - 2 * HOUR });
    const wide = await status(r, { sinceMs: NOW - 30 * HOUR });
    expect(wide.since).toBe(NOW - 30 * HOUR);
    expect(wide.eligible).toBe(2);
    const narrow = await status(r, { sinceMs: NOW - 3 * HOUR });
    expect(narrow.since).toBe(NOW - 3 * HOUR);
    expect(narrow.skipped).toEqual([{ transcriptPath: old, reason: "inactive", app: "claude" }]);
  });

  test("a whole scan records when it started, not when it completed, for the apps it scanned", async () => {
    const r = rig();
    r.clock.step = 1_000;
    transcript(r, "a");
    const summary = await sync(r, { apps: ["claude"] });
    expect(r.state.store.scans()).toEqual(new Map([["claude", NOW]]));
    expect(summary.completedAt).toBeGreaterThan(NOW);
  });

  test("a --wiki scan records nothing", async () => {
    const r = rig();
    transcript(r, "a");
    await sync(r, { wiki: "a" });
    expect(r.state.store.scans()).toEqual(new Map());
  });

  test("a scan that deferred transcripts with no cursor records no later than their activity, so the next window reaches them", async () => {
    const r = rig();
    for (let i = 0; i < 25; i++) transcript(r, `t${String(i).padStart(2, "0")}`, { activity: NOW - HOUR });
    const deferred = transcript(r, "late", { mtimeMs: NOW - 3 * HOUR, activity: NOW - 4 * HOUR });
    const first = await sync(r);
    expect(first.skipped.map((s) => [s.transcriptPath, s.reason.split(":")[0]])).toEqual([[deferred, "deferred"]]);
    expect(r.state.store.scans()).toEqual(new Map([["claude", NOW - 4 * HOUR], ["codex", NOW]]));
    setStatus(r, first.started[0]!.runId, "done");
    r.clock.now = NOW + 10 * HOUR;
    const second = await sync(r);
    expect(second.started.map((s) => s.transcriptPaths)).toEqual([[deferred]]);
    expect(r.state.store.scans()).toEqual(new Map([["claude", NOW + 10 * HOUR], ["codex", NOW + 10 * HOUR]]));
  });
});

