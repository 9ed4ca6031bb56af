import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { listTranscriptFiles, readTranscriptMeta, type TranscriptFile } from "../../src/sync/discovery/index.js";
import { ClaudeSession, projectFolderName } from "../fixtures/transcripts/claude-lines.js";
import { agentEvent, rolloutPath, sessionMeta0171 } from "../fixtures/transcripts/codex-lines.js";
import { fakeHomes, ms, writeBytes, writeLines, zstdAvailable, zstdCompress, type FakeHomes } from "../fixtures/transcripts/homes.js";

const S1 = "11111111-1111-4111-8111-111111111111";
const T1 = "0199a001-0000-7000-8000-000000000001";
const CWD = "/home/dev/app";
const MIB = 1024 * 1024;
const LATER_MTIME = ms("2030-01-01T00:00:00.000Z");

let homes: FakeHomes;
beforeEach(() => {
  homes = fakeHomes();
});
afterEach(() => homes.cleanup());

const session = () => new ClaudeSession({ sessionId: S1, cwd: CWD });
const claudePath = (name = `${S1}.jsonl`) => join(homes.claudeProjects, projectFolderName(CWD), name);
const claudeFile = (path: string): TranscriptFile => ({ app: "claude", path, size: 0, mtimeMs: 0 });
const codexFile = (path: string): TranscriptFile => ({ app: "codex", path, size: 0, mtimeMs: 0 });

describe("damaged files never abort discovery; each is one skip", () => {
  test("a zero-byte file", async () => {
    const path = writeBytes(claudePath(), "");
    expect(await readTranscriptMeta(claudeFile(path))).toEqual({ ok: false, skip: { app: "claude", path, reason: "empty" } });
  });

  test("text that is not JSON", async () => {
    const path = writeBytes(claudePath(), "this is not json\n{broken\n");
    expect(await readTranscriptMeta(claudeFile(path))).toEqual({ ok: false, skip: { app: "claude", path, reason: "invalid: line 1 is not a JSON object" } });
  });

  test("a torn last line is ignored; the line before it gives the activity", async () => {
    const s = session();
    const torn = JSON.stringify(s.assistant("2026-05-01T09:59:00.000Z", "cut off mid-wri")).slice(0, 120);
    const path = writeLines(claudePath(), [s.user("2026-05-01T09:00:00.000Z", "Go"), s.assistant("2026-05-01T09:01:00.000Z", "Going"), torn], {
      trailingNewline: false,
      mtimeMs: LATER_MTIME,
    });
    expect(await readTranscriptMeta(claudeFile(path))).toMatchObject({ ok: true, meta: { sessionId: S1, lastActivityMs: ms("2026-05-01T09:01:00.000Z") } });
  });

  test("invalid UTF-8 in the identity line skips the file", async () => {
    const line = Buffer.from(JSON.stringify(session().user("2026-05-01T09:00:00.000Z", "café")).replace("café", "caf\u0000"));
    line[line.indexOf(0)] = 0xff;
    const path = writeBytes(claudePath(), Buffer.concat([line, Buffer.from("\n")]));
    expect(await readTranscriptMeta(claudeFile(path))).toEqual({ ok: false, skip: { app: "claude", path, reason: "invalid: line 1 is not valid UTF-8" } });
  });

  test("invalid UTF-8 in a later message does not spoil the session or its activity", async () => {
    const s = session();
    const bad = Buffer.from(`${JSON.stringify(s.assistant("2026-05-01T09:02:00.000Z", "bytes: XX"))}\n`);
    bad[bad.indexOf("XX")] = 0xc3;
    bad[bad.indexOf("X")] = 0x28;
    const head = Buffer.from(`${JSON.stringify(s.user("2026-05-01T09:00:00.000Z", "Go"))}\n`);
    const path = writeBytes(claudePath(), Buffer.concat([head, bad]), LATER_MTIME);
    expect(await readTranscriptMeta(claudeFile(path))).toMatchObject({ ok: true, meta: { cwd: CWD, lastActivityMs: ms("2026-05-01T09:02:00.000Z") } });
  });

  test("a line longer than 8 MiB before the identity is skipped, not fatal", async () => {
    const s = session();
    const huge = JSON.stringify({ type: "file-history-snapshot", messageId: "m", snapshot: { blob: "z".repeat(9 * MIB) } });
    const path = writeLines(claudePath(), [huge, s.user("2026-05-01T09:00:00.000Z", "Go"), s.assistant("2026-05-01T09:03:00.000Z", "Done")]);
    expect(await readTranscriptMeta(claudeFile(path))).toMatchObject({ ok: true, meta: { sessionId: S1, lastActivityMs: ms("2026-05-01T09:03:00.000Z") } });
  });

  test("an identity line longer than 8 MiB leaves no identity", async () => {
    const path = writeLines(codexPath(), [sessionMeta0171("2026-05-01T09:00:00.000Z", T1, CWD, { base_instructions: { text: "i".repeat(9 * MIB) } })]);
    expect(await readTranscriptMeta(codexFile(path))).toEqual({ ok: false, skip: { app: "codex", path, reason: "invalid: line 1 is longer than 8 MiB" } });
  });

  test("a last line far longer than the first look at the tail still gives the activity", async () => {
    const s = session();
    const path = writeLines(
      claudePath(),
      [
        s.user("2026-05-01T09:00:00.000Z", "Go"),
        s.assistant("2026-05-01T09:01:00.000Z", "x".repeat(200_000)),
        s.assistant("2026-05-01T09:04:00.000Z", "w".repeat(700_000)),
      ],
      { mtimeMs: LATER_MTIME },
    );
    expect(await readTranscriptMeta(claudeFile(path))).toMatchObject({ ok: true, meta: { lastActivityMs: ms("2026-05-01T09:04:00.000Z") } });
  });

  test("a session whose lines carry no time is skipped as undated, never dated by the file's mtime", async () => {
    const s = session();
    const line = { ...(s.user("2026-05-01T09:00:00.000Z", "Go") as Record<string, unknown>), timestamp: undefined };
    const path = writeLines(claudePath(), [line], { mtimeMs: ms("2026-05-02T00:00:00.000Z") });
    expect(await readTranscriptMeta(claudeFile(path))).toMatchObject({ ok: false, skip: { reason: expect.stringMatching(/^undated: /), cwd: CWD } });
  });

  test("a .zst that is not zstd", async () => {
    const path = writeBytes(`${codexPath()}.zst`, JSON.stringify(sessionMeta0171("2026-05-01T09:00:00.000Z", T1, CWD)));
    expect(await readTranscriptMeta(codexFile(path))).toEqual({ ok: false, skip: { app: "codex", path, reason: "unreadable: not a valid zstd file (invalid zstd data)" } });
  });

  test.skipIf(!zstdAvailable)("a truncated .zst (needs the zstd command)", async () => {
    const lines = [sessionMeta0171("2026-05-01T09:00:00.000Z", T1, CWD), ...Array.from({ length: 200 }, (_, i) => agentEvent("2026-05-01T09:01:00.000Z", `n${i}`))];
    const compressed = zstdCompress(writeLines(codexPath(), lines));
    const whole = spawnSync("cat", [compressed]).stdout;
    writeBytes(compressed, whole.subarray(0, Math.floor(whole.length / 2)));
    expect(await readTranscriptMeta(codexFile(compressed))).toMatchObject({ ok: false, skip: { reason: expect.stringMatching(/^unreadable: not a valid zstd file \(.+\)$/) } });
  });

  test("a file that vanished between listing and reading", async () => {
    const s = session();
    const path = writeLines(claudePath(), [s.user("2026-05-01T09:00:00.000Z", "Go")]);
    const { files } = await listTranscriptFiles(["claude"], homes.env);
    rmSync(path);
    expect(await readTranscriptMeta(files[0]!)).toEqual({ ok: false, skip: { app: "claude", path, reason: "vanished" } });
  });

  test("a file we may not read", async () => {
    const s = session();
    const path = writeLines(claudePath(), [s.user("2026-05-01T09:00:00.000Z", "Go")]);
    openPathTo(path);
    chmodSync(path, 0o000);
    const result = await asUnprivileged(() => readTranscriptMeta(claudeFile(path)));
    expect(result).toEqual({ ok: false, skip: { app: "claude", path, reason: "unreadable: permission denied" } });
  });

  test("a FIFO in a transcript's place is neither listed nor waited on", async () => {
    const path = claudePath();
    mkdirSync(dirname(path), { recursive: true });
    expect(spawnSync("mkfifo", [path]).status).toBe(0);
    expect((await listTranscriptFiles(["claude"], homes.env)).files).toEqual([]);
    expect(await readTranscriptMeta(claudeFile(path))).toEqual({ ok: false, skip: { app: "claude", path, reason: "unreadable: not a regular file" } });
  });

  test("a folder named like a transcript is not listed", async () => {
    mkdirSync(claudePath(), { recursive: true });
    mkdirSync(codexPath(), { recursive: true });
    expect(await listTranscriptFiles(["claude", "codex"], homes.env)).toEqual({ files: [], inactive: 0, subagentFiles: 0 });
  });
});

if (!zstdAvailable) console.warn("zstd is not installed: the truncated-zstd test is skipped (apt-get install zstd)");

function codexPath(): string {
  return rolloutPath(homes.codexHome, "2026-05-01", T1);
}

/** Lets an unprivileged user reach `path` (temporary folders are private). */
function openPathTo(path: string): void {
  const parts = relative(homes.dir, dirname(path)).split(sep);
  let dir = homes.dir;
  chmodSync(dir, 0o755);
  for (const part of parts) {
    dir = join(dir, part);
    chmodSync(dir, 0o755);
  }
}

/**
 * Root reads any file whatever its mode, so as root the read runs with the
 * effective uid of `nobody` and then switches back (the real uid stays root).
 */
async function asUnprivileged<T>(read: () => Promise<T>): Promise<T> {
  if (process.geteuid?.() !== 0 || !process.seteuid) return read();
  process.seteuid(65534);
  try {
    return await read();
  } finally {
    process.seteuid(0);
  }
}
