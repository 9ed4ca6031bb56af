import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { SourcePreparationError } from "../../src/sources/service.js";
import { FIXTURES, gitRepo, makeService, tempDir, testEnv } from "./helpers.js";

function setup() {
  const home = tempDir("ca-sources-home-");
  const repo = gitRepo();
  const service = makeService(testEnv(home));
  const ctx = { cwd: repo, repositoryRoot: repo };
  const run = { repositoryRoot: repo, workDir: join(tempDir("ca-sources-run-"), "run"), budgetChars: 1_000_000 };
  return { home, repo, service, ctx, run };
}

describe("transcript preparation", () => {
  test("a transcript becomes a condensed dialogue with a header, a title and a hint", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "session.jsonl");
    copyFileSync(join(FIXTURES, "transcripts/claude-2.1.jsonl"), path);
    const [brief] = await service.prepare(await service.resolve([`transcript:${path}`], ctx), run);
    expect(brief).toMatchObject({ kind: "transcript", title: "Claude Code session 33333333-3333-4333-8333-333333333333: refund queue", truncated: false });
    expect(brief!.content).toContain("**User:**\nWhy do refunds use a separate queue? Document the reason.");
    expect(brief!.hint).toMatch(/^A condensed agent session/);
    expect(brief!.notes[0]).toMatch(/^Condensed from 13 transcript lines: 1 user prompt, 1 assistant reply, 1 tool call shown as one line each/);
  });

  test("a long session cut to its share keeps the task at the start and the outcome at the end", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "long.jsonl");
    const turns = Array.from({ length: 300 }, (_, index) => {
      const role = index % 2 ? "assistant" : "user";
      const text = index === 0 ? "THE TASK: document the retry policy." : index === 299 ? "THE OUTCOME: documented." : `step ${index} ${"detail ".repeat(30)}`;
      return JSON.stringify({ type: role, uuid: `u${index}`, sessionId: "s-long", cwd: "/w", message: { role, content: text } });
    });
    writeFileSync(path, `${turns.join("\n")}\n`);
    const budgetChars = 4_000;
    const [brief] = await service.prepare(await service.resolve([path], ctx), { ...run, budgetChars });
    expect(brief!.truncated).toBe(true);
    expect(brief!.content.length).toBeLessThanOrEqual(budgetChars);
    expect(brief!.content).toContain("THE TASK: document the retry policy.");
    expect(brief!.content).toContain("THE OUTCOME: documented.");
    expect(brief!.content).toMatch(/\[… [\d,]+ characters cut here; the whole material is in .*01-transcript\.md …\]/);
    expect(brief!.notes.at(-1)).toMatch(/\(its beginning and end are shown\); the whole material is in .*\/run\/sources\/01-transcript\.md\.$/);
    expect(readFileSync(brief!.materialPath!, "utf8")).toContain("step 150 ");
  });

  test("a transcript gone or damaged by run time fails with one line naming the address", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "gone.jsonl");
    copyFileSync(join(FIXTURES, "transcripts/codex-legacy.jsonl"), path);
    const refs = await service.resolve([`transcript:${path}`], ctx);
    rmSync(path);
    const missing = await service.prepare(refs, run).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(SourcePreparationError);
    expect((missing as Error).message).toBe(`transcript:${path}: unreadable transcript: ${path}: no such file`);

    const zst = join(home, "rollout.jsonl.zst");
    copyFileSync(join(FIXTURES, "transcripts/codex-envelope.jsonl.zst"), zst);
    const zstRefs = await service.resolve([zst], ctx);
    const bytes = readFileSync(zst);
    writeFileSync(zst, bytes.subarray(0, bytes.length - 40));
    const torn = await service.prepare(zstRefs, run).catch((error: unknown) => error);
    expect((torn as Error).message).toMatch(new RegExp(`^${zst.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: unreadable transcript: .*: not a valid zstd file`));
  });
});
