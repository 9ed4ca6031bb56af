import { describe, expect, test } from "vitest";
import { LineSplitter, type AgentProcessExit, type StopReason } from "../../src/harnesses/agent-process.js";
import { decideEnding, type EndingContext, type StreamVerdict } from "../../src/harnesses/ending.js";
import type { HarnessFailure } from "../../src/harnesses/types.js";

function exit(extra: Partial<AgentProcessExit> = {}): AgentProcessExit {
  return { spawnError: null, stopReason: null, stoppedByUs: false, exitCode: 0, exitSignal: null, stderrHead: "", ...extra };
}

function stoppedFor(reason: StopReason, extra: Partial<AgentProcessExit> = {}): AgentProcessExit {
  return exit({ stopReason: reason, stoppedByUs: true, exitCode: null, exitSignal: "SIGTERM", ...extra });
}

const context = (extra: Partial<EndingContext> = {}): EndingContext => ({
  kind: "claude",
  limits: { timeoutMs: 90_000, idleTimeoutMs: 30_000 },
  spawnFailure: (error) => ({ provider: "claude", code: "claude.spawn", message: `spawn: ${String(error)}` }),
  processFailed: (message) => ({ provider: "claude", code: "claude.process_failed", message }),
  stderrLine: "",
  afterSuccess: "after reporting success",
  withoutSuccess: "without a result",
  ...extra,
});

const authFailure: HarnessFailure = { provider: "claude", code: "claude.not_authenticated", message: "not logged in" };
const streamFailure: HarnessFailure = { provider: "claude", code: "claude.error_max_turns", message: "too many turns" };

const completed: StreamVerdict = { kind: "completed", answer: "the answer" };
const failed: StreamVerdict = { kind: "failed", outcome: { status: "failed", failure: streamFailure, outputText: "partial" } };
const unfinished: StreamVerdict = { kind: "unfinished", authenticationFailure: null };

describe("how an agent run ended", () => {
  test("a process that could not start fails with the spawn failure, whatever the stream said", () => {
    for (const stream of [completed, failed, unfinished]) {
      expect(decideEnding(exit({ spawnError: "ENOENT", exitCode: null }), stream, context())).toEqual({
        status: "failed",
        failure: { provider: "claude", code: "claude.spawn", message: "spawn: ENOENT" },
        outputText: "spawn: ENOENT",
      });
    }
  });

  test("a failure the stream reported wins over the exit and over why we stopped it", () => {
    for (const ended of [exit(), exit({ exitCode: 1 }), stoppedFor("cancelled"), stoppedFor("timeout"), stoppedFor("authentication")]) {
      expect(decideEnding(ended, failed, context())).toBe((failed as { outcome: unknown }).outcome);
    }
  });

  test("a success counts when the process exited 0, or when we stopped it after the result", () => {
    const succeeded = { status: "succeeded", failure: null, outputText: "the answer" };
    expect(decideEnding(exit(), completed, context())).toEqual(succeeded);
    expect(decideEnding(stoppedFor("after_result"), completed, context())).toEqual(succeeded);
    expect(decideEnding(stoppedFor("cancelled"), completed, context())).toEqual(succeeded);
  });

  test("a success followed by a failed exit is a process failure, explained by stderr when it can be", () => {
    expect(decideEnding(exit({ exitCode: 3 }), completed, context())).toMatchObject({
      status: "failed",
      failure: { code: "claude.process_failed", message: "claude exited 3 after reporting success" },
    });
    expect(decideEnding(exit({ exitCode: null, exitSignal: "SIGSEGV" }), completed, context({ kind: "codex", afterSuccess: "after completing the turn" })))
      .toMatchObject({ failure: { message: "codex exited SIGSEGV after completing the turn" } });
    expect(decideEnding(exit({ exitCode: 3 }), completed, context({ stderrLine: "panic: disk full" }))).toMatchObject({
      failure: { message: "panic: disk full" },
    });
  });

  test("an unfinished run stopped on cancel is cancelled, without a failure", () => {
    expect(decideEnding(stoppedFor("cancelled"), unfinished, context())).toEqual({
      status: "cancelled",
      failure: null,
      outputText: "claude cancelled",
    });
    expect(decideEnding(stoppedFor("cancelled"), unfinished, context({ kind: "codex" })).outputText).toBe("codex cancelled");
  });

  test("an unfinished run stopped for taking too long, or for silence, fails as a timeout", () => {
    expect(decideEnding(stoppedFor("timeout"), unfinished, context())).toMatchObject({
      status: "failed",
      failure: { code: "timeout", message: "claude timed out after 90 s" },
    });
    expect(decideEnding(stoppedFor("idle"), unfinished, context())).toMatchObject({
      status: "failed",
      failure: { code: "timeout", message: "claude produced no output for 30 s" },
    });
  });

  test("stopped for a rejected credential, the authentication failure is reported when the stream named one", () => {
    const withAuth: StreamVerdict = { kind: "unfinished", authenticationFailure: authFailure };
    expect(decideEnding(stoppedFor("authentication"), withAuth, context())).toEqual({
      status: "failed",
      failure: authFailure,
      outputText: "not logged in",
    });
    expect(decideEnding(stoppedFor("authentication"), unfinished, context())).toMatchObject({
      failure: { code: "claude.process_failed", message: "claude exited SIGTERM without a result" },
    });
    // Only the reason we stopped it for counts: stopped for another reason first, it is a process failure.
    expect(decideEnding(stoppedFor("sink"), withAuth, context())).toMatchObject({ failure: { code: "claude.process_failed" } });
  });

  test("any other unfinished end is a process failure: stderr, else the exit code, else the signal", () => {
    expect(decideEnding(exit({ exitCode: 0 }), unfinished, context())).toMatchObject({
      status: "failed",
      failure: { code: "claude.process_failed", message: "claude exited 0 without a result" },
    });
    expect(decideEnding(exit({ exitCode: 2 }), unfinished, context({ stderrLine: "bad flag --x" }))).toMatchObject({
      failure: { message: "bad flag --x" },
    });
    expect(decideEnding(stoppedFor("fatal", { exitSignal: "SIGKILL" }), unfinished, context())).toMatchObject({
      failure: { message: "claude exited SIGKILL without a result" },
    });
    expect(decideEnding(exit({ exitCode: null, exitSignal: null }), unfinished, context())).toMatchObject({
      failure: { message: "claude exited unknown without a result" },
    });
  });
});

describe("the stdout line splitter", () => {
  test("returns complete lines only, keeping a partial line for the next chunk", () => {
    const lines = new LineSplitter();
    lines.push('{"a":1}\n{"b"');
    expect(lines.next()).toBe('{"a":1}');
    expect(lines.next()).toBeNull();
    lines.push(':2}\n\nlast');
    expect(lines.next()).toBe('{"b":2}');
    expect(lines.next()).toBe("");
    expect(lines.next()).toBeNull();
    expect(lines.rest()).toBe("last");
    expect(lines.rest()).toBe("");
  });

  test("a carriage return stays in the line (the parsers trim)", () => {
    const lines = new LineSplitter();
    lines.push("one\r\ntwo");
    expect(lines.next()).toBe("one\r");
    expect(lines.rest()).toBe("two");
  });
});
