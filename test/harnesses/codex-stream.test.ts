import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { createCodexStreamParser } from "../../src/harnesses/codex/stream.js";
import { classifyCodexFailure } from "../../src/harnesses/codex/failures.js";
import { HarnessEventSchema } from "../../src/harnesses/events-schema.js";
import type { HarnessEvent } from "../../src/harnesses/events.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/codex-exec/", import.meta.url));

function parse(lines: string[], cwd = "/home/dev/src/invoice-api") {
  const parser = createCodexStreamParser({ cwd });
  const events: HarnessEvent[] = [];
  for (const line of lines) events.push(...parser.push(line));
  events.push(...parser.flush());
  for (const event of events) expect(HarnessEventSchema.safeParse(event).success).toBe(true);
  return { events, state: parser.state };
}

function fixture(name: string): string[] {
  return readFileSync(join(FIXTURES, name), "utf8").split("\n");
}

const line = (value: unknown) => JSON.stringify(value);

describe("codex exec --json stream", () => {
  test("a successful edit run: session, tool steps paired by item id, the answer, usage", () => {
    const { events, state } = parse(fixture("edit-two-files-success.jsonl"));
    expect(events.map((e) => [e.kind, e.message])).toEqual([
      ["provider_session", "Codex thread 01a21c11-9170-7064-9c80-317fa3b1799d"],
      ["tool_use", "Run: sed -n 1,40p src/totals.ts"],
      ["tool_result", "Run: sed -n 1,40p src/totals.ts: done"],
      ["tool_use", "Edit 2 files"],
      ["tool_result", "Edit 2 files: done"],
      ["tool_use", "Run: npm test --silent"],
      ["tool_result", "Run: npm test --silent: done"],
      ["text", "Fixed `lineTotal` in src/totals.ts and added test/totals.test.ts; `npm test` passes."],
      ["context_usage", "tokens: 48210 in, 1377 out"],
    ]);
    const edit = events.find((e) => e.kind === "tool_use" && e.tool_name === "apply_patch")!;
    expect(edit.tool_display).toMatchObject({ kind: "edit", path: "src/totals.ts", status: "started" });
    expect(events.find((e) => e.kind === "tool_result")).toMatchObject({ tool_id: "item_1", tool_is_error: false });
    expect(state).toMatchObject({
      threadId: "01a21c11-9170-7064-9c80-317fa3b1799d",
      completed: true,
      failure: null,
      legacy: false,
      answer: "Fixed `lineTotal` in src/totals.ts and added test/totals.test.ts; `npm test` passes.",
      usage: { input_tokens: 48210, cached_input_tokens: 41984, output_tokens: 1377, reasoning_output_tokens: 640, total_tokens: 49587 },
    });
    expect(events.every((e) => e.provider_session_id === state.threadId)).toBe(true);
  });

  test("a 401: one error event carrying the not-authenticated failure and its fix; the notice before it is not repeated", () => {
    const { events, state } = parse(fixture("turn-failed-unauthorized.jsonl"));
    expect(events.map((e) => e.kind)).toEqual(["provider_session", "error"]);
    expect(state.failure).toMatchObject({ provider: "codex", code: "codex.not_authenticated", fix: "run `codex login` or set OPENAI_API_KEY" });
    expect(events[1]!.failure?.code).toBe("codex.not_authenticated");
    expect(state.completed).toBe(false);
  });

  test("a 401 carries the login fix the adapter was given (a custom provider's own variable)", () => {
    const parser = createCodexStreamParser({ cwd: "/w", loginFix: "set ACME_LLM_KEY" });
    for (const one of fixture("turn-failed-unauthorized.jsonl")) parser.push(one);
    parser.flush();
    expect(parser.state.failure).toMatchObject({ code: "codex.not_authenticated", fix: "set ACME_LLM_KEY" });
  });

  test("reconnect notices are warnings; a turn that fails after them gave up on the network", () => {
    const { events, state } = parse([
      line({ type: "thread.started", thread_id: "t-1" }),
      line({ type: "turn.started" }),
      line({ type: "error", message: "Reconnecting... 1/5 (stream disconnected before completion)" }),
      line({ type: "error", message: "Reconnecting... 5/5 (stream disconnected before completion)" }),
      line({ type: "error", message: "stream disconnected before completion: idle timeout" }),
      line({ type: "turn.failed", error: { message: "stream disconnected before completion: idle timeout" } }),
    ]);
    expect(events.map((e) => e.kind)).toEqual(["provider_session", "warning", "warning", "error"]);
    expect(state.failure?.code).toBe("codex.reconnects_exhausted");
  });

  test("three `waiting for network` notices in a row fail the run; progress in between starts the count again", () => {
    const offline = line({ type: "error", message: "Reconnecting... waiting for network (stream disconnected before completion)" });
    const progress = line({ type: "item.completed", item: { id: "item_0", type: "agent_message", text: "Looking." } });
    const recovered = parse([line({ type: "thread.started", thread_id: "t-1" }), offline, offline, progress, offline, offline]);
    expect(recovered.state.failure).toBeNull();
    expect(recovered.events.map((e) => e.kind)).toEqual(["provider_session", "warning", "warning", "text", "warning", "warning"]);
    const stuck = parse([line({ type: "thread.started", thread_id: "t-1" }), offline, offline, offline, offline]);
    expect(stuck.events.map((e) => e.kind)).toEqual(["provider_session", "warning", "warning", "error", "warning"]);
    expect(stuck.state.failure).toMatchObject({ code: "codex.provider_unreachable", fix: expect.stringMatching(/codex login/) });
  });

  test("the notices the real Codex 0.171 prints with no provider to reach fail the run the same way", () => {
    // Recorded from `codex exec --json` with its provider's base_url on a closed port: four such
    // lines and nothing else in 90 s after thread.started and turn.started, until it was killed.
    const real = line({ type: "error", message: "Reconnecting... waiting for network (Connection failed: error sending request)" });
    const { state } = parse([line({ type: "thread.started", thread_id: "t-1" }), line({ type: "turn.started" }), real, real, real]);
    expect(state.failure).toMatchObject({ code: "codex.provider_unreachable" });
  });

  test("a non-fatal error notice stays a warning", () => {
    const { events, state } = parse([
      line({ type: "thread.started", thread_id: "t-1" }),
      line({ type: "error", message: "Model metadata for `gpt-x` not found. Defaulting to fallback metadata" }),
      line({ type: "item.completed", item: { id: "item_0", type: "agent_message", text: "Nothing to do." } }),
      line({ type: "turn.completed", usage: { input_tokens: 1, output_tokens: 2 } }),
    ]);
    expect(events.map((e) => e.kind)).toEqual(["provider_session", "warning", "text", "context_usage"]);
    expect(state.failure).toBeNull();
    expect(state.answer).toBe("Nothing to do.");
  });

  test("a failed command and a declined patch are failed tool results", () => {
    const { events } = parse([
      line({ type: "item.started", item: { id: "i1", type: "command_execution", command: "/bin/bash -lc 'false'", status: "in_progress" } }),
      line({ type: "item.completed", item: { id: "i1", type: "command_execution", command: "/bin/bash -lc 'false'", aggregated_output: "boom\n", exit_code: 1, status: "failed" } }),
      line({ type: "item.completed", item: { id: "i2", type: "file_change", changes: [{ path: "/etc/passwd", kind: "update" }], status: "failed" } }),
    ]);
    const results = events.filter((e) => e.kind === "tool_result");
    expect(results.map((e) => [e.message, e.tool_is_error, e.tool_display?.status])).toEqual([
      ["Run: false: failed", true, "failed"],
      ["Edit /etc/passwd: failed", true, "failed"],
    ]);
    expect(results[0]!.tool_display?.summary).toBe("boom");
    expect(events.filter((e) => e.kind === "tool_use")).toHaveLength(2);
  });

  test("the pre-0.44 stream is recognised as legacy", () => {
    const { state } = parse([
      line({ model: "gpt-5", provider: "openai", sandbox: "read-only", approval: "never", workdir: "/x" }),
      line({ prompt: "hello" }),
      line({ id: "0", msg: { type: "task_started" } }),
    ]);
    expect(state.legacy).toBe(true);
  });

  test("unknown events, item types and junk lines are skipped", () => {
    const { events } = parse(["not json", "", line({ type: "future.event" }), line({ type: "item.completed", item: { id: "x", type: "hologram" } })]);
    expect(events).toEqual([]);
  });
});

describe("Codex failure classes", () => {
  test.each([
    ["unexpected status 401 Unauthorized: Incorrect API key provided", "codex.not_authenticated"],
    ["The 'gpt-9' model requires a newer version of Codex. Please upgrade to the latest app or CLI and try again.", "codex.model_requires_newer_cli"],
    ["The model `gpt-1` does not exist or you do not have access to it.", "codex.model_unavailable"],
    ["stream disconnected before completion", "codex.reconnects_exhausted"],
    ["something else entirely", "codex.turn_failed"],
  ])("%s → %s, with a fix unless generic", (message, code) => {
    const failure = classifyCodexFailure(message);
    expect(failure.code).toBe(code);
    expect(failure.message).toBe(message);
    if (code !== "codex.turn_failed") expect(failure.fix).toMatch(/\S/);
  });
});

describe("real captures", () => {
  test("a 401 during reconnects fails at the first notice, with the server's message", () => {
    const { events, state } = parse(fixture("unauthorized-reconnecting.jsonl"));
    expect(state.failure?.code).toBe("codex.not_authenticated");
    expect(state.failure?.message).toMatch(/^unexpected status 401 Unauthorized/);
    expect(events.findIndex((e) => e.kind === "error")).toBe(1);
  });

  test("a page write, a refused outside write (invisible in the stream) and an unknown-model notice", () => {
    const page = parse(fixture("write-page-success.jsonl"));
    expect(page.state.completed).toBe(true);
    expect(page.events.find((e) => e.tool_name === "apply_patch")?.tool_display).toMatchObject({
      kind: "write",
      path: "almanac/concepts/invoice-totals.md",
    });
    const outside = parse(fixture("write-outside-refused.jsonl"));
    expect(outside.state.completed).toBe(true);
    const unknown = parse(fixture("unknown-model-warning.jsonl"));
    expect(unknown.events.some((e) => e.kind === "warning" && /Model metadata/.test(e.message))).toBe(true);
    expect(unknown.state.failure).toBeNull();
  });

  test.each([
    ["stream-idle-timeout.jsonl", "codex.reconnects_exhausted"],
    ["stream-disconnected-reconnecting.jsonl", "codex.reconnects_exhausted"],
    ["unauthorized-fail-fast.jsonl", "codex.not_authenticated"],
  ])("%s → %s", (name, code) => {
    expect(parse(fixture(name)).state.failure?.code).toBe(code);
  });

  test("a missing key variable is an authentication failure whose fix names the variable", () => {
    const { state } = parse(fixture("missing-api-key-env.jsonl"));
    expect(state.failure).toMatchObject({ code: "codex.not_authenticated", fix: expect.stringMatching(/^set STANDIN_OPENAI_API_KEY /) });
  });
});
