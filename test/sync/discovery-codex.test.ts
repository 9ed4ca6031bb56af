import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { listTranscriptFiles, readTranscriptMeta, readTranscriptMetas, type TranscriptFile } from "../../src/sync/discovery/index.js";
import {
  agentEvent,
  archivedRolloutPath,
  environmentContext,
  legacyHeader,
  legacyMessage,
  rolloutPath,
  sessionMeta044,
  sessionMeta0171,
  turnContext,
  userItem,
} from "../fixtures/transcripts/codex-lines.js";
import { fakeHomes, ms, setMtime, writeBytes, writeLines, zstdAvailable, zstdCompress, type FakeHomes } from "../fixtures/transcripts/homes.js";

const T1 = "0199a001-0000-7000-8000-000000000001";
const T2 = "0199a001-0000-7000-8000-000000000002";
const T3 = "0199a001-0000-7000-8000-000000000003";
const LATER_MTIME = ms("2030-01-01T00:00:00.000Z");

let homes: FakeHomes;
beforeEach(() => {
  homes = fakeHomes();
});
afterEach(() => homes.cleanup());

async function listed(): Promise<TranscriptFile[]> {
  return (await listTranscriptFiles(["codex"], homes.env)).files;
}

async function metaOf(path: string) {
  const file = (await listed()).find((candidate) => candidate.path === path);
  if (!file) throw new Error(`not listed: ${path}`);
  return readTranscriptMeta(file);
}

function conversation0171(id: string, cwd: string, extra: object = {}): object[] {
  return [
    sessionMeta0171("2026-04-01T10:00:00.000Z", id, cwd, extra),
    turnContext("2026-04-01T10:00:00.100Z", cwd),
    userItem("2026-04-01T10:00:00.200Z", "Document the cache"),
    agentEvent("2026-04-01T10:03:00.000Z", "Documented"),
  ];
}

describe("rollout generations", () => {
  test("pre-envelope: cwd from the first environment context, start and activity from the header, never the mtime", async () => {
    const path = writeLines(
      rolloutPath(homes.codexHome, "2025-08-01", T1),
      [
        legacyHeader("2025-08-01T10:00:00.000Z", T1),
        { record_type: "state" },
        legacyMessage("user", environmentContext("/home/dev/legacy")),
        legacyMessage("user", "Explain the build"),
        { record_type: "state" },
        legacyMessage("assistant", "It uses make"),
      ],
      { mtimeMs: ms("2025-08-01T10:07:00.000Z") },
    );
    expect(await metaOf(path)).toEqual({
      ok: true,
      meta: {
        app: "codex",
        path,
        sessionId: T1,
        cwd: "/home/dev/legacy",
        startedAtMs: ms("2025-08-01T10:00:00.000Z"),
        lastActivityMs: ms("2025-08-01T10:00:00.000Z"),
        ownRun: false,
      },
    });
  });

  test("0.44 envelope: session_meta identity, activity from the last line, not the mtime", async () => {
    const path = writeLines(
      rolloutPath(homes.codexHome, "2025-10-02", T1),
      [
        sessionMeta044("2025-10-02T10:00:00.000Z", T1, "/home/dev/api"),
        turnContext("2025-10-02T10:00:00.100Z", "/home/dev/api"),
        userItem("2025-10-02T10:00:00.200Z", "Hi"),
        agentEvent("2025-10-02T10:04:00.000Z", "Hello"),
      ],
      { mtimeMs: LATER_MTIME },
    );
    expect(await metaOf(path)).toEqual({
      ok: true,
      meta: {
        app: "codex",
        path,
        sessionId: T1,
        cwd: "/home/dev/api",
        startedAtMs: ms("2025-10-02T10:00:00.000Z"),
        lastActivityMs: ms("2025-10-02T10:04:00.000Z"),
        ownRun: false,
      },
    });
  });

  test("0.171 envelope of a user thread", async () => {
    const path = writeLines(rolloutPath(homes.codexHome, "2026-04-01", T1), conversation0171(T1, "/home/dev/web"), { mtimeMs: LATER_MTIME });
    expect(await metaOf(path)).toMatchObject({
      ok: true,
      meta: { sessionId: T1, cwd: "/home/dev/web", startedAtMs: ms("2026-04-01T10:00:00.000Z"), lastActivityMs: ms("2026-04-01T10:03:00.000Z"), ownRun: false },
    });
  });

  test("a session_meta without cwd falls back to the first turn context", async () => {
    const path = writeLines(rolloutPath(homes.codexHome, "2026-04-01", T1), [
      sessionMeta044("2026-04-01T10:00:00.000Z", T1, "", { cwd: undefined }),
      turnContext("2026-04-01T10:00:01.000Z", "/home/dev/from-turn"),
      turnContext("2026-04-01T10:00:02.000Z", "/home/dev/second-turn"),
    ]);
    expect(await metaOf(path)).toMatchObject({ ok: true, meta: { sessionId: T1, cwd: "/home/dev/from-turn" } });
  });

  test("the first session_meta is the identity; a fork's copied metadata later on is not", async () => {
    const path = writeLines(rolloutPath(homes.codexHome, "2026-04-01", T1), [
      ...conversation0171(T1, "/home/dev/web"),
      sessionMeta0171("2026-04-01T10:05:00.000Z", T2, "/home/dev/elsewhere"),
    ]);
    expect(await metaOf(path)).toMatchObject({ ok: true, meta: { sessionId: T1, cwd: "/home/dev/web", lastActivityMs: ms("2026-04-01T10:05:00.000Z") } });
  });
});

describe("sub-agent threads", () => {
  const cases: Array<[string, object]> = [
    ["thread_source subagent", { thread_source: "subagent" }],
    ["a parent_thread_id", { parent_thread_id: T3, thread_source: "user" }],
    ["session_id of another thread", { session_id: T3 }],
    ["source {subagent: review}", { source: { subagent: "review" } }],
    ["source {subagent: {thread_spawn}}", { source: { subagent: { thread_spawn: { parent_thread_id: T3, depth: 1 } } } }],
    ["source {internal: guardian}", { source: { internal: "guardian" } }],
  ];
  test.each(cases)("%s is skipped as a subagent", async (_label, extra) => {
    const path = writeLines(rolloutPath(homes.codexHome, "2026-04-01", T1), conversation0171(T1, "/home/dev/web", extra));
    expect(await metaOf(path)).toEqual({ ok: false, skip: { app: "codex", path, reason: "subagent", sessionId: T1, cwd: "/home/dev/web" } });
  });

  test("a 0.44 sub-agent, before thread_source existed, is told by its source", async () => {
    const path = writeLines(rolloutPath(homes.codexHome, "2025-10-02", T1), [sessionMeta044("2025-10-02T10:00:00.000Z", T1, "/w", { source: { subagent: "compact" } })]);
    expect(await metaOf(path)).toMatchObject({ ok: false, skip: { reason: "subagent" } });
  });
});

describe("our own runs", () => {
  test("originator codealmanac or thread_source codealmanac marks our runs", async () => {
    const byOriginator = writeLines(rolloutPath(homes.codexHome, "2026-04-01", T1), conversation0171(T1, "/r", { originator: "codealmanac", source: "exec" }));
    const byThreadSource = writeLines(rolloutPath(homes.codexHome, "2026-04-01", T2), conversation0171(T2, "/r", { thread_source: "codealmanac" }));
    const byOld = writeLines(rolloutPath(homes.codexHome, "2025-10-02", T3), [sessionMeta044("2025-10-02T10:00:00.000Z", T3, "/r", { originator: "codealmanac" })]);
    const results = await readTranscriptMetas(await listed());
    expect(results.map((result) => (result.ok ? [result.meta.path, result.meta.ownRun] : result.skip.reason))).toEqual([
      [byOld, true],
      [byOriginator, true],
      [byThreadSource, true],
    ]);
  });
});

describe("where rollouts live", () => {
  test("archived_sessions is scanned; state databases, snapshots, history and non-rollout files are not", async () => {
    const active = writeLines(rolloutPath(homes.codexHome, "2026-04-01", T1), conversation0171(T1, "/a"));
    const archived = writeLines(archivedRolloutPath(homes.codexHome, "2026-03-01", T2), conversation0171(T2, "/b"));
    writeFileSync(join(homes.codexHome, "state_5.sqlite"), "SQLite format 3\0");
    writeLines(join(homes.codexHome, "history.jsonl"), [{ session_id: T1, ts: 1, text: "hi" }]);
    writeLines(join(homes.codexHome, "session_index.jsonl"), [{ id: T1 }]);
    mkdirSync(join(homes.codexHome, "shell_snapshots"), { recursive: true });
    writeFileSync(join(homes.codexHome, "shell_snapshots", `${T1}.sh`), "export A=1\n");
    writeLines(join(homes.codexHome, "sessions", "2026", "04", "01", "notes.jsonl"), [{ hello: 1 }]);
    writeLines(join(homes.codexHome, "archived_sessions", "2026", "rollout-nested-too-deep.jsonl"), conversation0171(T3, "/c"));
    expect((await listed()).map((file) => file.path)).toEqual([archived, active]);
  });

  test("CODEX_HOME replaces ~/.codex", async () => {
    const custom = join(homes.dir, "codex-home");
    const path = writeLines(rolloutPath(custom, "2026-04-01", T1), conversation0171(T1, "/a"));
    writeLines(rolloutPath(homes.codexHome, "2026-04-01", T2), conversation0171(T2, "/b"));
    const { files } = await listTranscriptFiles(["codex"], { ...homes.env, CODEX_HOME: custom });
    expect(files.map((file) => file.path)).toEqual([path]);
  });
});

/**
 * A three-line 0.44-shaped rollout compressed by `zstd -19`, so one compressed read
 * is tested even where the zstd command is missing: session 0199a001-…-0000000000f1,
 * cwd /home/dev/frame, lines at 08:00:00, 08:00:01 and 08:06:00 on 2026-04-02.
 */
const PRECOMPRESSED_ROLLOUT =
  "KLUv/WT+AJUGAPLNKBlQtQ7Dm3Y5WSGaGjhzZpYEv4Gmgxszc/YTwLa9JyoP795PtLaf+NjJ3KmtNi7Wd6INM9XqDsC2vbatGBm7Qvfw3dSK2rs3jTWDtaTN4Su9cYqeqNK794zVEayWQk8KCYeXV+M+OPyYGXnMfDx+A3NMkoEPL6Nr8DJSKYvU3ePtyUw0srbt4ZvK7t0XZg6YITNEWCH4FfwMgonDUzNe2zO61wIRAC10wMWgRBjjuMj1zgw8TqYG4EjorsvCXKc2O5PB1SuDqwYkQRNQZAYAMywVHxk=";

test("a precomputed zstd frame is read like the plain rollout it holds", async () => {
  const id = "0199a001-0000-7000-8000-0000000000f1";
  const path = writeBytes(`${rolloutPath(homes.codexHome, "2026-04-02", id)}.zst`, Buffer.from(PRECOMPRESSED_ROLLOUT, "base64"), LATER_MTIME);
  expect(await metaOf(path)).toEqual({
    ok: true,
    meta: { app: "codex", path, sessionId: id, cwd: "/home/dev/frame", startedAtMs: ms("2026-04-02T08:00:00.000Z"), lastActivityMs: ms("2026-04-02T08:06:00.000Z"), ownRun: false },
  });
});

if (!zstdAvailable) console.warn("zstd is not installed: the compressed-rollout tests that need it are skipped (apt-get install zstd)");

describe.skipIf(!zstdAvailable)("compressed rollouts (needs the zstd command)", () => {
  test("a .jsonl.zst rollout is decompressed: identity from its head, activity from its end", async () => {
    const plain = writeLines(rolloutPath(homes.codexHome, "2026-03-20", T1), [
      ...conversation0171(T1, "/home/dev/zipped"),
      ...Array.from({ length: 3000 }, (_, index) => agentEvent("2026-04-01T11:00:00.000Z", `progress ${index} ${"y".repeat(300)}`)),
      agentEvent("2026-04-01T12:30:00.000Z", "Finished"),
    ]);
    const compressed = zstdCompress(plain, { mtimeMs: LATER_MTIME });
    const files = await listed();
    expect(files.map((file) => file.path)).toEqual([compressed]);
    expect(await readTranscriptMeta(files[0]!)).toEqual({
      ok: true,
      meta: {
        app: "codex",
        path: compressed,
        sessionId: T1,
        cwd: "/home/dev/zipped",
        startedAtMs: ms("2026-04-01T10:00:00.000Z"),
        lastActivityMs: ms("2026-04-01T12:30:00.000Z"),
        ownRun: false,
      },
    });
  });

  test("a small archived .jsonl.zst is read whole", async () => {
    const plain = writeLines(archivedRolloutPath(homes.codexHome, "2026-03-01", T2), conversation0171(T2, "/b", { originator: "codealmanac" }));
    const compressed = zstdCompress(plain);
    expect(await metaOf(compressed)).toMatchObject({ ok: true, meta: { sessionId: T2, cwd: "/b", ownRun: true, lastActivityMs: ms("2026-04-01T10:03:00.000Z") } });
  });

  test("when both x.jsonl and x.jsonl.zst exist, only the plain one is listed", async () => {
    const plain = writeLines(rolloutPath(homes.codexHome, "2026-04-01", T1), conversation0171(T1, "/a"));
    zstdCompress(plain, { keepPlain: true });
    setMtime(plain, LATER_MTIME);
    expect((await listed()).map((file) => file.path)).toEqual([plain]);
  });
});
