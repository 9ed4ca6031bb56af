import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, test } from "vitest";
import { classifyClaudeResult, createClaudeStreamParser } from "../../src/harnesses/claude/stream.js";
import { conclude, EventSink, failedWith } from "../../src/harnesses/outcome.js";
import type { RunEvent } from "../../src/runs/model.js";
import { projectSteps, stepMemory } from "../../src/runs/steps.js";

function harness(seq: number, payload: Record<string, unknown>): RunEvent {
  return { runId: "r", seq, createdAt: seq, kind: "tool", message: "", payload };
}

const call = harness(1, { kind: "tool_use", tool_id: "t1", tool_name: "Write", tool_display: { kind: "write", title: "Write", path: "almanac/a.md" } });
const result = harness(2, { kind: "tool_result", tool_id: "t1", tool_name: "Write", tool_result: "ok" });

describe("projectSteps", () => {
  it("pairs a tool call with its result in one batch", () => {
    const steps = projectSteps([call, result]);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ tool: "write", target: "almanac/a.md", status: "completed" });
  });

  it("a result that arrives in a later batch still names the tool and target it belongs to", () => {
    const memory = stepMemory();
    const first = projectSteps([call], memory);
    const second = projectSteps([result], memory);
    expect(first[0]).toMatchObject({ tool: "write", target: "almanac/a.md", status: "started" });
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ tool: "write", target: "almanac/a.md", status: "completed", sequence: 2 });
    expect(first[0]!.status).toBe("started");
  });

  it("the agent's done is its own step, so the run's steps after it never print a second Done", () => {
    const agentDone = harness(3, { kind: "done", message: "claude succeeded: Updated the wiki." });
    const commit: RunEvent = { runId: "r", seq: 4, createdAt: 4, kind: "message", message: "nothing to commit: no file under almanac/ changed", payload: null };
    const runDone: RunEvent = { runId: "r", seq: 5, createdAt: 5, kind: "status", message: "done", payload: null };
    const all = projectSteps([agentDone, commit, runDone]);
    expect(all.map((s) => s.title)).toEqual(["Agent finished", "Nothing to commit: no file under almanac/ changed", "Done"]);
    expect(all[0]).toMatchObject({ body: "claude succeeded: Updated the wiki." });
    // Streamed in two batches, as a follower reads them: still one Done.
    const memory = stepMemory();
    const streamed = [...projectSteps([agentDone], memory), ...projectSteps([commit, runDone], memory)];
    expect(streamed.filter((s) => s.title === "Done")).toHaveLength(1);
  });

  it("without shared memory, a lone result is still shown, under its tool name", () => {
    const steps = projectSteps([result]);
    expect(steps[0]).toMatchObject({ tool: "Write", status: "completed" });
  });
});

/**
 * One failure as a Claude run records it: the agent's error event, its `done` carrying the
 * same failure, and the run's own error, which the lifecycle runner writes as
 * `harness claude failed: <message> (<fix>)` (src/lifecycle/runner.ts).
 */
function recordedFailure(fixtureName: string): RunEvent[] {
  const parser = createClaudeStreamParser();
  const raw = readFileSync(fileURLToPath(new URL(`../fixtures/claude-stream/${fixtureName}`, import.meta.url)), "utf8");
  const harnessEvents = raw.split("\n").flatMap((line) => parser.push(line));
  const failure = classifyClaudeResult(parser.finish().result!)!;
  const sink = new EventSink(() => undefined);
  conclude(sink, { kind: "claude", outcome: failedWith(failure), sessionId: null, transcriptPath: null, usage: null, costUsd: null });
  const events = [...harnessEvents, ...sink.events].map((payload, index) => harness(index + 1, { ...payload }));
  const runError = `harness claude failed: ${failure.message} (${failure.fix})`;
  events.push({ runId: "r", seq: events.length + 1, createdAt: events.length + 1, kind: "error", message: runError, payload: null });
  events.push({ runId: "r", seq: events.length + 1, createdAt: events.length + 1, kind: "status", message: "failed", payload: null });
  return events;
}

/** Every way a follower may have read these events: all at once, or one poll per event. */
function batchings(events: RunEvent[]): RunEvent[][][] {
  return [[events], events.map((event) => [event])];
}

describe("each failure is shown once", () => {
  const recorded = [
    ["error-not-logged-in.jsonl", "Not logged in · Please run /login", "run `claude auth login` or set ANTHROPIC_API_KEY"],
    ["error-stream-idle-timeout.jsonl", "API Error: Stream idle timeout - no chunks received", expect.stringContaining("CLAUDE_STREAM_IDLE_TIMEOUT_MS")],
  ] as const;

  for (const [fixtureName, message, fix] of recorded) {
    const events = recordedFailure(fixtureName);

    test(`the recorded ${fixtureName} stream reports its failure three times`, () => {
      const texts = events.filter((e) => e.kind === "error" || (e.payload as { failure?: unknown } | null)?.failure).map((e) => e.message);
      expect(texts).toHaveLength(3);
    });

    for (const [name, batches] of [["in one batch", batchings(events)[0]!], ["one event per batch", batchings(events)[1]!]] as const) {
      test(`${fixtureName}: the agent's error, its done and the run's error are one step (${name}), with the fix`, () => {
        const memory = stepMemory();
        const errors = batches.flatMap((batch) => projectSteps(batch, memory)).filter((step) => step.kind === "error");
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatchObject({ body: message, detail: fix });
      });
    }
  }

  test("a crash reported by done and by the run, in separate polls, is one step", () => {
    const done = harness(1, { kind: "done", message: "claude failed: fatal: simulated crash", failure: { message: "fatal: simulated crash" } });
    const warning: RunEvent = { runId: "r", seq: 2, createdAt: 2, kind: "warning", message: "not a git repository", payload: null };
    const runError: RunEvent = { runId: "r", seq: 3, createdAt: 3, kind: "error", message: "harness claude failed: fatal: simulated crash", payload: null };
    const memory = stepMemory();
    const steps = [[done], [warning], [runError]].flatMap((batch) => projectSteps(batch, memory));
    expect(steps.filter((s) => s.kind === "error").map((s) => s.body)).toEqual(["fatal: simulated crash"]);
  });

  test("a different failure after one already shown is still shown", () => {
    const memory = stepMemory();
    const first = projectSteps([harness(1, { kind: "error", message: "Reconnecting... 1/5 (stream disconnected)" })], memory);
    const second = projectSteps([{ runId: "r", seq: 2, createdAt: 2, kind: "error", message: "validation failed: broken_link: x (a)", payload: null }], memory);
    expect([...first, ...second].map((s) => s.body)).toEqual(["Reconnecting... 1/5 (stream disconnected)", "validation failed: broken_link: x (a)"]);
  });
});
