import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/runs/model.js";
import { projectSteps, type RunStep } from "../../src/runs/steps.js";

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
    const tools = new Map<string, RunStep>();
    const first = projectSteps([call], tools);
    const second = projectSteps([result], tools);
    expect(first[0]).toMatchObject({ tool: "write", target: "almanac/a.md", status: "started" });
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ tool: "write", target: "almanac/a.md", status: "completed", sequence: 2 });
    expect(first[0]!.status).toBe("started");
  });

  it("the agent's done and the run's done status show as one step", () => {
    const agentDone = harness(3, { kind: "done", message: "claude succeeded: Updated the wiki." });
    const runDone: RunEvent = { runId: "r", seq: 4, createdAt: 4, kind: "status", message: "done", payload: null };
    const steps = projectSteps([agentDone, runDone]);
    expect(steps.map((s) => s.title)).toEqual(["Done"]);
    expect(steps[0]).toMatchObject({ sequence: 4, body: "claude succeeded: Updated the wiki." });
  });

  it("without shared memory, a lone result is still shown, under its tool name", () => {
    const steps = projectSteps([result]);
    expect(steps[0]).toMatchObject({ tool: "Write", status: "completed" });
  });
});
