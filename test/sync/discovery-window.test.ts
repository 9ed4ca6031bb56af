import type * as Fs from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { listTranscriptFiles, readTranscriptMetas, TRANSCRIPT_APPS } from "../../src/sync/discovery/index.js";
import { ClaudeSession, projectFolderName } from "../fixtures/transcripts/claude-lines.js";
import { agentEvent, archivedRolloutPath, rolloutPath, sessionMeta0171 } from "../fixtures/transcripts/codex-lines.js";
import { fakeHomes, ms, writeBytes, writeLines, type FakeHomes } from "../fixtures/transcripts/homes.js";

/** Every path discovery opens, to prove that files outside the window never are. */
const opened = vi.hoisted(() => [] as string[]);
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const open = ((path: Fs.PathLike, ...rest: unknown[]) => {
    opened.push(String(path));
    return (fs.open as (...args: unknown[]) => void)(path, ...rest);
  }) as typeof fs.open;
  return { ...fs, open, default: { ...fs, open } };
});

const SINCE = ms("2026-06-01T00:00:00.000Z");
const OLD = ms("2026-05-01T00:00:00.000Z");
const RECENT = ms("2026-06-02T00:00:00.000Z");

let homes: FakeHomes;
beforeEach(() => {
  homes = fakeHomes();
  opened.length = 0;
});
afterEach(() => homes.cleanup());

function claudeSession(index: number, cwd: string, mtimeMs: number): string {
  const id = `00000000-0000-4000-8000-${String(index).padStart(12, "0")}`;
  const session = new ClaudeSession({ sessionId: id, cwd });
  return writeLines(
    join(homes.claudeProjects, projectFolderName(cwd), `${id}.jsonl`),
    [session.user("2026-05-01T00:00:00.000Z", `prompt ${index}`), session.assistant(new Date(mtimeMs - 1000).toISOString(), `reply ${index}`)],
    { mtimeMs },
  );
}

function codexRollout(index: number, mtimeMs: number, archived = false): string {
  const id = `0199a001-0000-7000-8000-${String(index).padStart(12, "0")}`;
  const path = archived ? archivedRolloutPath(homes.codexHome, "2026-04-01", id) : rolloutPath(homes.codexHome, "2026-04-01", id);
  return writeLines(path, [sessionMeta0171("2026-04-01T10:00:00.000Z", id, "/w"), agentEvent(new Date(mtimeMs - 1000).toISOString(), "done")], { mtimeMs });
}

describe("the activity window", () => {
  test("listing only stats: it opens nothing, and files modified before the window are counted, not returned", async () => {
    const recent = [claudeSession(1, "/a", RECENT), codexRollout(2, RECENT), codexRollout(3, RECENT, true)];
    // Old files that would be skipped as damaged if they were ever read.
    const old = [
      writeBytes(join(homes.claudeProjects, "-a", "00000000-0000-4000-8000-000000000009.jsonl"), "not json\n", OLD),
      writeBytes(rolloutPath(homes.codexHome, "2026-04-01", "0199a001-0000-7000-8000-000000000008"), "\u0000\u0001garbage\n", OLD),
      writeBytes(`${archivedRolloutPath(homes.codexHome, "2026-04-01", "0199a001-0000-7000-8000-000000000007")}.zst`, "not zstd", OLD),
    ];
    const listing = await listTranscriptFiles(TRANSCRIPT_APPS, homes.env, { modifiedSinceMs: SINCE });
    expect(opened).toEqual([]);
    expect(listing.inactive).toBe(3);
    expect(listing.files.map((file) => file.path)).toEqual([recent[0], recent[2], recent[1]]);

    const metas = await readTranscriptMetas(listing.files);
    expect(metas.every((result) => result.ok)).toBe(true);
    expect(opened.sort()).toEqual([...recent].sort());
    for (const path of old) expect(opened).not.toContain(path);
  });

  test("a file modified exactly at the window's start is in it", async () => {
    const path = claudeSession(1, "/a", SINCE);
    claudeSession(2, "/a", SINCE - 1);
    const listing = await listTranscriptFiles(["claude"], homes.env, { modifiedSinceMs: SINCE });
    expect(listing.files).toEqual([{ app: "claude", path, size: expect.any(Number), mtimeMs: SINCE }]);
    expect(listing.inactive).toBe(1);
  });

  test("an old Codex day folder holding a resumed rollout written today is not pruned by its date", async () => {
    const path = codexRollout(1, RECENT);
    expect(path).toContain(join("sessions", "2026", "04", "01"));
    const listing = await listTranscriptFiles(["codex"], homes.env, { modifiedSinceMs: SINCE });
    expect(listing.files.map((file) => file.path)).toEqual([path]);
  });

  test("without a window every transcript is returned", async () => {
    claudeSession(1, "/a", OLD);
    codexRollout(2, RECENT);
    const listing = await listTranscriptFiles(TRANSCRIPT_APPS, homes.env);
    expect(listing.files.map((file) => file.app)).toEqual(["claude", "codex"]);
    expect(listing.inactive).toBe(0);
  });

  test("only the apps asked for are listed, in the order asked", async () => {
    claudeSession(1, "/a", RECENT);
    codexRollout(2, RECENT);
    expect((await listTranscriptFiles(["codex"], homes.env)).files.map((file) => file.app)).toEqual(["codex"]);
    expect((await listTranscriptFiles(["codex", "claude"], homes.env)).files.map((file) => file.app)).toEqual(["codex", "claude"]);
  });
});

describe("reading many", () => {
  test("results come back in input order, skips included, with more files than run at once", async () => {
    const activity = new Map(Array.from({ length: 40 }, (_, index) => [claudeSession(index, `/repo/${index}`, RECENT + index * 1000), RECENT + index * 1000 - 1000]));
    writeBytes(join(homes.claudeProjects, "-z", "zz-empty.jsonl"), "", RECENT);
    const listing = await listTranscriptFiles(["claude"], homes.env);
    const reversed = [...listing.files].reverse();
    expect(reversed).toHaveLength(41);
    const metas = await readTranscriptMetas(reversed);
    expect(metas.map((result) => (result.ok ? [result.meta.path, result.meta.lastActivityMs] : result.skip.reason))).toEqual(
      reversed.map((file) => (file.path.endsWith("zz-empty.jsonl") ? "empty" : [file.path, activity.get(file.path)])),
    );
  });

  test("no files, no results", async () => {
    expect(await readTranscriptMetas([])).toEqual([]);
  });
});
