import { describe, expect, test } from "vitest";
import { HARNESS_EVENT_KINDS, runEventKindFor, type HarnessEventKind } from "../../src/harnesses/events.js";
import { HarnessEventSchema, parseHarnessEvent } from "../../src/harnesses/events-schema.js";

describe("runEventKindFor", () => {
  test("drops text_delta and maps every other event kind to its ledger kind", () => {
    const expected: Record<HarnessEventKind, "tool" | "output" | "error" | null> = {
      text_delta: null,
      error: "error",
      tool_use: "tool",
      tool_result: "tool",
      tool_summary: "tool",
      context_usage: "tool",
      provider_session: "tool",
      warning: "tool",
      agent_spawned: "tool",
      agent_wait_started: "tool",
      agent_completed: "tool",
      text: "output",
      done: "output",
      tool_request: "output",
      approval_request: "output",
      user_input_request: "output",
      request_resolved: "output",
      hook: "output",
      rate_limit: "output",
      goal_updated: "output",
      goal_cleared: "output",
      stream_event: "output",
      unknown: "output",
    };
    expect(HARNESS_EVENT_KINDS).toHaveLength(23);
    for (const kind of HARNESS_EVENT_KINDS) expect(runEventKindFor(kind), kind).toBe(expected[kind]);
  });
});

describe("HarnessEventSchema", () => {
  test("accepts a full event and keeps it intact", () => {
    const event = {
      kind: "tool_result",
      message: "Read src/a.ts: done",
      status: "succeeded",
      actor: { thread_id: "s1", role: "root", label: "Main", confidence: "provider" },
      tool_id: "toolu_1",
      tool_name: "Read",
      tool_input: '{"file_path":"src/a.ts"}',
      tool_display: { kind: "read", title: "Read src/a.ts", path: "src/a.ts", status: "completed", duration_ms: 3 },
      tool_result: { any: ["json", 1, null] },
      tool_is_error: false,
      usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
      provider_session_id: "s1",
      failure: { provider: "claude", message: "boom", code: "claude.process_failed", details: { a: 1 } },
      agent_trace: { child_thread_ids: ["c1"], prompt: "do it" },
    };
    expect(parseHarnessEvent(event)).toEqual(event);
  });

  test("tolerates newer writers: extra fields pass through, unknown vocabulary degrades", () => {
    const parsed = parseHarnessEvent({
      kind: "quantum_leap",
      message: "something new",
      brand_new_field: { nested: true },
      actor: { role: "overseer", confidence: "telepathic", mood: "calm" },
      tool_display: { kind: "hologram", status: "teleported", extra: 1 },
    });
    expect(parsed.kind).toBe("unknown");
    expect(parsed.actor).toEqual({ role: "unknown", confidence: "unknown", mood: "calm" });
    expect(parsed.tool_display?.kind).toBe("unknown");
    expect(parsed.tool_display?.status).toBeUndefined();
    expect((parsed as unknown as Record<string, unknown>).brand_new_field).toEqual({ nested: true });
  });

  test("rejects what breaks the contract: blank message, blank optional strings, missing kind", () => {
    expect(HarnessEventSchema.safeParse({ kind: "text", message: "  " }).success).toBe(false);
    expect(HarnessEventSchema.safeParse({ kind: "text", message: "hi", tool_id: "" }).success).toBe(false);
    expect(HarnessEventSchema.safeParse({ message: "hi" }).success).toBe(false);
    expect(HarnessEventSchema.safeParse({ kind: "done", message: "x", status: "exploded" }).success).toBe(false);
  });
});
