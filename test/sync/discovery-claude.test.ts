import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { listTranscriptFiles, readTranscriptMeta, readTranscriptMetas } from "../../src/sync/discovery/index.js";
import { ClaudeSession, fileHistorySnapshot, projectFolderName, summary } from "../fixtures/transcripts/claude-lines.js";
import { fakeHomes, ms, writeLines, type FakeHomes } from "../fixtures/transcripts/homes.js";

const S1 = "11111111-1111-4111-8111-111111111111";
const S2 = "22222222-2222-4222-8222-222222222222";
const S3 = "33333333-3333-4333-8333-333333333333";
const LATER_MTIME = ms("2030-01-01T00:00:00.000Z");

let homes: FakeHomes;
beforeEach(() => {
  homes = fakeHomes();
});
afterEach(() => homes.cleanup());

function sessionFile(cwd: string, sessionId: string): string {
  return join(homes.claudeProjects, projectFolderName(cwd), `${sessionId}.jsonl`);
}

async function metaOf(path: string) {
  const { files } = await listTranscriptFiles(["claude"], homes.env);
  const file = files.find((candidate) => candidate.path === path);
  if (!file) throw new Error(`not listed: ${path}`);
  return readTranscriptMeta(file);
}

describe("Claude Code 1.0.x", () => {
  test("summary lines of other sessions come first; identity and activity come from the main thread, not inline sidechains", async () => {
    const cwd = "/home/dev/my_proj";
    const session = new ClaudeSession({ sessionId: S1, cwd, version: "1.0.128" });
    const summaries = Array.from({ length: 30 }, (_, index) => summary(`Earlier work ${index}`, `leaf-${index}`));
    const path = writeLines(
      sessionFile(cwd, S1),
      [
        ...summaries,
        session.user("2026-03-01T09:00:00.000Z", "Fix the rounding bug"),
        session.assistant("2026-03-01T09:00:05.000Z", "Looking"),
        session.sidechain("2026-03-01T09:00:06.000Z", "Search for callers"),
        session.assistant("2026-03-01T09:00:30.000Z", "Fixed"),
        session.sidechain("2026-03-01T09:05:00.000Z", "A late subagent line"),
      ],
      { mtimeMs: LATER_MTIME },
    );
    expect(await metaOf(path)).toEqual({
      ok: true,
      meta: {
        app: "claude",
        path,
        sessionId: S1,
        cwd,
        startedAtMs: ms("2026-03-01T09:00:00.000Z"),
        lastActivityMs: ms("2026-03-01T09:00:30.000Z"),
        ownRun: false,
      },
    });
  });

  test("a file holding only summary lines is a pointer, not a session", async () => {
    const path = writeLines(sessionFile("/home/dev/app", S1), [summary("One", "leaf-1"), summary("Two", "leaf-2")]);
    expect(await metaOf(path)).toEqual({ ok: false, skip: { app: "claude", path, reason: "no-session" } });
  });
});

describe("Claude Code 2.0.x", () => {
  test("agent-*.jsonl files at the project folder root (Warmup ones too) are left out by path and counted", async () => {
    const cwd = "/home/dev/src/invoice-api";
    const folder = join(homes.claudeProjects, projectFolderName(cwd));
    const parent = new ClaudeSession({ sessionId: S1, cwd, version: "2.0.77" });
    const sessionPath = writeLines(join(folder, `${S1}.jsonl`), [
      parent.queueOperation("2026-03-02T10:00:00.000Z"),
      parent.user("2026-03-02T10:00:01.000Z", "Add a retry"),
      parent.assistant("2026-03-02T10:00:09.000Z", "Done"),
    ]);
    const agent = new ClaudeSession({ sessionId: S1, cwd, version: "2.0.77", agentId: "a1b2c3" });
    writeLines(join(folder, "agent-a1b2c3.jsonl"), [agent.user("2026-03-02T10:00:02.000Z", "Search")]);
    const warmup = new ClaudeSession({ sessionId: S1, cwd, version: "2.0.77", agentId: "d4e5f6" });
    writeLines(join(folder, "agent-d4e5f6.jsonl"), [warmup.user("2026-03-02T10:00:00.500Z", "Warmup")]);

    const listing = await listTranscriptFiles(["claude"], homes.env);
    expect(listing.files.map((file) => file.path)).toEqual([sessionPath]);
    expect(listing.subagentFiles).toBe(2);
    expect(listing.inactive).toBe(0);
    const [result] = await readTranscriptMetas(listing.files);
    expect(result).toMatchObject({ ok: true, meta: { sessionId: S1, cwd, startedAtMs: ms("2026-03-02T10:00:01.000Z"), lastActivityMs: ms("2026-03-02T10:00:09.000Z") } });
  });

  test("a subagent transcript under a session's name is skipped as a subagent", async () => {
    const cwd = "/home/dev/src/invoice-api";
    const agent = new ClaudeSession({ sessionId: S1, cwd, version: "2.0.77", agentId: "a1b2c3" });
    const path = writeLines(sessionFile(cwd, S2), [agent.user("2026-03-02T10:00:02.000Z", "Search"), agent.assistant("2026-03-02T10:00:03.000Z", "Found")]);
    expect(await metaOf(path)).toEqual({ ok: false, skip: { app: "claude", path, reason: "subagent" } });
  });
});

describe("Claude Code 2.1.x", () => {
  test("<session>/subagents/ files are left out, .meta.json files are not counted, and a session folder without a .jsonl yields nothing", async () => {
    const cwd = "/home/dev/src/payments";
    const folder = join(homes.claudeProjects, projectFolderName(cwd));
    const session = new ClaudeSession({ sessionId: S1, cwd, entrypoint: "cli" });
    const sessionPath = writeLines(join(folder, `${S1}.jsonl`), [
      session.queueOperation("2026-03-03T08:00:00.000Z"),
      fileHistorySnapshot("2026-03-03T08:00:00.000Z"),
      session.attachment("2026-03-03T08:00:00.500Z"),
      session.user("2026-03-03T08:00:01.000Z", "Why a separate queue?"),
      session.assistant("2026-03-03T08:00:10.000Z", "Because"),
      session.aiTitle("Refund queue"),
      session.lastPrompt("Why a separate queue?"),
    ]);
    const agent = new ClaudeSession({ sessionId: S1, cwd, agentId: "a0123456789abcdef" });
    writeLines(join(folder, S1, "subagents", "agent-a0123456789abcdef.jsonl"), [agent.user("2026-03-03T08:00:02.000Z", "Read src")]);
    writeFileSync(join(folder, S1, "subagents", "agent-a0123456789abcdef.meta.json"), JSON.stringify({ agentType: "general-purpose" }));
    const orphan = new ClaudeSession({ sessionId: S2, cwd, agentId: "afedcba9876543210" });
    writeLines(join(folder, S2, "subagents", "agent-afedcba9876543210.jsonl"), [orphan.user("2026-03-03T09:00:00.000Z", "Read")]);
    mkdirSync(join(folder, "memory"));
    writeFileSync(join(folder, "memory", "notes.md"), "# notes\n");

    const listing = await listTranscriptFiles(["claude"], homes.env);
    expect(listing).toEqual({ files: [expect.objectContaining({ app: "claude", path: sessionPath })], inactive: 0, subagentFiles: 2 });
    expect(await readTranscriptMetas(listing.files)).toEqual([
      {
        ok: true,
        meta: {
          app: "claude",
          path: sessionPath,
          sessionId: S1,
          cwd,
          // The attachment is the first conversation entry.
          startedAtMs: ms("2026-03-03T08:00:00.500Z"),
          lastActivityMs: ms("2026-03-03T08:00:10.000Z"),
          ownRun: false,
        },
      },
    ]);
  });

  test("a bookkeeping-only file is not a session", async () => {
    const session = new ClaudeSession({ sessionId: S1, cwd: "/home/dev/app" });
    const path = writeLines(sessionFile("/home/dev/app", S1), [
      session.queueOperation("2026-03-03T08:00:00.000Z"),
      fileHistorySnapshot("2026-03-03T08:00:00.000Z"),
      session.aiTitle("Nothing happened"),
      { type: "api-request", sessionId: S1, timestamp: "2026-03-03T08:00:01.000Z" },
      { type: "cost-state", sessionId: S1, cwd: "/home/dev/app" },
    ]);
    expect(await metaOf(path)).toEqual({ ok: false, skip: { app: "claude", path, reason: "no-session" } });
  });

  test("a relocated line in the head moves the cwd", async () => {
    const session = new ClaudeSession({ sessionId: S1, cwd: "/home/dev/old-place" });
    const path = writeLines(sessionFile("/home/dev/old-place", S1), [
      session.relocated("/home/dev/new-place"),
      session.user("2026-03-04T08:00:00.000Z", "Go"),
      session.assistant("2026-03-04T08:00:04.000Z", "Went"),
    ]);
    expect(await metaOf(path)).toMatchObject({ ok: true, meta: { cwd: "/home/dev/new-place" } });
  });

  test("a relocated line at the end of a long file (read from the tail) moves the cwd", async () => {
    const session = new ClaudeSession({ sessionId: S1, cwd: "/home/dev/old-place" });
    const filler = Array.from({ length: 400 }, (_, index) => session.assistant("2026-03-04T08:01:00.000Z", `${index} ${"x".repeat(400)}`));
    const path = writeLines(sessionFile("/home/dev/old-place", S1), [
      session.user("2026-03-04T08:00:00.000Z", "Go"),
      ...filler,
      session.relocated("/home/dev/new-place"),
      session.assistant("2026-03-04T08:02:00.000Z", "Moved"),
    ]);
    expect(await metaOf(path)).toMatchObject({ ok: true, meta: { cwd: "/home/dev/new-place", lastActivityMs: ms("2026-03-04T08:02:00.000Z") } });
  });

  test("our own runs carry entrypoint codealmanac", async () => {
    const cwd = "/home/dev/repo";
    const ours = new ClaudeSession({ sessionId: S1, cwd, entrypoint: "codealmanac" });
    const theirs = new ClaudeSession({ sessionId: S2, cwd, entrypoint: "sdk-cli" });
    const ownPath = writeLines(sessionFile(cwd, S1), [ours.user("2026-03-05T08:00:00.000Z", "Ingest"), ours.assistant("2026-03-05T08:00:01.000Z", "Ok")]);
    const otherPath = writeLines(sessionFile(cwd, S2), [theirs.user("2026-03-05T08:00:00.000Z", "Hi"), theirs.assistant("2026-03-05T08:00:01.000Z", "Hi")]);
    expect(await metaOf(ownPath)).toMatchObject({ ok: true, meta: { ownRun: true } });
    expect(await metaOf(otherPath)).toMatchObject({ ok: true, meta: { ownRun: false } });
  });

  test("one project folder holding sessions from two cwds gives each its own cwd", async () => {
    const first = "/home/dev/src/my-app.v2";
    const second = "/home/dev/src/my/app-v2";
    expect(projectFolderName(first)).toBe(projectFolderName(second));
    const a = new ClaudeSession({ sessionId: S1, cwd: first });
    const b = new ClaudeSession({ sessionId: S2, cwd: second });
    writeLines(sessionFile(first, S1), [a.user("2026-03-06T08:00:00.000Z", "A"), a.assistant("2026-03-06T08:00:01.000Z", "A")]);
    writeLines(sessionFile(second, S2), [b.user("2026-03-06T09:00:00.000Z", "B"), b.assistant("2026-03-06T09:00:01.000Z", "B")]);
    const listing = await listTranscriptFiles(["claude"], homes.env);
    const metas = await readTranscriptMetas(listing.files);
    expect(metas.map((result) => (result.ok ? [result.meta.sessionId, result.meta.cwd] : result.skip.reason))).toEqual([
      [S1, first],
      [S2, second],
    ]);
  });
});

describe("Claude session ids", () => {
  test("a file whose stem is not its lines' session takes the lines' id", async () => {
    const cwd = "/home/dev/app";
    const session = new ClaudeSession({ sessionId: S1, cwd });
    const path = writeLines(join(homes.claudeProjects, projectFolderName(cwd), "renamed-copy.jsonl"), [session.user("2026-03-07T08:00:00.000Z", "Hi")]);
    expect(await metaOf(path)).toMatchObject({ ok: true, meta: { sessionId: S1 } });
    const other = writeLines(sessionFile(cwd, S3), [session.user("2026-03-07T08:00:00.000Z", "Hi")]);
    expect(await metaOf(other)).toMatchObject({ ok: true, meta: { sessionId: S1 } });
  });

  test("a resumed file that starts with lines copied from an older session is named after its own session", async () => {
    const cwd = "/home/dev/app";
    const old = new ClaudeSession({ sessionId: S1, cwd });
    const resumed = new ClaudeSession({ sessionId: S2, cwd });
    const path = writeLines(sessionFile(cwd, S2), [
      old.user("2026-03-07T08:00:00.000Z", "Earlier"),
      old.assistant("2026-03-07T08:00:01.000Z", "Earlier"),
      resumed.user("2026-03-08T08:00:00.000Z", "Continue"),
      resumed.assistant("2026-03-08T08:00:01.000Z", "Continued"),
    ]);
    expect(await metaOf(path)).toMatchObject({ ok: true, meta: { sessionId: S2, startedAtMs: ms("2026-03-07T08:00:00.000Z") } });
  });
});

describe("Claude location", () => {
  test("CLAUDE_CONFIG_DIR replaces ~/.claude", async () => {
    const config = join(homes.dir, "claude-config");
    const session = new ClaudeSession({ sessionId: S1, cwd: "/w" });
    const path = writeLines(join(config, "projects", "-w", `${S1}.jsonl`), [session.user("2026-03-09T08:00:00.000Z", "Hi")]);
    writeLines(sessionFile("/home", S2), [new ClaudeSession({ sessionId: S2, cwd: "/home" }).user("2026-03-09T08:00:00.000Z", "Hi")]);
    const listing = await listTranscriptFiles(["claude"], { ...homes.env, CLAUDE_CONFIG_DIR: config });
    expect(listing.files.map((file) => file.path)).toEqual([path]);
  });

  test("no Claude folder at all lists nothing", async () => {
    expect(await listTranscriptFiles(["claude", "codex"], homes.env)).toEqual({ files: [], inactive: 0, subagentFiles: 0 });
  });
});
