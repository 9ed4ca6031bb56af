import { describe, expect, test } from "vitest";
import type { Affiliation } from "../../src/repositories/affiliation.js";
import type { Repository } from "../../src/repositories/model.js";
import type { RunStatus } from "../../src/runs/model.js";
import type { DiscoverySkip, TranscriptApp, TranscriptFile, TranscriptMeta } from "../../src/sync/discovery/index.js";
import type { Extent } from "../../src/sync/extent.js";
import { MAX_TRANSCRIPTS_PER_RUN, pathKeyOf, planSync, resumeAt, type PlanInputs } from "../../src/sync/plan.js";
import type { SyncCursor } from "../../src/sync/store.js";

/**
 * planSync through fake inputs: which files are opened, which are taken and which bytes,
 * and the reason for every one left out.
 */
const WINDOW = 100_000;

const repo = (id: string): Repository => ({ repositoryId: id, name: id.replace(/^repo_/, ""), description: "", rootPath: `/work/${id}`, registeredAt: 0 });
const REPO_A = repo("repo_a");
const REPO_B = repo("repo_b");

interface World {
  files: TranscriptFile[];
  metas: Map<string, { ok: true; meta: TranscriptMeta } | { ok: false; skip: DiscoverySkip }>;
  extents: Map<string, Extent | Error | string>;
  cursors: Map<string, SyncCursor>;
  pendingStatus: Map<string, RunStatus>;
  affiliations: Map<string, Affiliation>;
  footprints: { sessionIds: Set<string>; transcriptPaths: Set<string> };
  onlyRepositoryId: string | null;
  exclude?: string[];
  windows: Partial<Record<TranscriptApp, number>>;
  /** What the plan opened: the files it read metas of, and the extents it asked for. */
  opened: string[][];
  extentCalls: [string, number, number][];
}

function world(): World {
  return {
    files: [],
    metas: new Map(),
    extents: new Map(),
    cursors: new Map(),
    pendingStatus: new Map(),
    affiliations: new Map([
      ["/work/repo_a", { ok: true, repository: REPO_A, kind: "root" }],
      ["/work/repo_b", { ok: true, repository: REPO_B, kind: "root" }],
      ["/elsewhere", { ok: false, reason: "unregistered-cwd" }],
      ["/gone", { ok: false, reason: "cwd-missing" }],
    ]),
    footprints: { sessionIds: new Set(), transcriptPaths: new Set() },
    onlyRepositoryId: null,
    windows: {},
    opened: [],
    extentCalls: [],
  };
}

interface TranscriptOptions {
  app?: TranscriptApp;
  size?: number;
  mtimeMs?: number;
  sessionId?: string;
  cwd?: string;
  activity?: number;
  ownRun?: boolean;
  /** Complete lines end here; `extent: null` makes the extent read fail. */
  end?: number;
  endPrint?: string | null;
  atPrint?: string | null;
}

/** A transcript on disk: its stat, the meta read from it, and where its complete lines end. */
function transcript(w: World, path: string, o: TranscriptOptions = {}): TranscriptFile {
  const app = o.app ?? "claude";
  const file = { app, path, size: o.size ?? 1_000, mtimeMs: o.mtimeMs ?? 200_000 };
  w.files.push(file);
  const meta: TranscriptMeta = {
    app,
    path,
    sessionId: o.sessionId ?? `s-${path}`,
    cwd: o.cwd ?? "/work/repo_a",
    startedAtMs: 1,
    lastActivityMs: o.activity ?? 150_000,
    ownRun: o.ownRun ?? false,
  };
  w.metas.set(path, { ok: true, meta });
  w.extents.set(path, { end: o.end ?? 900, endPrint: o.endPrint === undefined ? `end-${path}` : o.endPrint, atPrint: o.atPrint === undefined ? null : o.atPrint });
  return file;
}

function cursor(w: World, path: string, c: Partial<SyncCursor> = {}): SyncCursor {
  const made: SyncCursor = {
    pathKey: pathKeyOf(path),
    app: "claude",
    path,
    sessionId: `s-${path}`,
    repositoryId: "repo_a",
    ingestedOffset: 400,
    ingestedActivity: 1,
    ingestedPrint: "p400",
    seenSize: 500,
    seenMtime: 190_000,
    pendingRunId: null,
    pendingOffset: null,
    pendingActivity: null,
    pendingPrint: null,
    ...c,
  };
  w.cursors.set(made.pathKey, made);
  return made;
}

function inputs(w: World): PlanInputs {
  return {
    files: w.files,
    cursors: w.cursors,
    pendingStatus: w.pendingStatus,
    windowStart: (app) => w.windows[app] ?? WINDOW,
    footprints: w.footprints,
    affiliator: { affiliate: (cwd) => w.affiliations.get(cwd) ?? { ok: false, reason: "unregistered-cwd" } },
    onlyRepositoryId: w.onlyRepositoryId,
    exclude: w.exclude ?? [],
    readMetas: async (files) => {
      w.opened.push(files.map((f) => f.path));
      return files.map((f) => w.metas.get(f.path)!);
    },
    extent: async (path, size, at) => {
      w.extentCalls.push([path, size, at]);
      const extent = w.extents.get(path)!;
      if (extent instanceof Error || typeof extent === "string") throw extent;
      return extent;
    },
  };
}

const plan = (w: World) => planSync(inputs(w));
const reasons = (p: Awaited<ReturnType<typeof planSync>>) => p.skipped.map((s) => [s.transcriptPath, s.reason]);
const taken = (p: Awaited<ReturnType<typeof planSync>>) => p.groups.flatMap((g) => g.transcripts.map((t) => t.path));

describe("judged by stat, before opening", () => {
  test("a cursor's file with the size and mtime the last sync saw is unchanged and never opened", async () => {
    const w = world();
    cursor(w, "/t/same.jsonl", { seenSize: 1_000, seenMtime: 200_000 });
    transcript(w, "/t/same.jsonl", { size: 1_000, mtimeMs: 200_000.9 });
    const p = await plan(w);
    expect(p).toEqual({ groups: [], skipped: [], unchanged: 1, eligible: 0, heldBack: new Map() });
    expect(w.opened).toEqual([[]]);
  });

  test("another size, another mtime, or a run still pending: the file is opened", async () => {
    const w = world();
    cursor(w, "/t/size.jsonl", { seenSize: 999, seenMtime: 200_000 });
    transcript(w, "/t/size.jsonl");
    cursor(w, "/t/mtime.jsonl", { seenSize: 1_000, seenMtime: 200_001 });
    transcript(w, "/t/mtime.jsonl");
    cursor(w, "/t/pending.jsonl", { seenSize: 1_000, seenMtime: 200_000, pendingRunId: "ingest-7" });
    transcript(w, "/t/pending.jsonl");
    w.pendingStatus.set("ingest-7", "running");
    const p = await plan(w);
    expect(p.unchanged).toBe(0);
    expect(w.opened).toEqual([["/t/size.jsonl", "/t/mtime.jsonl", "/t/pending.jsonl"]]);
    expect(reasons(p)).toEqual([["/t/pending.jsonl", "in-flight: ingest-7 (running)"]]);
  });

  test("a file with no cursor last modified before its app's window is inactive and never opened; at the window's start it is opened", async () => {
    const w = world();
    w.windows = { claude: 100_000, codex: 300_000 };
    transcript(w, "/t/old.jsonl", { mtimeMs: 99_999 });
    transcript(w, "/t/edge.jsonl", { mtimeMs: 100_000, activity: 100_000 });
    transcript(w, "/t/codex.jsonl", { app: "codex", mtimeMs: 299_999, activity: 299_999 });
    const p = await plan(w);
    expect(p.skipped).toEqual([
      { transcriptPath: "/t/old.jsonl", reason: "inactive", app: "claude" },
      { transcriptPath: "/t/codex.jsonl", reason: "inactive", app: "codex" },
    ]);
    expect(w.opened).toEqual([["/t/edge.jsonl"]]);
    expect(taken(p)).toEqual(["/t/edge.jsonl"]);
  });

  test("a file with a cursor is opened however old it is", async () => {
    const w = world();
    cursor(w, "/t/old.jsonl", { seenSize: 1 });
    transcript(w, "/t/old.jsonl", { mtimeMs: 5, activity: 5, atPrint: "p400" });
    const p = await plan(w);
    expect(taken(p)).toEqual(["/t/old.jsonl"]);
  });
});

describe("judged by what the file says", () => {
  test("a file that could not be read is skipped with discovery's reason, and its identity when known", async () => {
    const w = world();
    transcript(w, "/t/a.jsonl");
    transcript(w, "/t/b.jsonl");
    w.metas.set("/t/a.jsonl", { ok: false, skip: { app: "claude", path: "/t/a.jsonl", reason: "empty" } });
    w.metas.set("/t/b.jsonl", { ok: false, skip: { app: "codex", path: "/t/b.jsonl", reason: "subagent", sessionId: "s9", cwd: "/w" } });
    const p = await plan(w);
    expect(p.skipped).toEqual([
      { transcriptPath: "/t/a.jsonl", reason: "empty", app: "claude" },
      { transcriptPath: "/t/b.jsonl", reason: "subagent", app: "codex", sessionId: "s9", cwd: "/w" },
    ]);
    expect(p.groups).toEqual([]);
  });

  test("no cursor and last activity before the window: inactive, even with a recent mtime; at the window's start it is taken", async () => {
    const w = world();
    transcript(w, "/t/touched.jsonl", { mtimeMs: 200_000, activity: 99_999, sessionId: "s1" });
    transcript(w, "/t/edge.jsonl", { mtimeMs: 200_000, activity: 100_000 });
    const p = await plan(w);
    expect(p.skipped).toEqual([{ transcriptPath: "/t/touched.jsonl", reason: "inactive", app: "claude", sessionId: "s1", cwd: "/work/repo_a" }]);
    expect(taken(p)).toEqual(["/t/edge.jsonl"]);
  });

  test("our own runs' transcripts are own-run: by marker, recorded session id, recorded path, or the path without .zst", async () => {
    const w = world();
    transcript(w, "/t/marked.jsonl", { ownRun: true });
    transcript(w, "/t/session.jsonl", { sessionId: "ours" });
    transcript(w, "/t/path.jsonl");
    transcript(w, "/t/zipped.jsonl.zst", { app: "codex" });
    transcript(w, "/t/user.jsonl");
    w.footprints = { sessionIds: new Set(["ours"]), transcriptPaths: new Set(["/t/path.jsonl", "/t/zipped.jsonl"]) };
    const p = await plan(w);
    expect(reasons(p)).toEqual([
      ["/t/marked.jsonl", "own-run"],
      ["/t/session.jsonl", "own-run"],
      ["/t/path.jsonl", "own-run"],
      ["/t/zipped.jsonl.zst", "own-run"],
    ]);
    expect(p.skipped[1]).toEqual({ transcriptPath: "/t/session.jsonl", reason: "own-run", app: "claude", sessionId: "ours", cwd: "/work/repo_a" });
    expect(taken(p)).toEqual(["/t/user.jsonl"]);
  });

  test("a compressed rollout recorded by its own path is own-run too", async () => {
    const w = world();
    transcript(w, "/t/zipped.jsonl.zst", { app: "codex" });
    w.footprints.transcriptPaths.add("/t/zipped.jsonl.zst");
    expect(reasons(await plan(w))).toEqual([["/t/zipped.jsonl.zst", "own-run"]]);
  });

  test("a cwd no repository claims is skipped with the affiliator's reason", async () => {
    const w = world();
    transcript(w, "/t/stranger.jsonl", { cwd: "/elsewhere", sessionId: "x" });
    transcript(w, "/t/gone.jsonl", { cwd: "/gone" });
    const p = await plan(w);
    expect(p.skipped).toEqual([
      { transcriptPath: "/t/stranger.jsonl", reason: "unregistered-cwd", app: "claude", sessionId: "x", cwd: "/elsewhere" },
      { transcriptPath: "/t/gone.jsonl", reason: "cwd-missing", app: "claude", sessionId: "s-/t/gone.jsonl", cwd: "/gone" },
    ]);
  });

  test("--wiki: another repository's transcripts are other-wiki; its own are taken", async () => {
    const w = world();
    transcript(w, "/t/a.jsonl");
    transcript(w, "/t/b.jsonl", { cwd: "/work/repo_b" });
    w.onlyRepositoryId = "repo_b";
    const p = await plan(w);
    expect(reasons(p)).toEqual([["/t/a.jsonl", "other-wiki"]]);
    expect(p.groups.map((g) => g.repository)).toEqual([REPO_B]);
  });

  test("a cursor waiting on a run is in-flight, with the run and its status", async () => {
    const w = world();
    cursor(w, "/t/a.jsonl", { pendingRunId: "ingest-3" });
    transcript(w, "/t/a.jsonl", { sessionId: "sa" });
    w.pendingStatus.set("ingest-3", "queued");
    const p = await plan(w);
    expect(p.skipped).toEqual([{ transcriptPath: "/t/a.jsonl", reason: "in-flight: ingest-3 (queued)", app: "claude", sessionId: "sa", cwd: "/work/repo_a" }]);
    expect(w.extentCalls).toEqual([]);
  });
});

describe("the bytes taken", () => {
  test("a transcript never seen is taken from 0 to the end of its complete lines, with every field of its reservation", async () => {
    const w = world();
    transcript(w, "/t/a.jsonl.zst", { app: "codex", size: 1_234, mtimeMs: 200_000.75, sessionId: "sa", activity: 160_000, end: 1_100, endPrint: "e1100" });
    const p = await plan(w);
    expect(w.extentCalls).toEqual([["/t/a.jsonl.zst", 1_234, 0]]);
    expect(p.groups).toEqual([
      {
        repository: REPO_A,
        transcripts: [
          {
            pathKey: "/t/a.jsonl",
            app: "codex",
            path: "/t/a.jsonl.zst",
            sessionId: "sa",
            cwd: "/work/repo_a",
            repositoryId: "repo_a",
            expected: null,
            fromOffset: 0,
            fromPrint: null,
            toOffset: 1_100,
            toPrint: "e1100",
            activity: 160_000,
            size: 1_234,
            mtime: 200_000,
          },
        ],
      },
    ]);
    expect(p.eligible).toBe(1);
    expect(p.skipped).toEqual([]);
  });

  test("a transcript appended to since is taken from its cursor, whose fingerprint still matches", async () => {
    const w = world();
    cursor(w, "/t/a.jsonl", { ingestedOffset: 400, ingestedPrint: "p400" });
    transcript(w, "/t/a.jsonl", { end: 900, endPrint: "p900", atPrint: "p400" });
    const p = await plan(w);
    expect(w.extentCalls).toEqual([["/t/a.jsonl", 1_000, 400]]);
    expect(p.groups[0]!.transcripts[0]).toMatchObject({ expected: { ingestedOffset: 400, ingestedPrint: "p400" }, fromOffset: 400, fromPrint: "p400", toOffset: 900, toPrint: "p900" });
  });

  test("a rewritten transcript is taken from 0, with no fingerprint at 0, while its reservation still expects the old cursor", async () => {
    const w = world();
    cursor(w, "/t/other-bytes.jsonl", { ingestedOffset: 400, ingestedPrint: "p400" });
    transcript(w, "/t/other-bytes.jsonl", { end: 900, atPrint: "not p400" });
    cursor(w, "/t/mid-line.jsonl", { ingestedOffset: 400, ingestedPrint: "p400" });
    transcript(w, "/t/mid-line.jsonl", { end: 900, atPrint: null });
    const p = await plan(w);
    for (const t of p.groups[0]!.transcripts) {
      expect(t).toMatchObject({ expected: { ingestedOffset: 400, ingestedPrint: "p400" }, fromOffset: 0, fromPrint: null, toOffset: 900 });
    }
    expect(p.eligible).toBe(2);
  });

  test("no new complete line past the cursor is no-new-activity; one byte more is taken", async () => {
    const w = world();
    cursor(w, "/t/none.jsonl", { ingestedOffset: 900, ingestedPrint: "p900" });
    transcript(w, "/t/none.jsonl", { end: 900, atPrint: "p900", sessionId: "sn" });
    cursor(w, "/t/one.jsonl", { ingestedOffset: 899, ingestedPrint: "p899" });
    transcript(w, "/t/one.jsonl", { end: 900, atPrint: "p899" });
    transcript(w, "/t/empty.jsonl", { end: 0, endPrint: null });
    const p = await plan(w);
    // Measured most recently active first, ties by path.
    expect(p.skipped).toEqual([
      { transcriptPath: "/t/empty.jsonl", reason: "no-new-activity", app: "claude", sessionId: "s-/t/empty.jsonl", cwd: "/work/repo_a" },
      { transcriptPath: "/t/none.jsonl", reason: "no-new-activity", app: "claude", sessionId: "sn", cwd: "/work/repo_a" },
    ]);
    expect(p.groups[0]!.transcripts.map((t) => [t.path, t.fromOffset, t.toOffset])).toEqual([["/t/one.jsonl", 899, 900]]);
  });

  test("a transcript whose complete lines cannot be measured is unreadable, with the error's message", async () => {
    const w = world();
    transcript(w, "/t/error.jsonl", { sessionId: "se" });
    transcript(w, "/t/thrown.jsonl");
    w.extents.set("/t/error.jsonl", new Error("EACCES: permission denied"));
    w.extents.set("/t/thrown.jsonl", "plain string");
    const p = await plan(w);
    expect(p.skipped).toEqual([
      { transcriptPath: "/t/error.jsonl", reason: "unreadable: EACCES: permission denied", app: "claude", sessionId: "se", cwd: "/work/repo_a" },
      { transcriptPath: "/t/thrown.jsonl", reason: "unreadable: plain string", app: "claude", sessionId: "s-/t/thrown.jsonl", cwd: "/work/repo_a" },
    ]);
    expect(p.groups).toEqual([]);
    expect(p.eligible).toBe(0);
  });
});

describe("resumeAt", () => {
  const base = { end: 900, endPrint: "p900" };
  const at = (c: Partial<SyncCursor>) => ({ ...cursor(world(), "/t/a.jsonl"), ...c });
  test.each([
    ["no cursor", null, { ...base, atPrint: null }, 0],
    ["fingerprint matches", at({ ingestedOffset: 400, ingestedPrint: "p400" }), { ...base, atPrint: "p400" }, 400],
    ["fingerprint differs", at({ ingestedOffset: 400, ingestedPrint: "p400" }), { ...base, atPrint: "p401" }, 0],
    ["cursor no longer on a line boundary", at({ ingestedOffset: 400, ingestedPrint: "p400" }), { ...base, atPrint: null }, 0],
    ["cursor older than fingerprints, on a boundary", at({ ingestedOffset: 400, ingestedPrint: null }), { ...base, atPrint: "anything" }, 400],
    ["cursor older than fingerprints, off a boundary", at({ ingestedOffset: 400, ingestedPrint: null }), { ...base, atPrint: null }, 0],
  ] as const)("%s", (_, c, extent, expected) => {
    expect(resumeAt(c, extent)).toBe(expected);
  });
});

describe("one run per repository, at most 25 transcripts each", () => {
  test("the limit is 25", () => {
    expect(MAX_TRANSCRIPTS_PER_RUN).toBe(25);
  });

  test("exactly 25 transcripts are all taken", async () => {
    const w = world();
    for (let i = 0; i < 25; i++) transcript(w, `/t/${String(i).padStart(2, "0")}.jsonl`);
    const p = await plan(w);
    expect(p.eligible).toBe(25);
    expect(p.skipped).toEqual([]);
    expect(p.heldBack).toEqual(new Map());
  });

  test("past 25 the least recently active are deferred (ties by path), never measured, and the window is held back for them", async () => {
    const w = world();
    for (let i = 0; i < 24; i++) transcript(w, `/t/${String(i).padStart(2, "0")}.jsonl`, { activity: 150_000 + i });
    transcript(w, "/t/tie-b.jsonl", { activity: 140_000, mtimeMs: 190_000 });
    transcript(w, "/t/tie-a.jsonl", { activity: 140_000, mtimeMs: 190_000 });
    transcript(w, "/t/oldest.jsonl", { activity: 120_000, mtimeMs: 110_000, sessionId: "so" });
    const p = await plan(w);
    expect(p.eligible).toBe(25);
    expect(taken(p)).toContain("/t/tie-a.jsonl");
    expect(p.skipped).toEqual([
      { transcriptPath: "/t/tie-b.jsonl", reason: "deferred: over 25 transcripts for one run; the next sync takes it", app: "claude", sessionId: "s-/t/tie-b.jsonl", cwd: "/work/repo_a" },
      { transcriptPath: "/t/oldest.jsonl", reason: "deferred: over 25 transcripts for one run; the next sync takes it", app: "claude", sessionId: "so", cwd: "/work/repo_a" },
    ]);
    expect(w.extentCalls.map(([path]) => path)).not.toContain("/t/oldest.jsonl");
    expect(w.extentCalls).toHaveLength(25);
    // The older of mtime and activity, the oldest of the deferred.
    expect(p.heldBack).toEqual(new Map([["claude", 110_000]]));
  });

  test("the window is held back per app, by activity when it is older than the mtime, and not for deferred transcripts with a cursor", async () => {
    const w = world();
    for (let i = 0; i < 25; i++) transcript(w, `/t/${String(i).padStart(2, "0")}.jsonl`, { activity: 180_000 });
    transcript(w, "/t/codex-a.jsonl", { app: "codex", activity: 130_000, mtimeMs: 170_000 });
    transcript(w, "/t/codex-b.jsonl", { app: "codex", activity: 125_000, mtimeMs: 170_000 });
    cursor(w, "/t/known.jsonl");
    transcript(w, "/t/known.jsonl", { activity: 101_000, mtimeMs: 101_000 });
    const p = await plan(w);
    expect(reasons(p).map(([path]) => path)).toEqual(["/t/codex-a.jsonl", "/t/codex-b.jsonl", "/t/known.jsonl"]);
    expect(p.heldBack).toEqual(new Map([["codex", 125_000]]));
  });

  test("transcripts skipped while measuring do not count toward the limit", async () => {
    const w = world();
    for (let i = 0; i < 25; i++) transcript(w, `/t/${String(i).padStart(2, "0")}.jsonl`, { activity: 150_000 });
    transcript(w, "/t/newest.jsonl", { activity: 190_000, end: 0 });
    const p = await plan(w);
    expect(p.eligible).toBe(25);
    expect(reasons(p)).toEqual([["/t/newest.jsonl", "no-new-activity"]]);
  });

  test("each repository gets its own group and its own limit; groups by repository id, transcripts by app, session, path", async () => {
    const w = world();
    for (let i = 0; i < 25; i++) transcript(w, `/t/b${String(i).padStart(2, "0")}.jsonl`, { cwd: "/work/repo_b", sessionId: "sb" });
    // Measured newest first; each key decides against the order of the keys after it.
    transcript(w, "/t/0.jsonl", { app: "codex", sessionId: "s0", activity: 150_004 });
    transcript(w, "/t/a.jsonl", { app: "claude", sessionId: "s2", activity: 150_003 });
    transcript(w, "/t/p2.jsonl", { app: "claude", sessionId: "s1", activity: 150_002 });
    transcript(w, "/t/p1.jsonl", { app: "claude", sessionId: "s1", activity: 150_001 });
    const p = await plan(w);
    expect(p.groups.map((g) => g.repository.repositoryId)).toEqual(["repo_a", "repo_b"]);
    expect(p.groups[0]!.transcripts.map((t) => t.path)).toEqual(["/t/p1.jsonl", "/t/p2.jsonl", "/t/a.jsonl", "/t/0.jsonl"]);
    expect(p.groups[1]!.transcripts).toHaveLength(25);
    expect(p.eligible).toBe(29);
    expect(p.skipped).toEqual([]);
  });

  test("a repository with nothing new gets no group", async () => {
    const w = world();
    transcript(w, "/t/a.jsonl", { end: 0 });
    transcript(w, "/t/b.jsonl", { cwd: "/work/repo_b" });
    const p = await plan(w);
    expect(p.groups.map((g) => g.repository.repositoryId)).toEqual(["repo_b"]);
  });
});

test("cursors are keyed by the path without a trailing .zst, in any case", () => {
  expect(pathKeyOf("/t/a.jsonl.zst")).toBe("/t/a.jsonl");
  expect(pathKeyOf("/t/a.jsonl.ZST")).toBe("/t/a.jsonl");
  expect(pathKeyOf("/t/a.zst.jsonl")).toBe("/t/a.zst.jsonl");
  expect(pathKeyOf("/t/a.jsonl")).toBe("/t/a.jsonl");
});
