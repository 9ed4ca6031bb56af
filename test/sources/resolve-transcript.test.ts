import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { sourceLabel, transcriptRangeAddress } from "../../src/sources/model.js";
import { FIXTURES, gitRepo, makeService, resolveError, tempDir, testEnv } from "./helpers.js";

const TRANSCRIPTS = join(FIXTURES, "transcripts");
const CLAUDE_ID = "22222222-2222-4222-8222-222222222222";
const CODEX_ID = "019a1b2c-3d4e-7f00-8123-456789abcdef";

function setup() {
  const home = tempDir("ca-sources-home-");
  const repo = gitRepo();
  return { home, repo, service: makeService(testEnv(home)), ctx: { cwd: repo, repositoryRoot: repo } };
}

function place(from: string, to: string): string {
  mkdirSync(join(to, ".."), { recursive: true });
  copyFileSync(join(TRANSCRIPTS, from), to);
  return to;
}

describe("transcript addresses", () => {
  test("a session id is looked up in Claude's projects folder", async () => {
    const { home, service, ctx } = setup();
    const path = place("claude-2.0.jsonl", join(home, ".claude/projects/-home-dev-src-shop", `${CLAUDE_ID}.jsonl`));
    const [ref] = await service.resolve([`transcript:${CLAUDE_ID}`], ctx);
    expect(ref).toEqual({ address: `transcript:${CLAUDE_ID}`, kind: "transcript", title: `Claude Code transcript ${CLAUDE_ID}.jsonl`, path, format: "claude" });
  });

  test("a session id finds a Codex rollout, plain preferred over compressed, archived ones too", async () => {
    const { home, service, ctx } = setup();
    const day = join(home, ".codex/sessions/2026/11/29");
    const zst = place("codex-envelope.jsonl.zst", join(day, `rollout-2026-11-29T21-01-05-${CODEX_ID}.jsonl.zst`));
    const [compressed] = await service.resolve([`transcript:${CODEX_ID}`], ctx);
    expect(compressed).toMatchObject({ kind: "transcript", format: "codex", path: zst });
    const plain = place("codex-envelope.jsonl", join(day, `rollout-2026-11-29T21-01-05-${CODEX_ID}.jsonl`));
    const [preferred] = await service.resolve([`transcript:${CODEX_ID}`], ctx);
    expect(preferred!.path).toBe(plain);
    const archived = place("codex-legacy.jsonl", join(home, ".codex/archived_sessions/rollout-2025-07-01T12-00-00-5f2a1c9e-1111-4222-9333-444455556666.jsonl"));
    const [old] = await service.resolve(["transcript:5f2a1c9e-1111-4222-9333-444455556666"], ctx);
    expect(old!.path).toBe(archived);
  });

  test("a transcript path, prefixed or bare, may lie outside the repository", async () => {
    const { home, service, ctx } = setup();
    const path = place("claude-2.1.jsonl", join(home, ".claude/projects/x/33333333-3333-4333-8333-333333333333.jsonl"));
    const refs = await service.resolve([`transcript:${path}`, path, "~/.claude/projects/x/33333333-3333-4333-8333-333333333333.jsonl"], ctx);
    for (const ref of refs) expect(ref).toMatchObject({ kind: "transcript", format: "claude", path });
    expect(refs[0]!.display).toBeUndefined();
  });

  test("a transcript inside the repository is recognised by sniffing, relative to the cwd", async () => {
    const { repo, service } = setup();
    place("codex-legacy.jsonl", join(repo, "notes/session.jsonl"));
    const [ref] = await service.resolve(["session.jsonl"], { cwd: join(repo, "notes"), repositoryRoot: repo });
    expect(ref).toMatchObject({ kind: "transcript", format: "codex", display: "notes/session.jsonl", title: "Codex transcript session.jsonl" });
  });

  test("unreadable, unknown and unrecognised transcripts are refused", async () => {
    const { home, repo, service } = setup();
    const rows = join(repo, "rows.jsonl");
    writeFileSync(rows, '{"id":1}\n');
    const corrupt = join(repo, "broken.jsonl.zst");
    writeFileSync(corrupt, "this is not zstd");
    expect(await resolveError(service, ["transcript:"], repo)).toBe("transcript address needs a session id or a path: transcript:");
    expect(await resolveError(service, ["transcript:a b"], repo)).toBe("transcript address needs a session id or a path: transcript:a b");
    expect(await resolveError(service, ["transcript:./missing.jsonl"], repo)).toBe(`unreadable transcript: ${join(repo, "missing.jsonl")}: no such file`);
    expect(await resolveError(service, ["transcript:rows.jsonl"], repo)).toBe(`unreadable transcript: ${rows}: not a Claude or Codex transcript`);
    expect(await resolveError(service, [`transcript:${repo}/`], repo)).toBe(`unreadable transcript: ${repo}: is a folder`);
    expect(await resolveError(service, ["transcript:broken.jsonl.zst"], repo)).toMatch(
      new RegExp(`^unreadable transcript: ${corrupt}: not a valid zstd file \\(.+\\)$`),
    );
    expect(await resolveError(service, ["transcript:0000aaaa-1111-2222-3333-444455556666"], repo)).toBe(
      `transcript session not found: 0000aaaa-1111-2222-3333-444455556666 (looked in ${join(home, ".claude/projects")} and ${join(home, ".codex")})`,
    );
  });

  test("confined (an agent's request), a path outside the repository and the transcript folders reads as missing", async () => {
    const { home, repo, service } = setup();
    const outside = tempDir("ca-sources-outside-");
    const stray = place("claude-2.0.jsonl", join(outside, "stray.jsonl"));
    mkdirSync(join(home, ".claude/projects/-linked"), { recursive: true });
    // A link inside a transcript folder is judged by where it leads.
    symlinkSync(stray, join(home, ".claude/projects/-linked", `${CLAUDE_ID}.jsonl`));
    const kept = place("claude-2.1.jsonl", join(home, ".claude/projects/x/33333333-3333-4333-8333-333333333333.jsonl"));
    const confined = async (input: string) => {
      try {
        return await service.resolve([input], { cwd: repo, repositoryRoot: repo, confined: true });
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(await confined(`transcript:${stray}`)).toBe(`unreadable transcript: ${stray}: no such file`);
    expect(await confined(`transcript:${CLAUDE_ID}`)).toBe(`unreadable transcript: ${join(home, ".claude/projects/-linked", `${CLAUDE_ID}.jsonl`)}: no such file`);
    expect(await confined(stray)).toBe(`path not found: ${stray}`);
    expect(await confined(`transcript:${kept}`)).toMatchObject([{ kind: "transcript", path: kept }]);
    // Unconfined (the user at a shell), the same stray transcript is taken.
    expect(await service.resolve([`transcript:${stray}`], { cwd: repo, repositoryRoot: repo })).toMatchObject([{ kind: "transcript", path: stray }]);
  });

  test("a #bytes=<from>-<to> suffix takes part of the session, by path or by session id", async () => {
    const { home, service, ctx } = setup();
    const path = place("claude-2.0.jsonl", join(home, ".claude/projects/-home-dev-src-shop", `${CLAUDE_ID}.jsonl`));
    const [byPath, byId] = await service.resolve([transcriptRangeAddress(path, 120, 3000), `transcript:${CLAUDE_ID}#bytes=0-1`], ctx);
    expect(byPath).toEqual({
      address: `transcript:${path}#bytes=120-3000`,
      kind: "transcript",
      title: `Claude Code transcript ${CLAUDE_ID}.jsonl (new activity)`,
      path,
      format: "claude",
      range: { fromByte: 120, toByte: 3000 },
    });
    expect(byId).toMatchObject({ path, range: { fromByte: 0, toByte: 1 } });
    expect(sourceLabel(byPath!)).toBe(`Claude Code transcript ${CLAUDE_ID}.jsonl (new activity)`);
  });

  test("inside the repository, a ranged transcript is labelled by its path and marked as new activity", async () => {
    const { repo, service, ctx } = setup();
    place("codex-legacy.jsonl", join(repo, "notes/session.jsonl"));
    const [ref] = await service.resolve(["transcript:notes/session.jsonl#bytes=10-20"], ctx);
    expect(ref).toMatchObject({ display: "notes/session.jsonl", title: "Codex transcript session.jsonl (new activity)" });
    expect(sourceLabel(ref!)).toBe("notes/session.jsonl (new activity)");
  });

  test("a malformed #bytes= suffix is refused naming the address; a folder named #bytes=… is part of the path", async () => {
    const { home, repo, service } = setup();
    const path = place("codex-legacy.jsonl", join(home, "sessions#bytes=old/session.jsonl"));
    const [ref] = await service.resolve([`transcript:${path}`], { cwd: repo, repositoryRoot: repo });
    expect(ref).toMatchObject({ path, format: "codex" });
    expect(ref!.range).toBeUndefined();
    for (const suffix of ["#bytes=5-5", "#bytes=9-2", "#bytes=a-b", "#bytes=1-", "#bytes=-1-3", "#bytes=1-2-3", "#bytes=1.5-9", "#bytes= 1-2", "#bytes=99999999999999999999-1"]) {
      const address = `transcript:${path}${suffix}`;
      expect(await resolveError(service, [address], repo)).toBe(`invalid transcript byte range: ${address} (expected #bytes=<from>-<to> with whole numbers 0 ≤ from < to)`);
    }
    expect(await resolveError(service, ["transcript:#bytes=0-10"], repo)).toBe("transcript address needs a session id or a path: transcript:#bytes=0-10");
  });

  test("transcriptRangeAddress formats the address and refuses a range that is not one", () => {
    expect(transcriptRangeAddress("/h/.codex/sessions/r.jsonl", 0, 42)).toBe("transcript:/h/.codex/sessions/r.jsonl#bytes=0-42");
    for (const [from, to] of [
      [5, 5],
      [-1, 3],
      [1.5, 3],
      [0, Number.MAX_SAFE_INTEGER + 2],
    ] as const) {
      expect(() => transcriptRangeAddress("/t.jsonl", from, to)).toThrow(RangeError);
    }
  });
});
