import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { sniffTranscriptFormat } from "../../src/sources/transcripts/detect.js";
import { renderTranscript } from "../../src/sources/transcripts/render.js";
import { FIXTURES, tempDir } from "./helpers.js";

const TRANSCRIPTS = join(FIXTURES, "transcripts");
const OPTIONS = { maxLineBytes: 1024 * 1024, maxChars: 1_000_000 };

async function render(path: string, options = OPTIONS) {
  const format = await sniffTranscriptFormat(path, options.maxLineBytes);
  if (!format) throw new Error(`not a transcript: ${path}`);
  return renderTranscript(path, format, options);
}

/** The dialogue without the header (whose File line names the path). */
function dialogueOf(text: string): string {
  return text.slice(text.indexOf("**User:**"));
}

describe("Claude transcripts", () => {
  test("1.0: prompts, replies and one line per tool call; sidechains, tool output and command wrappers dropped", async () => {
    const { text, info, notes } = await render(join(TRANSCRIPTS, "claude-1.0.jsonl"));
    expect(info).toMatchObject({ format: "claude", sessionId: "11111111-1111-4111-8111-111111111111", cwd: "/home/dev/src/invoice-api", version: "1.0.128" });
    expect(dialogueOf(text)).toBe(
      [
        "**User:**",
        "Fix the rounding bug in totals: lineTotal must multiply.",
        "",
        "**Assistant:**",
        "I'll look at the totals helper.",
        "",
        "- ↳ Read: /home/dev/src/invoice-api/src/totals.ts",
        "- ↳ Task: Search for other callers",
        "",
        "Fixed: lineTotal now multiplies quantity by unit price.",
        "",
      ].join("\n"),
    );
    expect(notes[0]).toBe(
      "Condensed from 14 transcript lines: 1 user prompt, 2 assistant replies, 2 tool calls shown as one line each; tool output, reasoning and injected context were left out.",
    );
  });

  test("2.0: thinking, reminders and tool results dropped; blocks of one message stay together", async () => {
    const { text } = await render(join(TRANSCRIPTS, "claude-2.0.jsonl"));
    expect(text).toContain("Add a /health endpoint that reports the database status.");
    expect(text).toContain("- ↳ Write: /home/dev/src/shop/src/health.ts\n- ↳ Bash: npm test -- health");
    for (const hidden of ["PRIVATE THINKING", "Injected reminder", "LONG FILE CONTENT", "PASS health.test.ts", "File created"]) expect(text).not.toContain(hidden);
  });

  test("2.1: bookkeeping lines skipped, repeated lines shown once, the session title kept", async () => {
    const { text, info } = await render(join(TRANSCRIPTS, "claude-2.1.jsonl"));
    expect(info.title).toBe("refund queue");
    expect(text).toContain("- Title: refund queue");
    expect(text.match(/rate-limits them separately/g)).toHaveLength(1);
    expect(text).toContain("- ↳ Agent: Survey refund code");
    for (const hidden of ["SKILL LISTING", "agentId:", "DUPLICATE", "Refunds are retried"]) expect(text).not.toContain(hidden);
  });

  test("a subagent's own transcript is rendered, although every line is a sidechain", async () => {
    const { text } = await render(join(TRANSCRIPTS, "claude-2.1-subagent.jsonl"));
    expect(text).toContain("Read src/refunds and summarise");
    expect(text).toContain("Refunds are retried for 3 days.");
  });
});

describe("Codex rollouts", () => {
  const envelopeDialogue = [
    "**User:**",
    "Make lineTotal multiply and add a test.",
    "",
    "**Assistant:**",
    "- ↳ exec_command: sed -n 1,40p src/totals.ts",
    "- ↳ apply_patch: src/totals.ts, test/totals.test.ts",
    "- ↳ shell: npm test --silent",
    "",
    "lineTotal now multiplies; a test covers it.",
    "",
  ].join("\n");

  test("envelope: items are the record, events do not repeat them, injected context is dropped", async () => {
    const { text, info } = await render(join(TRANSCRIPTS, "codex-envelope.jsonl"));
    expect(info).toMatchObject({ format: "codex", sessionId: "019a1b2c-3d4e-7f00-8123-456789abcdef", cwd: "/home/dev/src/invoice-api", version: "0.171.0" });
    expect(dialogueOf(text)).toBe(envelopeDialogue);
    for (const hidden of ["AGENTS TEXT", "environment_context", "DEVELOPER TEXT", "TOOL OUTPUT", "PRIVATE REASONING", "HUGE BASE"]) expect(text).not.toContain(hidden);
  });

  test("a .jsonl.zst rollout reads like the plain one", async () => {
    const { text } = await render(join(TRANSCRIPTS, "codex-envelope.jsonl.zst"));
    expect(dialogueOf(text)).toBe(envelopeDialogue);
  });

  test("a rollout with only UI events falls back to them", async () => {
    const { text } = await render(join(TRANSCRIPTS, "codex-events-only.jsonl"));
    expect(dialogueOf(text)).toBe(
      [
        "**User:**",
        "Rename the --fast flag to --quick.",
        "",
        "**Assistant:**",
        "- ↳ command: rg -- --fast",
        "- ↳ file_change: /home/dev/src/cli/src/flags.ts",
        "",
        "Renamed; --fast still works as an alias.",
        "",
      ].join("\n"),
    );
  });

  test("the pre-envelope format: header identity, cwd from the environment block", async () => {
    const { text, info } = await render(join(TRANSCRIPTS, "codex-legacy.jsonl"));
    expect(info).toMatchObject({ sessionId: "5f2a1c9e-1111-4222-9333-444455556666", cwd: "/home/dev/src/legacy-app", startedAt: "2025-07-01T12:00:00.000Z" });
    expect(text).toContain("Why is the cache keyed by tenant?\n\n**Assistant:**\n- ↳ shell: grep -rn tenant src/cache");
  });
});

describe("damaged transcripts", () => {
  test("invalid UTF-8, a broken line and a torn last line are tolerated and counted", async () => {
    const dir = tempDir();
    const path = join(dir, "damaged.jsonl");
    const good = (uuid: string, role: "user" | "assistant", text: string) =>
      Buffer.from(`${JSON.stringify({ type: role, uuid, sessionId: "s-1", cwd: "/x", message: { role, content: text } })}\n`);
    writeFileSync(
      path,
      Buffer.concat([
        good("1", "user", "first prompt"),
        Buffer.from('{"type":"user","uuid":"2","sessionId":"s-1","message":{"role":"user","content":"bad \xff\xfe bytes"}}\n', "latin1"),
        Buffer.from("{not json\n"),
        good("3", "assistant", "a reply"),
        Buffer.from('{"type":"assistant","uuid":"4","message":{"role":"assist'),
      ]),
    );
    const { text, notes } = await render(path);
    expect(text).toContain("first prompt");
    expect(text).toContain("bad \uFFFD\uFFFD bytes");
    expect(text).toContain("a reply");
    expect(notes).toContain("2 unreadable or oversized transcript lines skipped.");
  });

  test("an oversized line is skipped without being held in memory", async () => {
    const dir = tempDir();
    const path = join(dir, "big.jsonl");
    const line = (uuid: string, text: string) => `${JSON.stringify({ type: "user", uuid, sessionId: "s", message: { role: "user", content: text } })}\n`;
    writeFileSync(path, line("1", "small") + line("2", "x".repeat(50_000)) + line("3", "after"));
    const { text, notes } = await render(path, { maxLineBytes: 10_000, maxChars: 1_000_000 });
    expect(text).toContain("small");
    expect(text).toContain("after");
    expect(text.includes("xxxxxxxxxx")).toBe(false);
    expect(notes).toContain("1 unreadable or oversized transcript line skipped.");
  });

  test("a rendered session over the memory ceiling keeps its start and its end", async () => {
    const dir = tempDir();
    const path = join(dir, "long.jsonl");
    const lines = Array.from({ length: 400 }, (_, index) =>
      JSON.stringify({ type: index % 2 ? "assistant" : "user", uuid: String(index), sessionId: "s", message: { role: index % 2 ? "assistant" : "user", content: `turn ${index} ${"words ".repeat(20)}` } }),
    );
    writeFileSync(path, `${lines.join("\n")}\n`);
    const { text, notes } = await render(path, { maxLineBytes: 1_000_000, maxChars: 8_000 });
    expect(text).toContain("turn 0 ");
    expect(text).toContain("turn 399 ");
    expect(text).not.toContain("turn 200 ");
    expect(notes.some((note) => /characters from its middle were dropped/.test(note))).toBe(true);
  });

  test("JSONL that no agent wrote is not a transcript", async () => {
    const dir = tempDir();
    copyFileSync(join(TRANSCRIPTS, "claude-2.0.jsonl"), join(dir, "ok.jsonl"));
    writeFileSync(join(dir, "rows.jsonl"), '{"type":"user","name":"Ann"}\n{"id":"x","timestamp":"t"}\n');
    expect(await sniffTranscriptFormat(join(dir, "ok.jsonl"), 1_000_000)).toBe("claude");
    expect(await sniffTranscriptFormat(join(dir, "rows.jsonl"), 1_000_000)).toBeNull();
  });
});
