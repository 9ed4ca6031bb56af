import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { formatCount } from "../../src/sources/text.js";
import { gitRepo, makeService, tempDir, testEnv } from "./helpers.js";
import {
  bytes,
  CLAUDE_SESSION,
  claudeFiller,
  claudeLine,
  claudeToolLine,
  CODEX_SESSION,
  codexCall,
  codexMessage,
  codexMeta,
  zstdAvailable,
  zstdCompress,
} from "./transcript-lines.js";

function setup() {
  const home = tempDir("ca-sources-home-");
  const repo = gitRepo();
  const service = makeService(testEnv(home));
  const ctx = { cwd: repo, repositoryRoot: repo };
  const run = { repositoryRoot: repo, workDir: join(tempDir("ca-sources-run-"), "run"), budgetChars: 1_000_000 };
  return { home, service, ctx, run };
}

/** Writes `before` then `after` and returns the byte range of `after` within the file. */
function writeSession(path: string, before: string, after: string, trailing = ""): { from: number; to: number } {
  writeFileSync(path, before + after + trailing);
  return { from: bytes(before), to: bytes(before) + bytes(after) };
}

const span = (from: number, to: number) => `bytes ${formatCount(from)}–${formatCount(to)}`;

const INTRO =
  "This is only the new part of the session since it was last ingested; what came before was ingested then. " +
  "Record only new durable knowledge that this part establishes.";

/** More than the window read back for earlier turns, so the identity must come from the file's start. */
const FAR_BACK = Array.from({ length: 20 }, () => claudeFiller(16_000)).join("");

describe("a transcript byte range", () => {
  test("Claude: the new turns are the material, after the last few earlier ones, under the identity read from the start", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "session.jsonl");
    const start = claudeLine("user", "FIRST PROMPT: set up the shop", { uuid: "u0", version: "2.1.0" }) + claudeLine("assistant", "first reply", { uuid: "a0" });
    const elsewhere = { cwd: "/elsewhere", version: "2.1.9" };
    const earlier = [
      claudeLine("user", "old prompt 1", { uuid: "u1", ...elsewhere }),
      claudeLine("assistant", "old reply 1", { uuid: "a1", ...elsewhere }),
      claudeToolLine("t1", "npm run old"),
      claudeLine("user", "old prompt 2", { uuid: "u2", ...elsewhere }),
      claudeLine("assistant", "old reply 2", { uuid: "a2", ...elsewhere }),
    ].join("");
    const fresh = [
      claudeLine("user", "NEW PROMPT: document the refund queue", { uuid: "u3" }),
      claudeToolLine("t2", "rg refund"),
      claudeLine("assistant", "NEW REPLY: documented", { uuid: "a3" }),
      `${JSON.stringify({ type: "custom-title", customTitle: "refunds", sessionId: CLAUDE_SESSION })}\n`,
    ].join("");
    const { from, to } = writeSession(path, start + FAR_BACK + earlier, fresh, claudeLine("user", "AFTER THE RANGE", { uuid: "u4" }));

    const [ref] = await service.resolve([`transcript:${path}#bytes=${from}-${to}`], ctx);
    expect(ref).toMatchObject({ kind: "transcript", format: "claude", path, title: "Claude Code transcript session.jsonl (new activity)", range: { fromByte: from, toByte: to } });
    const [brief] = await service.prepare([ref!], run);
    expect(brief!.title).toBe(`Claude Code session ${CLAUDE_SESSION}: refunds (new activity)`);
    expect(brief!.content).toBe(
      [
        `# Claude Code session ${CLAUDE_SESSION}`,
        "",
        "- Title: refunds",
        `- File: ${path}`,
        "- Working directory: /home/dev/src/shop",
        "- Started: 2026-11-20T08:00:00.000Z",
        "- Claude Code version: 2.1.0",
        `- Part: new activity since the last sync (${span(from, to)})`,
        "",
        INTRO,
        "",
        "## Earlier in this session (context only, already ingested)",
        "",
        "**Assistant:**",
        "old reply 1",
        "",
        "- ↳ Bash: npm run old",
        "",
        "**User:**",
        "old prompt 2",
        "",
        "**Assistant:**",
        "old reply 2",
        "",
        "## New activity since the last sync",
        "",
        "**User:**",
        "NEW PROMPT: document the refund queue",
        "",
        "**Assistant:**",
        "- ↳ Bash: rg refund",
        "",
        "NEW REPLY: documented",
        "",
      ].join("\n"),
    );
    expect(brief!.notes).toEqual([
      `Only the new activity since the last sync: transcript ${span(from, to)}; a few earlier turns are shown before it as context, already ingested.`,
      "Condensed from 4 transcript lines: 1 user prompt, 1 assistant reply, 1 tool call shown as one line each; tool output, reasoning and injected context were left out.",
    ]);
  });

  test("Claude: the main conversation is told from the file's start, so subagent lines in the range stay out", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "session.jsonl");
    const start = claudeLine("user", "main task", { uuid: "u0" });
    const fresh = claudeLine("user", "SUBAGENT PROMPT", { uuid: "s1", isSidechain: true }) + claudeLine("assistant", "main answer", { uuid: "a1" });
    const { from, to } = writeSession(path, start + FAR_BACK, fresh);
    const [brief] = await service.prepare(await service.resolve([`transcript:${path}#bytes=${from}-${to}`], ctx), run);
    expect(brief!.content).toContain("## New activity since the last sync\n\n**Assistant:**\nmain answer\n");
    expect(brief!.content).not.toContain("SUBAGENT PROMPT");
  });

  test("Codex: items are the record in the range too; the first session_meta names the session, not a forked copy", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, `rollout-2026-11-29T21-01-05-${CODEX_SESSION}.jsonl`);
    const padding = Array.from({ length: 20 }, () => `${JSON.stringify({ type: "event_msg", payload: { type: "token_count", pad: "t".repeat(16_000) } })}\n`).join("");
    const fork = codexMeta("/forked/from").replace(CODEX_SESSION, "019a0000-0000-7000-8000-000000000000");
    const earlier = codexMessage("user", "old codex prompt") + codexCall("ls src") + codexMessage("assistant", "old codex reply");
    const fresh = codexMessage("user", "NEW CODEX PROMPT") + codexCall("npm test") + codexMessage("assistant", "NEW CODEX REPLY");
    const { from, to } = writeSession(path, codexMeta() + padding + fork + earlier, fresh);

    const [brief] = await service.prepare(await service.resolve([`transcript:${path}#bytes=${from}-${to}`], ctx), run);
    expect(brief!.title).toBe(`Codex session ${CODEX_SESSION} (new activity)`);
    expect(brief!.content).toContain("- Working directory: /home/dev/src/invoice-api\n");
    expect(brief!.content.slice(brief!.content.indexOf("## Earlier"))).toBe(
      [
        "## Earlier in this session (context only, already ingested)",
        "",
        "**User:**",
        "old codex prompt",
        "",
        "**Assistant:**",
        "- ↳ exec_command: ls src",
        "",
        "old codex reply",
        "",
        "## New activity since the last sync",
        "",
        "**User:**",
        "NEW CODEX PROMPT",
        "",
        "**Assistant:**",
        "- ↳ exec_command: npm test",
        "",
        "NEW CODEX REPLY",
        "",
      ].join("\n"),
    );
    expect(brief!.notes[1]).toMatch(/^Condensed from 5 transcript lines: 1 user prompt, 1 assistant reply, 1 tool call /);
  });

  test("the earlier turns stop at the third prompt or reply and at 4,000 characters, keeping the end of a long one", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "session.jsonl");
    const long = `${"w".repeat(5_000)} END OF LONG REPLY`;
    const earlier = [
      claudeLine("user", "prompt A", { uuid: "u1" }),
      claudeLine("assistant", "reply A", { uuid: "a1" }),
      claudeLine("user", "prompt B", { uuid: "u2" }),
      claudeLine("assistant", long, { uuid: "a2" }),
    ].join("");
    const { from, to } = writeSession(path, earlier, claudeLine("user", "new prompt", { uuid: "u3" }));
    const [brief] = await service.prepare(await service.resolve([`transcript:${path}#bytes=${from}-${to}`], ctx), run);
    const context = brief!.content.slice(brief!.content.indexOf("## Earlier"), brief!.content.indexOf("## New activity"));
    expect(context).toMatch(/^## Earlier in this session \(context only, already ingested\)\n\n\*\*Assistant:\*\*\n… w+ END OF LONG REPLY\n\n$/);
    // A size, not a time: the earlier context keeps at most about 4,000 characters plus its heading.
    const contextBudgetChars = 4_200;
    expect(context.length).toBeLessThan(contextBudgetChars);
  });

  test("a range from the start has no earlier section and says the whole session so far is new", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "session.jsonl");
    const { to } = writeSession(path, "", claudeLine("user", "only prompt", { uuid: "u1" }), claudeLine("user", "later prompt", { uuid: "u2" }));
    const [brief] = await service.prepare(await service.resolve([`transcript:${path}#bytes=0-${to}`], ctx), run);
    expect(brief!.content).toContain(`- Part: the session from its start (${span(0, to)})\n\nThis is the session from its start up to the last sync; none of it was ingested before.\n\n## New activity since the last sync\n\n**User:**\nonly prompt\n`);
    expect(brief!.content).not.toContain("## Earlier");
    expect(brief!.content).not.toContain("later prompt");
    expect(brief!.notes[0]).toBe(`Only transcript ${span(0, to)}: the session from its start up to the last sync.`);
  });

  test("a torn last line inside the range is skipped and counted; a range without dialogue says so", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "session.jsonl");
    const before = claudeLine("user", "a prompt", { uuid: "u1" });
    const torn = '{"type":"assistant","uuid":"a9","message":{"role":"assist';
    writeFileSync(path, before + claudeFiller(10) + torn);
    const from = bytes(before);
    const [brief] = await service.prepare(await service.resolve([`transcript:${path}#bytes=${from}-${from + 4_096}`], ctx), run);
    expect(brief!.content).toContain("## New activity since the last sync\n\n(no user prompts or assistant replies in the new part)\n");
    expect(brief!.notes).toContain("1 unreadable or oversized transcript line skipped.");
    expect(brief!.notes[1]).toMatch(/^Condensed from 1 transcript line: 0 user prompts/);
  });

  test("a transcript now shorter than the range's start is shown whole, with a note", async () => {
    const { home, service, ctx, run } = setup();
    const path = join(home, "session.jsonl");
    const before = claudeLine("user", "old prompt", { uuid: "u1" }) + claudeLine("assistant", "old reply", { uuid: "a1" });
    const { from, to } = writeSession(path, before, claudeLine("user", "new prompt", { uuid: "u2" }));
    const refs = await service.resolve([`transcript:${path}#bytes=${from}-${to}`], ctx);
    writeFileSync(path, claudeLine("user", "rewritten", { uuid: "r1" }));
    const [brief] = await service.prepare(refs, run);
    expect(brief!.title).toBe(`Claude Code session ${CLAUDE_SESSION}`);
    expect(brief!.content).toContain("**User:**\nrewritten\n");
    expect(brief!.content).not.toContain("## New activity");
    expect(brief!.notes[0]).toBe(
      `The transcript is now shorter than the start of the new part (byte ${formatCount(from)}); it was rewritten or truncated since, so the whole transcript is shown, parts of it perhaps ingested before.`,
    );
  });
});

describe.skipIf(!zstdAvailable)("a byte range of a compressed rollout (needs the zstd CLI)", () => {
  function rollout(home: string) {
    const path = join(home, `rollout-2026-11-29T21-01-05-${CODEX_SESSION}.jsonl`);
    const range = writeSession(path, codexMeta() + codexMessage("user", "old prompt") + codexMessage("assistant", "old reply"), codexMessage("user", "new prompt é"));
    return { path, ...range };
  }

  test("a rollout compressed after it was queued is read from its twin at the same offsets", async () => {
    const { home, service, ctx, run } = setup();
    const { path, from, to } = rollout(home);
    const refs = await service.resolve([`transcript:${path}#bytes=${from}-${to}`], ctx);
    const [plain] = await service.prepare(refs, run);
    const zst = zstdCompress(path);
    rmSync(path);
    const [compressed] = await service.prepare(refs, run);
    expect(compressed!.content).toBe(plain!.content.replace(`- File: ${path}\n`, `- File: ${zst}\n`));
    expect(compressed!.content).toContain("## New activity since the last sync\n\n**User:**\nnew prompt é\n");
    expect(compressed!.notes).toEqual([`${path} no longer exists; its compressed twin ${zst} holds the same lines and was read instead.`, ...plain!.notes]);
  });

  test("an address naming a rollout that is only compressed now resolves, and a re-inflated one is read plain", async () => {
    const { home, service, ctx, run } = setup();
    const { path, from, to } = rollout(home);
    const zst = zstdCompress(path);
    rmSync(path);
    const [ref] = await service.resolve([`transcript:${path}#bytes=${from}-${to}`], ctx);
    expect(ref).toMatchObject({ path, format: "codex", range: { fromByte: from, toByte: to } });
    const [fromZst] = await service.resolve([`transcript:${zst}#bytes=${from}-${to}`], ctx);
    rollout(home);
    rmSync(zst);
    const [brief] = await service.prepare([fromZst!], run);
    expect(brief!.notes[0]).toBe(`${zst} no longer exists; its decompressed twin ${path} holds the same lines and was read instead.`);
    expect(brief!.content).toContain("**User:**\nnew prompt é\n");
  });

  test("a compressed rollout now shorter than the range's start is shown whole", async () => {
    const { home, service, ctx, run } = setup();
    const { path, from, to } = rollout(home);
    const zst = zstdCompress(path);
    const refs = await service.resolve([`transcript:${zst}#bytes=${from}-${to}`], ctx);
    writeFileSync(path, codexMeta() + codexMessage("user", "short"));
    zstdCompress(path);
    const [brief] = await service.prepare(refs, run);
    expect(brief!.content).toContain("**User:**\nshort\n");
    expect(brief!.notes[0]).toMatch(/^The transcript is now shorter than the start of the new part/);
  });
});
