/**
 * The follower (`jobs attach`, `--wait`) in process, with a scripted queue and a fake
 * clock: the status line while a run waits (drawn in place on a terminal, a line a minute
 * elsewhere, never in --json modes), and each failure printed once.
 */
import { describe, expect, test } from "vitest";
import { follow, type FollowOptions, type FollowSource } from "../../src/cli/commands/follow.js";
import type { CliContext } from "../../src/cli/context.js";
import { createStyle } from "../../src/cli/render/style.js";
import { clockDuration, waitStatusText } from "../../src/cli/render/wait-status.js";
import type { AttachUpdate } from "../../src/queue/jobs.js";
import type { RunEvent, RunRecord } from "../../src/runs/model.js";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const T0 = Date.UTC(2026, 0, 1);
const CLEAR = "\r\x1b[K";

function record(overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    runId: "garden-20260101000000-abcdef01",
    seq: 3,
    repositoryId: "repo",
    repositoryName: "repo",
    repositoryRoot: "/repo",
    kind: "garden",
    status: "running",
    title: null,
    summary: null,
    error: null,
    failureCategory: null,
    createdAt: T0,
    updatedAt: T0,
    startedAt: T0,
    finishedAt: null,
    cancelRequestedAt: null,
    execution: null,
    harness: null,
    pageChanges: null,
    changes: null,
    wikiCommit: null,
    stalePages: null,
    secretFindings: null,
    logPath: "/state/logs/run.log",
    retryOf: null,
    claimSeq: null,
    specVersion: 1,
    specJson: JSON.stringify({ version: 1, kind: "garden", harness: "claude", model: "claude-sonnet-5" }),
    ...overrides,
  };
}

let seq = 0;
function event(kind: RunEvent["kind"], message: string, at: number, payload: unknown = null): RunEvent {
  return { runId: "r", seq: ++seq, createdAt: at, kind, message, payload };
}
const agentSaid = (text: string, at: number) => event("tool", text, at, { kind: "text", message: text });

/** One poll: the clock reads `at`, and the queue answers with this record and these new events. */
interface Poll {
  at: number;
  record: RunRecord;
  events?: RunEvent[];
  ahead?: number;
}

/** What the follower wrote, in order, stdout and stderr told apart. */
interface Screen {
  writes: { stream: "out" | "err"; text: string }[];
  out(): string;
  err(): string;
}

function fakeContext(options: { tty: boolean; env?: NodeJS.ProcessEnv; columns?: number }): { ctx: CliContext; screen: Screen } {
  const writes: Screen["writes"] = [];
  const ctx: CliContext = {
    argv: [],
    env: options.env ?? {},
    cwd: "/repo",
    invokedAs: "ca",
    out: createStyle(false),
    err: createStyle(false),
    errTerminal: { isTTY: options.tty, columns: () => options.columns },
    write: (text) => void writes.push({ stream: "out", text }),
    writeErr: (text) => void writes.push({ stream: "err", text }),
    json: (value) => void writes.push({ stream: "out", text: JSON.stringify(value, null, 2) + "\n" }),
    exitCode: 0,
  };
  const join = (stream: "out" | "err") => writes.filter((w) => w.stream === stream).map((w) => w.text).join("");
  return { ctx, screen: { writes, out: () => join("out"), err: () => join("err") } };
}

/** Runs the follower over scripted polls; the clock moves only between polls. */
async function followScript(polls: Poll[], options: { tty: boolean; json?: FollowOptions["json"]; env?: NodeJS.ProcessEnv; columns?: number }) {
  const { ctx, screen } = fakeContext(options);
  let now = polls[0]!.at;
  const source: FollowSource = {
    recover: async () => null,
    async *attach(): AsyncGenerator<AttachUpdate> {
      for (const poll of polls) {
        now = poll.at;
        const terminal = ["done", "failed", "cancelled"].includes(poll.record.status);
        yield { record: poll.record, events: poll.events ?? [], terminal, ahead: poll.ahead ?? 0 };
      }
    },
    show: () => polls.at(-1)!.record,
  };
  const outcome = await follow(ctx, source, "garden-20260101000000-abcdef01", { json: options.json ?? false }, () => now);
  return { outcome, screen };
}

/** Polls every `step` ms from `from` to `to` (inclusive) with the same record and no events. */
function silence(from: number, to: number, step: number, rec: RunRecord, ahead = 0): Poll[] {
  const polls: Poll[] = [];
  for (let at = from; at <= to; at += step) polls.push({ at, record: rec, ahead });
  return polls;
}

describe("the wait status text", () => {
  test("says what the run waits for, and for how long", () => {
    const since = T0;
    expect(waitStatusText({ status: "queued", ahead: 2, agent: null, since }, T0 + 40 * SECOND)).toBe("queued: 2 runs ahead, waiting 40s");
    expect(waitStatusText({ status: "queued", ahead: 1, agent: null, since }, T0 + 3 * SECOND)).toBe("queued: 1 run ahead, waiting 3s");
    expect(waitStatusText({ status: "queued", ahead: 0, agent: null, since }, T0)).toBe("queued: waiting 0s");
    expect(waitStatusText({ status: "running", ahead: 0, agent: "claude", since }, T0 + 130 * SECOND)).toBe("waiting for claude: no output for 2m 10s");
    expect(waitStatusText({ status: "running", ahead: 0, agent: null, since }, T0 + 12 * SECOND)).toBe("running: no new event for 12s");
  });

  test("durations read as a clock: seconds until an hour, then minutes", () => {
    expect([0, 59_999, 60_000, 130_000, 3_599_000, 3_600_000, 3_900_000].map(clockDuration)).toEqual(["0s", "59s", "1m 0s", "2m 10s", "59m 59s", "1h 0m", "1h 5m"]);
  });
});

describe("on a terminal, one line drawn in place", () => {
  test("a queued run shows at once and counts up; the line is removed before the next real output and at the end", async () => {
    const queued = record({ status: "queued", startedAt: null });
    const started = record({ status: "running", updatedAt: T0 + 41 * SECOND });
    const done = record({ status: "done", summary: "Updated the wiki.", finishedAt: T0 + 42 * SECOND });
    const { screen } = await followScript(
      [
        ...silence(T0, T0 + 40 * SECOND, 10 * SECOND, queued, 2),
        { at: T0 + 41 * SECOND, record: started, events: [event("status", "running", T0 + 41 * SECOND)] },
        { at: T0 + 42 * SECOND, record: done, events: [event("status", "done", T0 + 42 * SECOND)] },
      ],
      { tty: true },
    );
    const drawn = screen.writes.filter((w) => w.stream === "err").map((w) => w.text);
    expect(drawn).toEqual([
      `${CLEAR}queued: 2 runs ahead, waiting 0s`,
      `${CLEAR}queued: 2 runs ahead, waiting 10s`,
      `${CLEAR}queued: 2 runs ahead, waiting 20s`,
      `${CLEAR}queued: 2 runs ahead, waiting 30s`,
      `${CLEAR}queued: 2 runs ahead, waiting 40s`,
      CLEAR,
    ]);
    // The clear comes before the first line of real output, and nothing is left drawn.
    const firstOut = screen.writes.findIndex((w) => w.stream === "out");
    expect(screen.writes[firstOut - 1]).toEqual({ stream: "err", text: CLEAR });
    expect(screen.out()).toBe("· Running\n· Done\nstatus: done\nsummary: Updated the wiki.\n");
  });

  test("a running run says it waits for its agent after a few quiet seconds, since its last event", async () => {
    const spoke = T0 + 5 * SECOND;
    const running = record({ updatedAt: spoke });
    const later = record({ updatedAt: spoke + 130 * SECOND });
    const { screen } = await followScript(
      [
        { at: spoke, record: running, events: [agentSaid("Reading the wiki.", spoke)] },
        ...silence(spoke + SECOND, spoke + 4 * SECOND, SECOND, running),
        { at: spoke + 5 * SECOND, record: running },
        { at: spoke + 5 * SECOND + 400, record: running },
        { at: spoke + 130 * SECOND, record: running },
        { at: spoke + 130 * SECOND, record: later, events: [agentSaid("Done reading.", spoke + 130 * SECOND)] },
        { at: spoke + 131 * SECOND, record: record({ status: "done", updatedAt: spoke + 131 * SECOND }), events: [event("status", "done", spoke + 131 * SECOND)] },
      ],
      { tty: true },
    );
    // Nothing during the first five quiet seconds; the same text is not drawn twice.
    expect(screen.writes.filter((w) => w.stream === "err").map((w) => w.text)).toEqual([
      `${CLEAR}waiting for claude: no output for 5s`,
      `${CLEAR}waiting for claude: no output for 2m 10s`,
      CLEAR,
    ]);
    expect(screen.out()).toContain("Reading the wiki.\n");
    expect(screen.out()).toContain("Done reading.\n");
  });

  test("before the agent has said anything, and after its done, the run itself is what waits", async () => {
    const running = record({ updatedAt: T0 });
    const afterAgent = record({ updatedAt: T0 + 20 * SECOND });
    const { screen } = await followScript(
      [
        { at: T0, record: running, events: [event("message", "prepared garden context", T0)] },
        { at: T0 + 12 * SECOND, record: running },
        { at: T0 + 20 * SECOND, record: afterAgent, events: [event("tool", "done", T0 + 20 * SECOND, { kind: "done", message: "claude succeeded: ok" })] },
        { at: T0 + 27 * SECOND, record: afterAgent },
        { at: T0 + 28 * SECOND, record: record({ status: "done" }), events: [event("status", "done", T0 + 28 * SECOND)] },
      ],
      { tty: true },
    );
    expect(screen.err()).toBe(`${CLEAR}running: no new event for 12s${CLEAR}${CLEAR}running: no new event for 7s${CLEAR}`);
  });

  test("a line longer than the terminal is cut to fit, so it never wraps", async () => {
    const running = record({ updatedAt: T0 });
    const { screen } = await followScript(
      [
        { at: T0, record: running, events: [agentSaid("hi", T0)] },
        { at: T0 + 10 * SECOND, record: running },
        { at: T0 + 11 * SECOND, record: record({ status: "done" }), events: [event("status", "done", T0 + 11 * SECOND)] },
      ],
      { tty: true, columns: 20 },
    );
    expect(screen.writes.find((w) => w.stream === "err")!.text).toBe(`${CLEAR}waiting for claude…`);
  });
});

describe("not on a terminal, at most one line a minute", () => {
  test("a silent agent is reported once a minute, as whole lines, counted from its last event", async () => {
    const running = record({ updatedAt: T0 });
    const spoke = T0 + 150 * SECOND;
    const after = record({ updatedAt: spoke });
    const { screen } = await followScript(
      [
        { at: T0, record: running, events: [agentSaid("Thinking.", T0)] },
        ...silence(T0 + 10 * SECOND, T0 + 140 * SECOND, 10 * SECOND, running),
        { at: spoke, record: after, events: [agentSaid("Still here.", spoke)] },
        ...silence(spoke + 10 * SECOND, spoke + 100 * SECOND, 10 * SECOND, after),
        { at: spoke + 101 * SECOND, record: record({ status: "done" }), events: [event("status", "done", spoke + 101 * SECOND)] },
      ],
      { tty: false },
    );
    expect(screen.err()).toBe(
      ["waiting for claude: no output for 1m 0s", "waiting for claude: no output for 2m 0s", "waiting for claude: no output for 1m 0s", ""].join("\n"),
    );
    expect(screen.err()).not.toContain("\r");
  });

  test("a line at most once per interval, even when the wait it reports began earlier", async () => {
    const queued = record({ status: "queued", startedAt: null });
    // The run was claimed a second after it was queued, but this follower reads that only now.
    const running = record({ updatedAt: T0 + SECOND });
    const { screen } = await followScript(
      [
        ...silence(T0, T0 + 60 * SECOND, 10 * SECOND, queued),
        { at: T0 + 61 * SECOND, record: running },
        { at: T0 + 100 * SECOND, record: running },
        { at: T0 + 120 * SECOND, record: running },
        { at: T0 + 121 * SECOND, record: record({ status: "done" }), events: [event("status", "done", T0 + 121 * SECOND)] },
      ],
      { tty: false },
    );
    expect(screen.err()).toBe("queued: waiting 1m 0s\nrunning: no new event for 1m 59s\n");
  });

  test("a queued run says how many runs are ahead; the interval comes from CODEALMANAC_WAIT_STATUS_INTERVAL_MS", async () => {
    const queued = record({ status: "queued", startedAt: null });
    const { screen } = await followScript(
      [...silence(T0, T0 + 5 * SECOND, SECOND, queued, 1), { at: T0 + 6 * SECOND, record: record({ status: "cancelled" }), events: [event("status", "cancelled", T0 + 6 * SECOND)] }],
      { tty: false, env: { CODEALMANAC_WAIT_STATUS_INTERVAL_MS: "2000" } },
    );
    expect(screen.err()).toBe("queued: 1 run ahead, waiting 2s\nqueued: 1 run ahead, waiting 4s\n");
  });
});

describe("never in --json modes", () => {
  const running = record({ updatedAt: T0 });
  const polls = (): Poll[] => [
    { at: T0, record: running, events: [agentSaid("a", T0)] },
    ...silence(T0 + 10 * SECOND, T0 + 10 * MINUTE, 10 * SECOND, running),
    { at: T0 + 11 * MINUTE, record: record({ status: "done" }), events: [event("status", "done", T0 + 11 * MINUTE)] },
  ];

  for (const tty of [true, false]) {
    test(`attach --json: one NDJSON line per update with events, nothing for a quiet poll, nothing on stderr (${tty ? "terminal" : "pipe"})`, async () => {
      const { screen } = await followScript(polls(), { tty, json: "lines" });
      expect(screen.err()).toBe("");
      const lines = screen.out().trimEnd().split("\n").map((l) => JSON.parse(l) as { terminal: boolean; events: unknown[] });
      expect(lines.map((l) => [l.events.length, l.terminal])).toEqual([
        [1, false],
        [1, true],
      ]);
    });

    test(`--wait --json: nothing at all while following (${tty ? "terminal" : "pipe"})`, async () => {
      const { screen, outcome } = await followScript(polls(), { tty, json: "none" });
      expect(screen.writes).toEqual([]);
      expect(outcome.record?.status).toBe("done");
    });
  }
});

describe("each failure is printed once", () => {
  test("the agent's error, its done and the run's error, read in separate polls, print one error and no error line at the end", async () => {
    const running = record({ updatedAt: T0 });
    const failure = { message: "Not logged in · Please run /login", fix: "run `claude auth login` or set ANTHROPIC_API_KEY" };
    const runError = `harness claude failed: ${failure.message} (${failure.fix})`;
    const { screen } = await followScript(
      [
        { at: T0, record: running, events: [event("error", failure.message, T0, { kind: "error", message: failure.message, failure })] },
        { at: T0 + 1, record: running, events: [event("tool", "claude failed", T0 + 1, { kind: "done", message: `claude failed: ${failure.message}`, failure })] },
        { at: T0 + 2, record: record({ status: "failed", error: runError }), events: [event("error", runError, T0 + 2), event("status", "failed", T0 + 2)] },
      ],
      { tty: false },
    );
    expect(screen.out()).toBe(
      ["✕ Error", "  Not logged in · Please run /login", "  fix: run `claude auth login` or set ANTHROPIC_API_KEY", "· Failed", "status: failed", ""].join("\n"),
    );
  });

  test("a failure no step showed is still printed at the end", async () => {
    const { screen } = await followScript(
      [{ at: T0, record: record({ status: "failed", error: "run exceeded runs.timeout (3s)" }), events: [event("status", "failed", T0)] }],
      { tty: false },
    );
    expect(screen.out()).toBe("· Failed\nstatus: failed\nerror: run exceeded runs.timeout (3s)\n");
  });
});
