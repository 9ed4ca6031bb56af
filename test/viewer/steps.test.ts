import { describe, expect, test } from "vitest";
import type { RunEvent } from "../../src/runs/model.js";
import { StepFeed } from "../../src/viewer/steps.js";

function event(seq: number, kind: RunEvent["kind"], message: string, payload: unknown = null): RunEvent {
  return { runId: "r", seq, createdAt: seq, kind, message, payload };
}

describe("the viewer's step feed", () => {
  test("a failure reported again in a later batch is not sent again", () => {
    const failure = { message: "fatal: simulated crash" };
    const feed = new StepFeed();
    const first = feed.project([event(1, "tool", "claude failed", { kind: "done", message: "claude failed: fatal: simulated crash", failure })]);
    const second = feed.project([event(2, "error", "harness claude failed: fatal: simulated crash"), event(3, "status", "failed")]);
    expect(first.map((s) => [s.kind, s.body])).toEqual([["error", "fatal: simulated crash"]]);
    expect(second.map((s) => [s.kind, s.title])).toEqual([["status", "Failed"]]);
  });

  test("a page reload, one batch of every event, shows the failure once too", () => {
    const failure = { message: "fatal: simulated crash" };
    const steps = new StepFeed().project([
      event(1, "tool", "claude failed", { kind: "done", message: "claude failed: fatal: simulated crash", failure }),
      event(2, "error", "harness claude failed: fatal: simulated crash"),
      event(3, "status", "failed"),
    ]);
    expect(steps.filter((s) => s.kind === "error").map((s) => s.body)).toEqual(["fatal: simulated crash"]);
  });
});
