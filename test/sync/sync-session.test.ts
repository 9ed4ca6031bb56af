/**
 * `sync --session` and the hook entry `hook session-end`, through the real CLI with real
 * SQLite files and real processes: one session's new part, the cursors, own-run exclusion
 * and affiliation of `sync`, the debounce by the queue (a burst of sessions ending
 * together is one run; a run claimed first is never revised), and a hook that returns at
 * once, silent, exit 0, with a line in the state root's hooks log.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROOT, waitFor, type Sandbox } from "../support/cli.js";
import { allRuns, events, writeDb } from "../queue/support.js";
import { parkedSyncSandbox } from "./parked-sandbox.js";
import { claudeSession, codexRollout, hoursAgo } from "./transcripts.js";

interface SessionJson {
  transcript_path: string;
  app: string;
  session_id?: string;
  cwd?: string;
  outcome: "queued" | "joined" | "skipped";
  run_id?: string;
  repository_name?: string;
  reason?: string;
}

interface Spec {
  inputs: string[];
  sources: { address: string; range?: { fromByte: number; toByte: number } }[];
  title: string;
  guidance: string;
}

let box: Sandbox;
let repo: string;
const codexHome = () => join(box.home, ".codex");
const hooksLog = () => join(box.state, "logs", "hooks.log");
const readLog = () => {
  try {
    return readFileSync(hooksLog(), "utf8");
  } catch {
    return "";
  }
};

const session = (target: string, env: NodeJS.ProcessEnv = {}) => box.run(["sync", "--session", target, "--json"], { cwd: box.dir, env }).json<SessionJson>();
const specOf = (runId: string) => JSON.parse(allRuns(box).find((r) => r.run_id === runId)!.spec_json) as Spec;
const setStatus = (runId: string, status: string) =>
  writeDb(box, (db) => db.prepare("UPDATE runs SET status = ?, finished_at = ? WHERE run_id = ?").run(status, Date.now(), runId));
/** The transcript a source address names (`transcript:<path>#bytes=a-b`). */
const pathOf = (address: string) => address.replace(/^transcript:/, "").replace(/#bytes=\d+-\d+$/, "");
const payload = (fields: Record<string, unknown>) => JSON.stringify({ hook_event_name: "SessionEnd", reason: "other", ...fields });

beforeEach(() => {
  ({ box, repo } = parkedSyncSandbox({ CLAUDE_CONFIG_DIR: "" }));
});
afterEach(() => box.cleanup());

describe("sync --session", () => {
  it("queues only that session, by id or by path, and then only what was appended since the run that took it", () => {
    const a = claudeSession(box.home, repo, hoursAgo(30));
    const other = claudeSession(box.home, repo, hoursAgo(1));
    const first = session(a.sessionId);
    // Named on purpose, so no activity window applies: a session 30 hours old is taken.
    expect(first).toMatchObject({ outcome: "queued", app: "claude", session_id: a.sessionId, repository_name: "repo", transcript_path: a.path });
    expect(allRuns(box)).toHaveLength(1);
    expect(specOf(first.run_id!).sources.map((s) => s.range)).toEqual([{ fromByte: 0, toByte: statSync(a.path).size }]);
    expect(specOf(first.run_id!).guidance).not.toContain(other.sessionId);

    expect(session(a.path)).toMatchObject({ outcome: "skipped", reason: `in-flight: ${first.run_id} (queued)` });
    setStatus(first.run_id!, "done");
    expect(session(a.path)).toMatchObject({ outcome: "skipped", reason: "no-new-activity" });
    const end = statSync(a.path).size;
    a.append(2, new Date());
    const second = session(a.path);
    expect(second.outcome).toBe("queued");
    expect(specOf(second.run_id!).sources[0]!.range).toEqual({ fromByte: end, toByte: statSync(a.path).size });
    // The other session was never touched: the full sync still offers it from the start.
    const status = box.run(["sync", "status", "--json"], { cwd: box.dir }).json<{ ready: { transcript_paths: string[] }[] }>();
    expect(status.ready.flatMap((g) => g.transcript_paths)).toEqual([other.path]);
  });

  it("a session in a folder no wiki is registered for does nothing, exit 0, and says so", () => {
    mkdirSync(join(box.dir, "elsewhere"));
    const stranger = claudeSession(box.home, join(box.dir, "elsewhere"), hoursAgo(1));
    const result = box.run(["sync", "--session", stranger.sessionId], { cwd: box.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`sync: claude session ${stranger.sessionId}: nothing queued: ${join(box.dir, "elsewhere")} is in no registered wiki\n`);
    expect(allRuns(box)).toHaveLength(0);
  });

  it("never takes a session of our own runs: by our entrypoint marker, or by the session id a run recorded", () => {
    const marked = claudeSession(box.home, repo, hoursAgo(1), { entrypoint: "codealmanac" });
    const ours = codexRollout(codexHome(), repo, hoursAgo(1), { originator: "codealmanac" });
    const recorded = claudeSession(box.home, repo, hoursAgo(1));
    box.run(["garden", "--using", "claude", "--json"], { cwd: repo });
    writeDb(box, (db) => db.prepare("UPDATE runs SET harness_session_id = ?").run(recorded.sessionId));
    for (const t of [marked, ours, recorded]) expect(session(t.path)).toMatchObject({ outcome: "skipped", reason: "own-run" });
    expect(allRuns(box)).toHaveLength(1); // the garden
  });

  it("finds a Codex session by its id, and refuses what is not a session transcript in one line", () => {
    const rollout = codexRollout(codexHome(), repo, hoursAgo(1));
    expect(session(rollout.sessionId)).toMatchObject({ outcome: "queued", app: "codex", transcript_path: rollout.path });
    const stray = join(box.dir, "notes.jsonl");
    writeFileSync(stray, "{}\n");
    const bad = box.run(["sync", "--session", stray]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`codealmanac: --session ${stray} is not a Claude Code or Codex session transcript (sync reads those under their projects and sessions folders)\n`);
    const unknown = box.run(["sync", "--session", "no-such-session"]);
    expect(unknown.stderr).toBe("codealmanac: --session no-such-session: no Claude Code or Codex session with this id\n");
    expect(box.run(["sync", "--session", rollout.sessionId, "--wiki", "repo"]).stderr).toBe("codealmanac: --session names one session: it takes no --wiki\n");
  });
});

describe("debounced by the queue", () => {
  it("a burst of sessions ending together queues one run that holds them all", async () => {
    const sessions = [0, 1, 2, 3].map(() => claudeSession(box.home, repo, hoursAgo(1)));
    sessions.push(codexRollout(codexHome(), repo, hoursAgo(1)));
    const results = await Promise.all(sessions.map((t) => box.runAsync(["sync", "--session", t.path, "--json"], { cwd: box.dir })));
    const outcomes = results.map((r) => r.json<SessionJson>());
    const runs = allRuns(box);
    expect(runs).toHaveLength(1);
    expect(outcomes.map((o) => o.run_id)).toEqual(sessions.map(() => runs[0]!.run_id));
    expect(outcomes.filter((o) => o.outcome === "queued")).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === "joined")).toHaveLength(4);
    const spec = specOf(runs[0]!.run_id);
    expect(spec.sources.map((s) => pathOf(s.address)).sort()).toEqual(sessions.map((t) => t.path).sort());
    expect(spec.inputs).toHaveLength(5);
    expect(spec.title).toBe("Sync 5 transcripts");
    for (const t of sessions) expect(spec.guidance).toContain(t.sessionId);
    expect(box.run(["jobs", "show", runs[0]!.run_id, "--json"]).json<{ title: string }>().title).toBe("Sync 5 transcripts");
    expect(events(box, runs[0]!.run_id).filter((e) => e.message.startsWith("sync added a session: "))).toHaveLength(4);
    // Each cursor waits on that one run: none of them is offered again while it is queued.
    expect(box.run(["sync", "status", "--json"], { cwd: box.dir }).json<{ ready: unknown[] }>().ready).toEqual([]);
  });

  it("a run claimed before the session's transaction is never revised: the session gets a run of its own", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const b = claudeSession(box.home, repo, hoursAgo(1));
    const first = session(a.path);
    const specBefore = allRuns(box)[0]!.spec_json;
    const claim = join(box.dir, "claim.mjs");
    writeFileSync(
      claim,
      `import Database from ${JSON.stringify(join(ROOT, "node_modules", "better-sqlite3", "lib", "index.js"))};\n` +
        `const db = new Database(${JSON.stringify(join(box.state, "codealmanac.db"))});\n` +
        `db.prepare("UPDATE runs SET status = 'running', started_at = ? WHERE run_id = ?").run(Date.now(), ${JSON.stringify(first.run_id)});\n`,
    );
    // Between planning and the reserving transaction, the executor claims the queued run.
    const second = session(b.path, { CODEALMANAC_TEST_HOOKS: JSON.stringify({ syncBeforeReserve: `node ${JSON.stringify(claim)}` }) });
    expect(second.outcome).toBe("queued");
    expect(second.run_id).not.toBe(first.run_id);
    const runs = allRuns(box);
    expect(runs.find((r) => r.run_id === first.run_id)!.spec_json).toBe(specBefore);
    expect(specOf(second.run_id!).guidance).toContain(b.sessionId);
    expect(specOf(second.run_id!).guidance).not.toContain(a.sessionId);
  });

  it("a joined session is read by the run once the worker claims it", async () => {
    const { waitForStatus } = await import("../queue/support.js");
    const prompt = join(box.dir, "prompt.txt");
    const env = { FAKE_CLAUDE_PROMPT_FILE: prompt, FAKE_CLAUDE_DELAY_MS: "0" };
    const a = claudeSession(box.home, repo, hoursAgo(1), { turns: 1 });
    const b = claudeSession(box.home, repo, hoursAgo(1), { turns: 3 });
    const first = box.run(["sync", "--session", a.path, "--using", "claude", "--json"], { cwd: box.dir, env }).json<SessionJson>();
    expect(box.run(["sync", "--session", b.path, "--using", "claude", "--json"], { cwd: box.dir, env }).json<SessionJson>()).toMatchObject({ outcome: "joined", run_id: first.run_id });
    writeDb(box, (db) => db.prepare("DELETE FROM worker_lock").run());
    box.run(["__run-worker", "--max-runs", "1"], { env });
    await waitForStatus(box, first.run_id!, ["done"]);
    const text = readFileSync(prompt, "utf8");
    expect(text).toContain(a.sessionId);
    expect(text).toContain(b.sessionId);
    expect(text).toContain("question 3");
  });
});

describe("hook session-end", () => {
  it("returns silently with exit 0, logs the request, and its detached child queues the session", async () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const result = box.run(["hook", "session-end"], { input: payload({ session_id: a.sessionId, transcript_path: a.path, cwd: repo }) });
    expect(result).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(readLog()).toMatch(new RegExp(`session-end: ${a.sessionId} \\(other\\): syncing ${a.path} in process \\d+\\n`));
    const run = await waitFor(() => allRuns(box)[0], "the hook's child to queue a run");
    expect(specOf(run.run_id).sources.map((x) => pathOf(x.address))[0]).toBe(a.path);
    await waitFor(() => readLog().includes(`queued ${run.run_id} for repo`), "the child's log line");
  });

  it("a Codex payload without a transcript path is synced by its session id", async () => {
    const rollout = codexRollout(codexHome(), repo, hoursAgo(1));
    const result = box.run(["hook", "session-end"], { input: payload({ session_id: rollout.sessionId, transcript_path: null, cwd: repo }) });
    expect(result).toMatchObject({ code: 0, stdout: "" });
    const run = await waitFor(() => allRuns(box)[0], "the hook's child to queue a run");
    expect(specOf(run.run_id).sources.map((x) => pathOf(x.address))[0]).toBe(rollout.path);
  });

  it("a session in an unregistered folder is logged and left alone", async () => {
    mkdirSync(join(box.dir, "elsewhere"));
    const stranger = claudeSession(box.home, join(box.dir, "elsewhere"), hoursAgo(1));
    expect(box.run(["hook", "session-end"], { input: payload({ session_id: stranger.sessionId, transcript_path: stranger.path }) }).code).toBe(0);
    await waitFor(() => readLog().includes("is in no registered wiki"), "the child's log line");
    expect(allRuns(box)).toHaveLength(0);
  });

  it("inside one of our runs, and on a payload that is not a session end, it does nothing, still silent and exit 0", () => {
    const a = claudeSession(box.home, repo, hoursAgo(1));
    const ours = box.run(["hook", "session-end"], { input: payload({ session_id: a.sessionId, transcript_path: a.path }), env: { CODEALMANAC_EXECUTION_ID: "exec-1" } });
    expect(ours).toMatchObject({ code: 0, stdout: "", stderr: "" });
    for (const input of ["not json", payload({ hook_event_name: "Stop", session_id: a.sessionId }), "{}", ""]) {
      expect(box.run(["hook", "session-end"], { input })).toMatchObject({ code: 0, stdout: "", stderr: "" });
    }
    const lines = readLog().trim().split("\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toContain("ignored: a session of a codealmanac run (CODEALMANAC_EXECUTION_ID=exec-1)");
    expect(lines[1]).toContain('ignored: the payload is not JSON: "not json"');
    expect(lines[2]).toContain("ignored: the event is Stop, not SessionEnd");
    expect(lines[3]).toContain("ignored: the payload names neither a transcript_path nor a session_id");
    expect(allRuns(box)).toHaveLength(0);
  });

  it("a failure is logged, never shown: a transcript that is not a session still exits 0", async () => {
    const stray = join(box.dir, "notes.jsonl");
    writeFileSync(stray, "{}\n");
    expect(box.run(["hook", "session-end"], { input: payload({ session_id: "x", transcript_path: stray }) })).toMatchObject({ code: 0, stdout: "", stderr: "" });
    await waitFor(() => readLog().includes(`failed: --session ${stray} is not a Claude Code or Codex session transcript`), "the child's failure line");
  });
});
