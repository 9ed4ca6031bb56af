import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import {
  classifyClaudeFailure,
  classifyClaudeResult,
  createClaudeStreamParser,
  toolDisplayKind,
  type ClaudeResultLine,
} from "../../src/harnesses/claude/stream.js";
import type { HarnessEvent } from "../../src/harnesses/events.js";
import { HarnessEventSchema } from "../../src/harnesses/events-schema.js";

const fixture = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../fixtures/claude-stream/${name}`, import.meta.url)), "utf8");

function parseAll(text: string, cwd?: string) {
  const parser = createClaudeStreamParser(cwd ? { cwd } : {});
  const events = text.split("\n").flatMap((line) => parser.push(line));
  return { events, parser, ...parser.finish() };
}

function expectReadable(events: HarnessEvent[]) {
  for (const event of events) {
    expect(event.message.trim(), JSON.stringify(event)).not.toBe("");
    expect(HarnessEventSchema.safeParse(event).success, JSON.stringify(event)).toBe(true);
  }
}

const SESSION = "07a0ca6e-0822-48f3-ac03-1199972a8469";

describe("Claude stream parser on the recorded success run", () => {
  test("projects session, text, tools and results in order, with readable relative messages", () => {
    const { events, sessionId, result } = parseAll(fixture("edit-two-files-success.jsonl"), "/home/dev/src/invoice-api");
    expect(sessionId).toBe(SESSION);
    expect(events.map((event) => [event.kind, event.message])).toEqual([
      ["provider_session", `Claude session ${SESSION}`],
      ["text", "I'll look at the totals helper, fix the multiplication bug, and add a regression test."],
      ["tool_use", "Read src/totals.ts"],
      ["tool_result", "Read src/totals.ts: done"],
      ["tool_use", "Edit src/totals.ts"],
      ["tool_result", "Edit src/totals.ts: done"],
      ["tool_use", "Write test/totals.test.ts"],
      ["tool_result", "Write test/totals.test.ts: done"],
      [
        "text",
        "Fixed `lineTotal` in src/totals.ts (it added instead of multiplying) and added test/totals.test.ts covering the case.",
      ],
    ]);
    expectReadable(events);

    const edit = events[4]!;
    expect(edit).toMatchObject({
      tool_id: "toolu_01Ed7wQ2mKx9VbN4cRt6Ls8p",
      tool_name: "Edit",
      tool_display: { kind: "edit", title: "Edit src/totals.ts", path: "src/totals.ts", status: "started" },
      provider_session_id: SESSION,
      provider_event_id: "01a9e71f-de8a-474b-8f36-d58b47378190",
      actor: { thread_id: SESSION, role: "root", label: "Main", confidence: "provider" },
    });
    expect(JSON.parse(edit.tool_input!)).toMatchObject({ old_string: "return qty + unitCents;" });

    const readResult = events[3]!;
    expect(readResult).toMatchObject({
      tool_id: "toolu_01Rk3pV8sLm2XcQ7aTz5Nw4e",
      tool_name: "Read",
      tool_is_error: false,
      tool_display: { kind: "read", status: "completed", path: "src/totals.ts" },
    });
    expect(readResult.tool_result).toContain("return qty + unitCents;");

    expect(result).toMatchObject({ subtype: "success", is_error: false, total_cost_usd: 0.04187, num_turns: 4 });
    expect(result?.usage).toMatchObject({ input_tokens: 38173, output_tokens: 612, cache_read_input_tokens: 36525 });
    expect(classifyClaudeResult(result!)).toBeNull();
  });

  test("without a cwd option, paths are made relative to the cwd the init line reports", () => {
    const { events } = parseAll(fixture("edit-two-files-success.jsonl"));
    expect(events.filter((event) => event.kind === "tool_use").map((event) => event.tool_display?.path)).toEqual([
      "src/totals.ts",
      "src/totals.ts",
      "test/totals.test.ts",
    ]);
  });
});

describe("Claude stream parser on the recorded run that Claude Code's own stream idle timeout ended", () => {
  // Claude Code 2.1.332 against a local API that sent message_start and then nothing, with its
  // non-streaming fallback off: ten silent minutes (two five-minute stalls), then these lines.
  test("the synthetic error and the failed result are a timeout", () => {
    const { events, result } = parseAll(fixture("error-stream-idle-timeout.jsonl"));
    expect(events.map((event) => event.kind)).toEqual(["provider_session", "error"]);
    expect(events[1]).toMatchObject({ message: "API Error: Stream idle timeout - no chunks received", failure: { code: "timeout" } });
    expectReadable(events);
    expect(result).toMatchObject({ subtype: "success", is_error: true, api_error: "stream_idle_timeout", duration_ms: 600244 });
    expect(classifyClaudeResult(result!)).toMatchObject({ code: "timeout", message: "API Error: Stream idle timeout - no chunks received" });
  });
});

describe("Claude stream parser on the recorded not-logged-in run", () => {
  test("turns the synthetic assistant line into an error with a login fix and captures the failed result", () => {
    const { events, sessionId, result } = parseAll(fixture("error-not-logged-in.jsonl"));
    expect(sessionId).toBe("5a8e2c71-4f09-4d3b-b6e1-0c9f7a2d4e58");
    expect(events.map((event) => event.kind)).toEqual(["provider_session", "error"]);
    expect(events[1]).toMatchObject({
      message: "Not logged in · Please run /login",
      failure: {
        provider: "claude",
        code: "claude.not_authenticated",
        message: "Not logged in · Please run /login",
        fix: "run `claude auth login` or set ANTHROPIC_API_KEY",
      },
    });
    expectReadable(events);
    expect(result).toMatchObject({ subtype: "success", is_error: true, result: "Not logged in · Please run /login" });
    expect(classifyClaudeResult(result!)).toEqual({
      provider: "claude",
      code: "claude.not_authenticated",
      message: "Not logged in · Please run /login",
      fix: "run `claude auth login` or set ANTHROPIC_API_KEY",
    });
  });
});

describe("Claude stream parser tolerance", () => {
  test("ignores garbage, unknown line types, unknown blocks and missing fields without throwing", () => {
    const parser = createClaudeStreamParser();
    const lines = [
      "",
      "   ",
      "not json at all",
      "{broken json",
      "[1,2,3]",
      "42",
      "null",
      JSON.stringify({ no_type: true }),
      JSON.stringify({ type: "brand_new_line", payload: { x: 1 } }),
      JSON.stringify({ type: "system", subtype: "task_progress", usage: { total_tokens: 5 } }),
      JSON.stringify({ type: "assistant" }),
      JSON.stringify({ type: "assistant", message: { content: "not an array" } }),
      JSON.stringify({ type: "assistant", message: { content: [null, 3, { type: "thinking", thinking: "hmm" }] } }),
      JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text: "   " }] } }),
      JSON.stringify({ type: "user", message: { content: "a plain prompt echo" } }),
      JSON.stringify({ type: "user", message: { content: [{ type: "tool_result" }] } }),
      JSON.stringify({ type: "result" }),
      JSON.stringify({ type: "rate_limit_event", rate_limit_info: { status: "allowed" } }),
    ];
    const events = lines.flatMap((line) => parser.push(line));
    // Only the tool_result without an id or content still produces something readable.
    expect(events.map((event) => event.kind)).toEqual(["tool_result"]);
    expectReadable(events);
    const { result, sessionId } = parser.finish();
    expect(sessionId).toBeNull();
    expect(result).toMatchObject({ type: "result", subtype: "unknown", is_error: true });
  });

  test("a chunk holding several lines is split, and the first session id wins", () => {
    const parser = createClaudeStreamParser();
    const chunk = [
      JSON.stringify({ type: "system", subtype: "init", session_id: "first", cwd: "/r" }),
      JSON.stringify({ type: "system", subtype: "init", session_id: "second", cwd: "/r" }),
      JSON.stringify({ type: "assistant", session_id: "second", message: { content: [{ type: "text", text: "hi" }] } }),
    ].join("\n");
    const events = parser.push(chunk);
    expect(events.map((event) => event.kind)).toEqual(["provider_session", "text"]);
    expect(events[1]?.actor?.thread_id).toBe("first");
    expect(parser.finish().sessionId).toBe("first");
  });

  test("paths outside the cwd stay absolute; shell, search, web and mcp tools get readable titles", () => {
    const parser = createClaudeStreamParser({ cwd: "/repo" });
    parser.push(JSON.stringify({ type: "system", subtype: "init", session_id: "s", cwd: "/repo" }));
    const use = (name: string, input: unknown) =>
      parser.push(JSON.stringify({ type: "assistant", message: { content: [{ type: "tool_use", id: `t-${name}`, name, input }] } }))[0]!;
    expect(use("Read", { file_path: "/etc/hosts" }).message).toBe("Read /etc/hosts");
    expect(use("Read", { file_path: "/repo2/x.ts" }).message).toBe("Read /repo2/x.ts");
    const bash = use("Bash", { command: "git status\ngit diff", description: "status" });
    expect(bash.message).toBe("Bash: git status");
    expect(bash.tool_display).toMatchObject({ kind: "shell", command: "git status\ngit diff" });
    expect(use("Grep", { pattern: "TODO", path: "/repo/src" }).message).toBe('Grep "TODO" in src');
    expect(use("Glob", { pattern: "**/*.md" }).message).toBe("Glob **/*.md");
    expect(use("WebFetch", { url: "https://example.com" }).tool_display?.kind).toBe("web");
    expect(use("mcp__github__search_issues", { q: "x" }).message).toBe("MCP github/search_issues");
    expect(use("TodoWrite", { todos: [] }).message).toBe("TodoWrite");
    expect(use("MultiEdit", { file_path: "/repo/a.md", edits: [] }).message).toBe("MultiEdit a.md");
  });

  test("a failed tool result is marked as an error with a one-line reason", () => {
    const parser = createClaudeStreamParser();
    parser.push(JSON.stringify({ type: "assistant", message: { content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }] } }));
    const [failed] = parser.push(
      JSON.stringify({
        type: "user",
        message: { content: [{ type: "tool_result", tool_use_id: "t1", is_error: true, content: [{ type: "text", text: "This command requires approval" }] }] },
      }),
    );
    expect(failed).toMatchObject({
      kind: "tool_result",
      message: "Bash: npm test: failed: This command requires approval",
      tool_is_error: true,
      tool_result: "This command requires approval",
      tool_display: { kind: "shell", status: "failed", summary: "This command requires approval" },
    });
  });
});

describe("Claude stream parser: helpers (subagents)", () => {
  const S = "sess-1";
  const AGENT = "toolu_agent_1";
  const lines = [
    { type: "system", subtype: "init", session_id: S, cwd: "/repo" },
    {
      type: "assistant",
      parent_tool_use_id: null,
      session_id: S,
      message: {
        content: [
          {
            type: "tool_use",
            id: AGENT,
            name: "Agent",
            input: { description: "Survey billing", prompt: "Look at src/billing and report.", subagent_type: "Explore" },
          },
        ],
      },
    },
    { type: "system", subtype: "task_started", task_id: "a0123456789abcdef", tool_use_id: AGENT, session_id: S },
    { type: "user", parent_tool_use_id: AGENT, session_id: S, message: { role: "user", content: [{ type: "text", text: "Look at src/billing and report." }] } },
    { type: "assistant", parent_tool_use_id: AGENT, session_id: S, message: { content: [{ type: "tool_use", id: "toolu_inner", name: "Read", input: { file_path: "/repo/src/billing.ts" } }] } },
    { type: "user", parent_tool_use_id: AGENT, session_id: S, message: { content: [{ type: "tool_result", tool_use_id: "toolu_inner", content: "code" }] } },
    { type: "assistant", parent_tool_use_id: AGENT, session_id: S, message: { content: [{ type: "text", text: "Billing rounds down." }] } },
    { type: "system", subtype: "task_notification", task_id: "a0123456789abcdef", status: "completed", session_id: S },
    {
      type: "user",
      parent_tool_use_id: null,
      session_id: S,
      message: { content: [{ type: "tool_result", tool_use_id: AGENT, content: [{ type: "text", text: "Billing rounds down." }, { type: "text", text: "agentId: a0123456789abcdef" }] }] },
    },
    // A duplicate result for the same agent must not complete it twice.
    { type: "user", parent_tool_use_id: null, session_id: S, message: { content: [{ type: "tool_result", tool_use_id: AGENT, content: "again" }] } },
    { type: "assistant", parent_tool_use_id: null, session_id: S, message: { content: [{ type: "text", text: "Done." }] } },
  ];

  test("lines inside an Agent call are attributed to a derived helper actor, spawned and completed once", () => {
    const parser = createClaudeStreamParser({ cwd: "/repo" });
    const events = lines.flatMap((line) => parser.push(JSON.stringify(line)));
    expectReadable(events);
    expect(events.map((event) => [event.kind, event.message, event.actor?.label])).toEqual([
      ["provider_session", `Claude session ${S}`, "Main"],
      ["tool_use", "Agent: Survey billing", "Main"],
      ["agent_spawned", "spawned Helper 1: Survey billing", "Main"],
      ["tool_use", "Read src/billing.ts", "Helper 1"],
      ["tool_result", "Read src/billing.ts: done", "Helper 1"],
      ["text", "Billing rounds down.", "Helper 1"],
      ["tool_result", "Agent: Survey billing: done", "Main"],
      ["agent_completed", "Helper 1 finished", "Main"],
      ["tool_result", "Agent: Survey billing: done", "Main"],
      ["text", "Done.", "Main"],
    ]);
    const helperEvent = events[3]!;
    expect(helperEvent.actor).toEqual({
      thread_id: AGENT,
      role: "helper",
      parent_thread_id: S,
      label: "Helper 1",
      confidence: "derived",
    });
    expect(helperEvent.provider_parent_tool_use_id).toBe(AGENT);
    expect(events[2]?.agent_trace).toEqual({
      parent_thread_id: S,
      child_thread_id: AGENT,
      child_thread_ids: [AGENT],
      prompt: "Look at src/billing and report.",
    });
    expect(events[7]?.agent_trace).toMatchObject({ child_thread_id: AGENT, result: "Billing rounds down.\nagentId: a0123456789abcdef" });
  });

  test("the ≤2.0 `Task` tool spawns helpers too, numbered in first-seen order", () => {
    const parser = createClaudeStreamParser();
    parser.push(JSON.stringify({ type: "system", subtype: "init", session_id: S }));
    const spawns = ["t1", "t2"].flatMap((id) =>
      parser.push(JSON.stringify({ type: "assistant", message: { content: [{ type: "tool_use", id, name: "Task", input: { description: `job ${id}`, prompt: "p" } }] } })),
    );
    expect(spawns.filter((event) => event.kind === "agent_spawned").map((event) => event.message)).toEqual([
      "spawned Helper 1: job t1",
      "spawned Helper 2: job t2",
    ]);
    const [inner] = parser.push(JSON.stringify({ type: "assistant", parent_tool_use_id: "t2", message: { content: [{ type: "text", text: "working" }] } }));
    expect(inner?.actor?.label).toBe("Helper 2");
  });
});

describe("api_retry and failure classification", () => {
  test("an authentication api_retry becomes one error and flags the parser; other retries are warnings", () => {
    const parser = createClaudeStreamParser();
    parser.push(JSON.stringify({ type: "system", subtype: "init", session_id: "s" }));
    const warning = parser.push(JSON.stringify({ type: "system", subtype: "api_retry", attempt: 1, max_retries: 10, error_status: 529, error: "overloaded" }));
    expect(warning.map((event) => [event.kind, event.message])).toEqual([
      ["warning", "Claude API retry (attempt 1 of 10): overloaded (HTTP 529)"],
    ]);
    expect(parser.authenticationFailure).toBeNull();
    const retry = { type: "system", subtype: "api_retry", attempt: 2, max_retries: 10, error_status: 401, error: "authentication_failed" };
    const first = parser.push(JSON.stringify(retry));
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ kind: "error", failure: { code: "claude.not_authenticated" } });
    expect(first[0]?.message).toBe("Claude API authentication failed (HTTP 401) (attempt 2 of 10)");
    expect(parser.authenticationFailure).toMatchObject({ code: "claude.not_authenticated", fix: expect.any(String) });
    expect(parser.push(JSON.stringify({ ...retry, attempt: 3 }))).toEqual([]);
  });

  const result = (fields: Partial<ClaudeResultLine>): ClaudeResultLine => ({
    type: "result",
    subtype: "success",
    is_error: false,
    ...fields,
  });

  test.each([
    [{ subtype: "error_max_turns", is_error: true, errors: ["Reached maximum number of turns (1)"] }, "claude.error_max_turns", "Reached maximum number of turns (1)"],
    [{ subtype: "error_max_budget_usd", is_error: true, errors: ["Budget exceeded"] }, "claude.max_budget_exceeded", "Budget exceeded"],
    [{ subtype: "error_during_execution", is_error: true, errors: ["a", "b"] }, "claude.error_during_execution", "a; b"],
    [{ subtype: "success", is_error: true, result: "API Error: 400 bad request" }, "claude.process_failed", "API Error: 400 bad request"],
    // Claude Code's own stream idle timeout (2.1.332, after two five-minute stalls) is a timeout like ours.
    [{ subtype: "success", is_error: true, result: "API Error: Stream idle timeout - no chunks received" }, "timeout", "API Error: Stream idle timeout - no chunks received"],
    [{ subtype: "success", is_error: true, result: "Invalid authentication credentials" }, "claude.not_authenticated", "Invalid authentication credentials"],
    [
      { subtype: "success", is_error: true, result: "Invalid API key · Fix external API key", api_error_status: 401 },
      "claude.not_authenticated",
      "Invalid API key · Fix external API key",
    ],
    [{ subtype: "error_during_execution", is_error: true }, "claude.error_during_execution", "claude error_during_execution"],
  ])("result %o → %s", (fields, code, message) => {
    expect(classifyClaudeResult(result(fields))).toMatchObject({ provider: "claude", code, message });
  });

  test("synthetic assistant errors other than auth keep their error code", () => {
    expect(classifyClaudeFailure({ text: "Rate limited", error: "rate_limit" }).code).toBe("claude.rate_limit");
  });

  test("display kinds per tool name", () => {
    expect(
      ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "BashOutput", "KillBash", "Grep", "Glob", "WebFetch", "WebSearch", "Agent", "Task", "mcp__x__y", "Skill"].map(toolDisplayKind),
    ).toEqual(["read", "write", "edit", "edit", "edit", "shell", "shell", "shell", "search", "search", "web", "web", "agent", "agent", "mcp", "unknown"]);
  });
});
