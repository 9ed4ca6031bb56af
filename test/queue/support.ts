import Database from "better-sqlite3";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { afterEach, expect } from "vitest";
import { join } from "node:path";
import { readProcessStartTime } from "../../src/core/processes/index.js";
import { waitFor, writeWiki, type Sandbox } from "../support/cli.js";

export interface RunRow {
  run_id: string;
  status: string;
  kind: string;
  error: string | null;
  failure_category: string | null;
  executor_pid: number | null;
  execution_id: string | null;
  worker_token: string | null;
  claim_seq: number | null;
  seq: number;
  cancel_requested_at: number | null;
  harness_kind: string | null;
  harness_session_id: string | null;
  transcript_path: string | null;
  changes_json: string | null;
  repository_root: string;
  spec_json: string;
}

/** Reads the state database directly: polling it has no side effects (unlike `jobs`). */
function readState<T>(box: Sandbox, read: (db: Database.Database) => T): T {
  const db = new Database(join(box.state, "codealmanac.db"), { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    return read(db);
  } finally {
    db.close();
  }
}

export function readRun(box: Sandbox, runId: string): RunRow | undefined {
  return readState(box, (db) => db.prepare("SELECT * FROM runs WHERE run_id = ?").get(runId) as RunRow | undefined);
}

export function allRuns(box: Sandbox): RunRow[] {
  return readState(box, (db) => db.prepare("SELECT * FROM runs ORDER BY seq").all() as RunRow[]);
}

export function events(box: Sandbox, runId: string): { seq: number; kind: string; message: string }[] {
  return readState(
    box,
    (db) =>
      db.prepare("SELECT seq, kind, message FROM run_events WHERE run_id = ? ORDER BY seq").all(runId) as {
        seq: number;
        kind: string;
        message: string;
      }[],
  );
}

export function writeDb(box: Sandbox, work: (db: Database.Database) => void): void {
  const db = new Database(join(box.state, "codealmanac.db"));
  try {
    db.pragma("busy_timeout = 10000");
    work(db);
  } finally {
    db.close();
  }
}

/** Parks the queue: a live, fresh lock owner (this test process) so spawned workers exit at once. */
export function holdQueue(box: Sandbox): void {
  const startTime = readProcessStartTime(process.pid)!;
  writeDb(box, (db) =>
    db
      .prepare(
        `INSERT INTO worker_lock (id, token, pid, start_time, acquired_at, heartbeat_at) VALUES (1, 'test-holder', ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET token = excluded.token, pid = excluded.pid, start_time = excluded.start_time,
           acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
      )
      .run(process.pid, startTime, Date.now(), Date.now() + 3_600_000),
  );
}

export function releaseQueue(box: Sandbox): void {
  writeDb(box, (db) => db.prepare("DELETE FROM worker_lock WHERE token = 'test-holder'").run());
}

export async function waitForStatus(box: Sandbox, runId: string, statuses: string[]): Promise<RunRow> {
  return waitFor(
    () => {
      const row = readRun(box, runId);
      return row && statuses.includes(row.status) ? row : undefined;
    },
    () => `run ${runId} to reach ${statuses.join("/")} (now ${readRun(box, runId)?.status})`,
  );
}

/** Alive and not a zombie. */
export function processAlive(pid: number): boolean {
  return readProcessStartTime(pid) !== null;
}

export function workerLog(box: Sandbox): string {
  const file = join(box.state, "logs", "worker.log");
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

export async function waitForFile(path: string): Promise<string> {
  return waitFor(() => (existsSync(path) ? readFileSync(path, "utf8").trim() || undefined : undefined), path);
}

/** Waits until the queue is idle: no queued or running runs and no lock held. */
export async function waitForIdle(box: Sandbox): Promise<void> {
  await waitFor(
    () => {
      const runs = allRuns(box);
      if (runs.some((r) => r.status === "queued" || r.status === "running")) return false;
      return readState(box, (db) => db.prepare("SELECT 1 FROM worker_lock").get() === undefined);
    },
    () => `the queue to become idle (${allRuns(box).filter((r) => r.status === "queued" || r.status === "running").map((r) => `${r.run_id} ${r.status}`).join(", ") || "the lock is held"})`,
  );
}

/** Waits until spawned processes (e.g. workers that found the queue parked) have exited. */
export async function waitForExits(pids: number[]): Promise<void> {
  await waitFor(() => pids.every((pid) => !processAlive(pid)), () => `processes ${pids.filter(processAlive).join(", ")} to exit`);
}

/** A run as `jobs show --json` (and `--wait --json`) prints it: the fields tests read. */
export interface JobRecord {
  run_id: string;
  status: string;
  error: string | null;
  failure_category: string | null;
  summary: string | null;
  page_changes: { created: string[]; updated: string[]; deleted: string[] } | null;
  commits: { sha: string; subject: string }[] | null;
  outside_changes: { path: string; change: string }[] | null;
  change_notes: string[] | null;
  wiki_commit: { sha: string; subject: string; files: number } | null;
  harness_transcript: { kind: string; session_id: string | null; transcript_path: string | null } | null;
}

/** A lifecycle command's receipt (`--json`). */
export interface Receipt {
  run_id: string;
  repository: string;
  runs_ahead: number;
  status: string;
  child_pid: number;
}

/** Queues a garden run with the (fake) claude agent; `env` reaches the worker it spawns. */
export function garden(box: Sandbox, root: string, env: NodeJS.ProcessEnv = {}, extra: string[] = []): Receipt {
  return box.run(["garden", "--using", "claude", ...extra, "--json"], { cwd: root, env }).json<Receipt>();
}

/** An initialized wiki without pages at `<sandbox>/repo`. */
export function emptyRepo(box: Sandbox): string {
  return writeWiki(join(box.dir, "repo"), {});
}

/**
 * Queues `count` garden runs that stay queued: the state database is created and the
 * queue parked first, and the workers the producers spawn have already exited.
 */
export async function parkedRuns(box: Sandbox, root: string, count = 1, env: NodeJS.ProcessEnv = {}): Promise<Receipt[]> {
  box.run(["jobs"]);
  holdQueue(box);
  const runs = Array.from({ length: count }, () => garden(box, root, env));
  await waitForExits(runs.map((r) => r.child_pid));
  return runs;
}

export async function parkedRun(box: Sandbox, root: string, env: NodeJS.ProcessEnv = {}): Promise<Receipt> {
  return (await parkedRuns(box, root, 1, env))[0]!;
}

/** A running garden run whose agent has started a grandchild in a session of its own. */
export async function runWithGrandchild(box: Sandbox, root: string): Promise<{ run: Receipt; grandchild: number; executor: number }> {
  const grandchildFile = join(box.dir, "grandchild.pid");
  const run = garden(box, root, { FAKE_CLAUDE_SCENARIO: "spawn-grandchild", FAKE_CLAUDE_GRANDCHILD_PID_FILE: grandchildFile });
  const grandchild = Number(await waitForFile(grandchildFile));
  const executor = (await waitForStatus(box, run.run_id, ["running"])).executor_pid!;
  return { run, grandchild, executor };
}

/**
 * Never two at once (I3 in almanac/architecture/run-queue.md: one draining worker, which
 * executes one run at a time): every claimed run has finished, and no two claimed runs'
 * [started_at, finished_at] windows overlap (one may start the moment another ends).
 * Returns how many windows were compared, so a caller can tell the check was not vacuous.
 */
export function expectOneRunAtATime(box: Sandbox): number {
  const windows = readState(
    box,
    (db) =>
      db.prepare("SELECT run_id, started_at, finished_at FROM runs WHERE started_at IS NOT NULL ORDER BY seq").all() as {
        run_id: string;
        started_at: number;
        finished_at: number | null;
      }[],
  );
  expect(windows.filter((w) => w.finished_at === null).map((w) => w.run_id), "claimed runs that never finished").toEqual([]);
  const overlaps: string[] = [];
  for (const [i, a] of windows.entries()) {
    for (const b of windows.slice(i + 1)) {
      if (a.started_at < b.finished_at! && b.started_at < a.finished_at!) overlaps.push(`${a.run_id} and ${b.run_id}`);
    }
  }
  expect(overlaps, "runs that executed at the same time").toEqual([]);
  return windows.length;
}

/** The sandbox's live workers and executors: processes that run `__run-worker`/`__run-executor` with its state root. */
export function queueProcesses(box: Sandbox): { pid: number; role: "worker" | "executor" }[] {
  const found: { pid: number; role: "worker" | "executor" }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
      const role = argv.includes("__run-worker") ? "worker" : argv.includes("__run-executor") ? "executor" : null;
      if (!role || !readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`CODEALMANAC_HOME=${box.state}`)) continue;
      if (processAlive(Number(name))) found.push({ pid: Number(name), role });
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** Test hooks for a command's environment (see src/queue/hooks.ts); they reach the worker and executors it spawns. */
export function hooks(commands: Record<string, string>): NodeJS.ProcessEnv {
  return { CODEALMANAC_TEST_HOOKS: JSON.stringify(commands) };
}

/** The worker pids that acquired the queue lock, in order, from worker.log. */
export function lockHolderPids(box: Sandbox): number[] {
  return [...workerLog(box).matchAll(/worker (\d+): acquired the queue lock/g)].map((m) => Number(m[1]));
}

export interface SandboxProcess {
  pid: number;
  role: "worker" | "executor" | "other";
  cmdline: string;
}

/** Every live process of the sandbox: all that carry its CODEALMANAC_HOME, as the sandbox cleanup finds them. */
export function sandboxProcesses(box: Sandbox): SandboxProcess[] {
  const marker = `CODEALMANAC_HOME=${box.state}`;
  const found: SandboxProcess[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(marker)) continue;
      const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter((a) => a !== "");
      const role = argv.includes("__run-worker") ? "worker" : argv.includes("__run-executor") ? "executor" : "other";
      if (processAlive(Number(name))) found.push({ pid: Number(name), role, cmdline: argv.join(" ") });
    } catch {
      // exited while we looked, or not ours to read
    }
  }
  return found;
}

/** Runs still in flight and a lock held by a live process other than this test: the queue is not settled yet. */
function unsettled(box: Sandbox): string[] {
  if (!existsSync(join(box.state, "codealmanac.db"))) return [];
  const open = allRuns(box)
    .filter((r) => r.status === "running")
    .map((r) => `run ${r.run_id} is running (executor ${r.executor_pid})`);
  const lock = readState(box, (db) => db.prepare("SELECT token, pid FROM worker_lock").get() as { token: string; pid: number } | undefined);
  if (lock && lock.pid !== process.pid && processAlive(lock.pid)) open.push(`worker ${lock.pid} holds the queue lock`);
  return open;
}

/**
 * No leaks: once the queue has settled (no run running, the lock free or held by a dead
 * process or by this test), every worker, executor, agent and agent child of the sandbox
 * must exit. Both are waited for as events, bounded only by the hook's timeout; while it
 * waits, the wait names what is still busy or alive. Runs before the sandbox cleanup, which
 * would otherwise kill the evidence.
 */
export async function expectNoLeftovers(box: Sandbox): Promise<void> {
  await waitFor(() => unsettled(box).length === 0, () => `the queue to settle: ${unsettled(box).join("; ")}`);
  await waitFor(() => leftovers(box).length === 0, () => `the sandbox's processes to exit: ${leftovers(box).join("; ")}`);
}

/** The sandbox's live processes, as the leak check names them while it waits for them to exit. */
export function leftovers(box: Sandbox): string[] {
  return sandboxProcesses(box).map((p) => `still alive: ${p.pid} (${p.role}) ${p.cmdline}`);
}

let leaveReason: string | null = null;

/** Opts the current test out of the leftover check; the reason says why it leaves something behind. */
export function leaveProcesses(reason: string): void {
  if (reason.trim() === "") throw new Error("leaveProcesses needs a reason");
  leaveReason = reason;
}

/**
 * For a queue test file: after each test, the leftover check (unless the test failed
 * already or opted out with `leaveProcesses`), then the sandbox cleanup, which kills
 * whatever is left either way.
 */
export function checkAndCleanUpAfterEach(current: () => Sandbox | undefined): void {
  const cleaned = new WeakSet<Sandbox>();
  afterEach(async (context) => {
    const box = current();
    const skip = leaveReason !== null || context.task.result?.state === "fail";
    leaveReason = null;
    // A test that made no sandbox of its own leaves the previous test's, already cleaned up.
    if (!box || cleaned.has(box)) return;
    cleaned.add(box);
    try {
      if (!skip) await expectNoLeftovers(box);
    } finally {
      box.cleanup();
    }
  });
}
