// The `queue` section of bench/run.mjs: how fast the durable run queue moves, with a
// no-op fake agent (test/fixtures/bin/claude, FAKE_CLAUDE_DELAY_MS=0) in a minimal wiki.
//
//   1. enqueue → running: `ca garden` on an idle queue, then `started_at - created_at`
//      of its `runs` row (plus the producer's own wall time);
//   2. drain throughput: 100 runs queued behind a parked queue, then one wake-up;
//   3. `ca jobs --json` with 10 000 terminal runs in the ledger;
//   4. attach delay: events appended to `run_events` until `ca jobs attach --json`
//      prints them.
//
// The ledger is read and written directly with better-sqlite3 (see src/runs/schema.ts).
// "Parking" the queue means holding `worker_lock` as this (live) process with a fresh
// heartbeat, so every worker a producer spawns finds the lock held and exits at once.
import { homeEnv } from "./env.mjs";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { cpus } from "node:os";

const FAKE_BIN = fileURLToPath(new URL("../test/fixtures/bin", import.meta.url));
const PARK_TOKEN = "bench-holder";
const LATENCY_RUNS = 20; // at least this many enqueue → running samples
const DRAIN_RUNS = 100;
const PRODUCER_CONCURRENCY = Math.min(8, Math.max(2, cpus().length)); // setup only, not timed
const LEDGER_RUNS = 10_000;
const ATTACH_EVENTS = 30;

const round1 = (x) => Math.round(x * 10) / 10;
const round2 = (x) => Math.round(x * 100) / 100;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function median(values) {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  return round1(n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2);
}

// ---------------------------------------------------------------------------
// Processes (the same identity the product uses: pid + start time, zombies are dead)

/** `{ startTime, dead }` for a pid, or null when there is no such process. */
function processState(pid) {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  if (process.platform === "linux") {
    let text;
    try {
      text = readFileSync(`/proc/${pid}/stat`, "latin1");
    } catch {
      return null;
    }
    const fields = text.slice(text.lastIndexOf(")") + 1).trim().split(/\s+/);
    return { startTime: fields[19], dead: /^[ZX]/.test(fields[0] ?? "") };
  }
  const r = spawnSync("ps", ["-o", "state=,lstart=", "-p", String(pid)], {
    encoding: "utf8",
    env: { ...process.env, LC_ALL: "C", LANG: "C", TZ: "UTC" },
  });
  const line = r.status === 0 ? r.stdout.trim() : "";
  if (!line) return null;
  const [state, ...rest] = line.split(/\s+/);
  return { startTime: rest.join(" "), dead: /^[ZX]/.test(state) };
}

const alive = (pid) => {
  const s = processState(pid);
  return s !== null && !s.dead;
};

/**
 * Live processes started for one state home (workers, executors, agents all inherit
 * `CODEALMANAC_HOME`). Linux only (reads /proc/<pid>/environ); elsewhere an empty list.
 */
function processesOf(stateHome) {
  if (process.platform !== "linux") return [];
  const marker = `\0CODEALMANAC_HOME=${stateHome}\0`;
  const out = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${name}/environ`, "utf8")}`.includes(marker) && alive(Number(name))) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** SIGKILLs every process of these state homes, again until none is left (a worker may be spawning an executor). */
function killAll(stateHomes) {
  for (let round = 0; round < 10; round++) {
    const pids = stateHomes.flatMap(processesOf);
    if (pids.length === 0) return;
    pids.forEach((pid) => kill(pid, "SIGKILL"));
    sleepSync(50);
  }
}

function kill(pid, signal) {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

// ---------------------------------------------------------------------------
// Waiting

function waitSync(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`queue bench: timed out after ${timeoutMs} ms waiting for ${what}`);
    sleepSync(5);
  }
}

async function waitAsync(probe, timeoutMs, what, intervalMs = 10) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`queue bench: timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------
// The ledger

export class Ledger {
  constructor(Database, stateHome) {
    this.db = new Database(join(stateHome, "codealmanac.db"), { fileMustExist: true });
    this.db.pragma("busy_timeout = 10000");
  }

  run(runId) {
    return this.db.prepare("SELECT * FROM runs WHERE run_id = ?").get(runId);
  }

  runs(runIds) {
    const get = this.db.prepare("SELECT * FROM runs WHERE run_id = ?");
    return runIds.map((id) => get.get(id));
  }

  lock() {
    return this.db.prepare("SELECT * FROM worker_lock WHERE id = 1").get();
  }

  countActive() {
    return this.db.prepare("SELECT COUNT(*) FROM runs WHERE status IN ('queued', 'running')").pluck().get();
  }

  /** Holds the queue as this process: workers see a live owner with a fresh heartbeat. */
  park() {
    const me = processState(process.pid);
    if (!me?.startTime) throw new Error("queue bench: cannot read this process's start time to park the queue");
    const changes = this.db
      .prepare(
        `INSERT INTO worker_lock (id, token, pid, start_time, acquired_at, heartbeat_at) VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO NOTHING`,
      )
      .run(PARK_TOKEN, process.pid, me.startTime, Date.now(), Date.now() + 3_600_000).changes;
    if (changes !== 1) throw new Error(`queue bench: the queue is not idle (worker_lock held by pid ${this.lock()?.pid})`);
  }

  unpark() {
    return this.db.prepare("DELETE FROM worker_lock WHERE token = ?").run(PARK_TOKEN).changes;
  }

  parked() {
    return this.lock()?.token === PARK_TOKEN;
  }

  appendEvent(runId, message) {
    return this.db
      .prepare(
        `INSERT INTO run_events (run_id, seq, created_at, kind, message)
         VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM run_events WHERE run_id = ?), ?, 'message', ?) RETURNING seq`,
      )
      .pluck()
      .get(runId, runId, Date.now(), message);
  }

  close() {
    if (this.db.open) this.db.close();
  }
}

/** Best effort, outside any open connection: used by cleanups on error or signal. */
function unparkFile(Database, stateHome) {
  try {
    const db = new Database(join(stateHome, "codealmanac.db"), { fileMustExist: true });
    try {
      db.pragma("busy_timeout = 2000");
      db.prepare("DELETE FROM worker_lock WHERE token = ?").run(PARK_TOKEN);
    } finally {
      db.close();
    }
  } catch {
    // no ledger yet
  }
}

// ---------------------------------------------------------------------------
// Fixtures

/** The smallest initialized wiki (as test/support/cli.ts `writeWiki`). */
function writeWiki(root) {
  mkdirSync(join(root, "almanac"), { recursive: true });
  writeFileSync(
    join(root, "almanac", "README.md"),
    "---\ntitle: Home\nsummary: The landing page\ntopics: [concepts]\nsources: []\n---\n\n# Home\n\nWelcome to the wiki.\n",
  );
  writeFileSync(join(root, "almanac", "topics.yaml"), "topics:\n  - slug: concepts\n    title: Concepts\n    parents: []\n");
}

const SPEC_JSON = JSON.stringify({
  version: 1,
  kind: "garden",
  harness: "claude",
  model: "claude-sonnet-5",
  inputs: [],
  title: null,
  guidance: null,
  auto_commit: false,
});

/** 10 000 terminal runs (mostly done, some failed or cancelled) with 3–4 events each, in one transaction. */
function fillLedger(ledger, logDir, count) {
  const db = ledger.db;
  const insertRun = db.prepare(
    `INSERT INTO runs (run_id, repository_id, repository_name, repository_root, kind, status, title, summary, error,
       failure_category, created_at, updated_at, started_at, finished_at, spec_version, spec_json, execution_id,
       executor_pid, executor_start_time, executor_pgid, worker_token, claim_seq, harness_kind, harness_session_id,
       transcript_path, page_changes_json, log_path)
     VALUES (@run_id, 'repo_bench00000000', 'bench-wiki', '/tmp/bench-wiki', 'garden', @status, 'Garden wiki', @summary,
       @error, @category, @created, @finished, @started, @finished, 1, @spec, @execution, @pid, @start_time, @pid,
       @token, @claim, @harness_kind, @session, @transcript, @changes, @log)`,
  );
  const insertEvent = db.prepare("INSERT INTO run_events (run_id, seq, created_at, kind, message) VALUES (?, ?, ?, ?, ?)");
  const first = Date.now() - count * 60_000 - 3_600_000;
  let events = 0;
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const created = first + i * 60_000;
      const stamp = new Date(created).toISOString().replace(/[-:T]/g, "").slice(0, 14);
      const runId = `garden-${stamp}-${randomBytes(4).toString("hex")}`;
      const status = i % 50 === 7 ? "cancelled" : i % 20 === 3 ? "failed" : "done";
      const started = created + 250;
      const finished = started + 30_000 + (i % 17) * 1000;
      const execution = randomBytes(16).toString("hex");
      const session = `${randomBytes(4).toString("hex")}-0000-4000-8000-${randomBytes(6).toString("hex")}`;
      insertRun.run({
        run_id: runId,
        status,
        summary: status === "done" ? "Updated the wiki." : null,
        error: status === "failed" ? "claude exited with code 1" : null,
        category: status === "failed" ? "provider_execution" : null,
        created,
        started,
        finished,
        spec: SPEC_JSON,
        execution,
        pid: 10_000 + (i % 50_000),
        start_time: String(100_000 + i),
        token: randomBytes(16).toString("hex"),
        claim: i + 1,
        harness_kind: "claude",
        session,
        transcript: `/tmp/bench-home/.claude/projects/-tmp-bench-wiki/${session}.jsonl`,
        changes: JSON.stringify({ created: [], updated: i % 3 ? ["almanac/README.md"] : [], deleted: [] }),
        log: join(logDir, `${runId}.log`),
      });
      const evs = [
        [created, "status", "queued garden"],
        [started, "status", "running"],
        [started + 1000, "message", "Reading the wiki"],
        [finished, "status", status],
      ];
      if (status === "failed") evs.splice(3, 0, [finished, "error", "claude exited with code 1"]);
      evs.forEach(([at, kind, message], k) => insertEvent.run(runId, k + 1, at, kind, message));
      events += evs.length;
    }
  })();
  return events;
}

// ---------------------------------------------------------------------------
// The section

/** Queue latency and throughput with a no-op fake agent. */
export async function benchQueue(ctx) {
  const { opts } = ctx;
  const { default: Database } = await import("better-sqlite3");
  const root = join(ctx.tmp, "queue-wiki");
  const home = join(ctx.tmp, "queue-home");
  mkdirSync(home, { recursive: true });
  writeWiki(root);
  const env = {
    ...homeEnv(home),
    PATH: `${FAKE_BIN}${delimiter}${process.env.PATH ?? ""}`,
  };
  // Only these fake-agent settings: a success with no delay.
  for (const key of Object.keys(process.env)) if (key.startsWith("FAKE_CLAUDE_")) env[key] = undefined;
  Object.assign(env, { FAKE_CLAUDE_SCENARIO: "success", FAKE_CLAUDE_DELAY_MS: "0" });

  const stateHome = ctx.stateHome("queue");
  const ledgerHome = ctx.stateHome("queue-10k");
  const stateHomes = [stateHome, ledgerHome];
  const waitMs = opts.timeoutMs;

  // Everything this section starts, so an error or a signal leaves nothing behind.
  const children = new Set();
  const opened = new Set();
  const openLedger = (dir) => {
    const ledger = new Ledger(Database, dir);
    opened.add(ledger);
    return ledger;
  };
  const undefer = ctx.defer(() => {
    for (const child of children) kill(child.pid, "SIGKILL");
    for (const ledger of opened) ledger.close();
    for (const dir of stateHomes) unparkFile(Database, dir);
    killAll(stateHomes);
  });

  const caSync = (args, state = stateHome) => ctx.ca(args, { cwd: root, stateHome: state, env });
  /** `ca <args>` without blocking the event loop; rejects on a non-zero exit or a timeout. */
  const caAsync = (args, state = stateHome) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const child = spawn(process.execPath, [ctx.cli, ...args], {
        cwd: root,
        env: ctx.childEnv({ stateHome: state, env }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.add(child);
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const timer = setTimeout(() => kill(child.pid, "SIGKILL"), waitMs);
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        children.delete(child);
        const ms = performance.now() - started;
        if (code === 0) resolve({ stdout, ms });
        else reject(new Error(`queue bench: ca ${args.join(" ")} failed (${signal ?? `exit ${code}`})\n${stderr.slice(-4000)}`));
      });
    });
  const receiptOf = (stdout) => {
    const receipt = JSON.parse(stdout);
    if (receipt?.status !== "queued" || typeof receipt.run_id !== "string") throw new Error(`queue bench: unexpected receipt ${stdout.slice(0, 200)}`);
    return receipt;
  };

  const result = {
    wiki: "minimal (almanac/README.md + topics.yaml)",
    agent: "test/fixtures/bin/claude, FAKE_CLAUDE_DELAY_MS=0",
  };
  try {
    // Setup: the first garden registers the wiki and creates the ledger; it must end `done`.
    const setup = receiptOf(caSync(["garden", "--using", "claude", "--json"]));
    const ledger = openLedger(stateHome);
    const idleAfter = (receipt) =>
      waitSync(
        () => {
          const row = ledger.run(receipt.run_id);
          if (!row || (row.status !== "done" && row.status !== "failed" && row.status !== "cancelled")) return false;
          return !ledger.lock() && !alive(receipt.child_pid) && !(row.executor_pid && alive(row.executor_pid));
        },
        waitMs,
        `run ${receipt.run_id} to finish and its worker to exit`,
      );
    idleAfter(setup);
    const setupRow = ledger.run(setup.run_id);
    if (setupRow.status !== "done") {
      const log = readFileSync(setupRow.log_path, "utf8").slice(-3000);
      throw new Error(`queue bench: the setup run ended ${setupRow.status}: ${setupRow.error}\n${log}`);
    }

    result.enqueue = measureEnqueue(ctx, { env, root, stateHome, ledger, idleAfter, receiptOf });
    result.drain = await measureDrain(ctx, { stateHome, ledger, caAsync, receiptOf, waitMs });
    result.jobs_10k = measureJobs(ctx, { env, root, ledgerHome, openLedger, caSync });
    result.attach = await measureAttach(ctx, { env, root, stateHome, ledger, caSync, receiptOf, children, waitMs });

    // Nothing may outlive the section: every worker, executor and agent has exited.
    let leftovers = [];
    await waitAsync(
      () => {
        leftovers = stateHomes.flatMap(processesOf);
        return leftovers.length === 0;
      },
      10_000,
      "",
      50,
    ).catch(() => undefined);
    if (leftovers.length) {
      ctx.warn(`queue: ${leftovers.length} process(es) still running after the section (${leftovers.join(", ")}); killed`);
      killAll(stateHomes);
    }
    result.leftover_processes = leftovers.length;
    return result;
  } finally {
    undefer();
    for (const child of children) kill(child.pid, "SIGKILL");
    for (const ledger of opened) ledger.close();
    for (const dir of stateHomes) unparkFile(Database, dir);
  }
}

// ---------------------------------------------------------------------------
// 1. enqueue → running

function measureEnqueue(ctx, { env, root, stateHome, ledger, idleAfter, receiptOf }) {
  const { opts } = ctx;
  const runs = Math.max(LATENCY_RUNS, opts.runs);
  const receipts = [];
  const producer = ctx.measure({
    label: "queue: ca garden (producer, idle queue)",
    args: ["garden", "--using", "claude", "--json"],
    cwd: root,
    stateHome,
    env,
    runs,
    // Each run starts on an idle queue: the previous run is terminal, the lock is free
    // and its worker has exited.
    before: () => {
      if (receipts.length) idleAfter(receipts[receipts.length - 1]);
    },
    after: (i, r) => receipts.push({ ...receiptOf(r.stdout), measured: i >= opts.warmup, exitedAt: Date.now() }),
    check: (out) => {
      const receipt = JSON.parse(out);
      return receipt.runs_ahead === 0 ? null : `runs_ahead is ${receipt.runs_ahead} on an idle queue`;
    },
  });
  idleAfter(receipts[receipts.length - 1]);

  const measured = receipts.filter((r) => r.measured);
  const rows = ledger.runs(measured.map((r) => r.run_id));
  const notDone = rows.filter((r) => r.status !== "done");
  if (notDone.length) ctx.warn(`queue: ${notDone.length} enqueue-latency run(s) did not end done (${notDone[0].status}: ${notDone[0].error})`);
  // "Returns at once": the producer exits without waiting for its run to start.
  const before = measured.filter((r, k) => rows[k].started_at === null || r.exitedAt <= rows[k].started_at).length;
  const waited = measured.filter((r, k) => rows[k].finished_at !== null && r.exitedAt >= rows[k].finished_at).length;
  if (waited) ctx.warn(`queue: ${waited} producer(s) exited only after their run had finished`);
  const running = ctx.figure({
    label: "queue: enqueue → running",
    what: "runs.started_at - runs.created_at (ms), queue idle",
    samples: rows.map((r) => r.started_at - r.created_at),
  });
  const done = ctx.figure({
    label: "queue: enqueue → done",
    what: "runs.finished_at - runs.created_at (ms), queue idle",
    samples: rows.map((r) => r.finished_at - r.created_at),
  });
  ctx.target("enqueue_to_running", { measurement: running, limitMs: 250, figure: "queue.enqueue.enqueue_to_running" });
  return {
    producer,
    producer_exited_before_start: `${before}/${measured.length}`,
    enqueue_to_running: running,
    enqueue_to_done: done,
    breakdown: breakdown(ctx, stateHome, measured, rows),
  };
}

function readWorkerLog(stateHome) {
  try {
    return readFileSync(join(stateHome, "logs", "worker.log"), "utf8");
  } catch {
    return "";
  }
}

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Epoch ms of the worker log line that spawned the executor for `runId` (NaN if absent). */
function spawnTime(text, runId) {
  const m = new RegExp(`^(\\S+) \\[\\d+\\] worker \\d+: run ${esc(runId)} → executor`, "m").exec(text);
  return m ? Date.parse(m[1]) : NaN;
}

/**
 * Where enqueue → running goes, from the worker log's millisecond timestamps (best
 * effort: omitted if the log lines cannot be matched). Medians, in ms:
 * created → worker holds the lock → executor spawned → run claimed (started_at).
 */
function breakdown(ctx, stateHome, receipts, rows) {
  const text = readWorkerLog(stateHome);
  const parts = { worker_start: [], worker_to_spawn: [], executor_to_claim: [] };
  receipts.forEach((receipt, k) => {
    const row = rows[k];
    const pid = receipt.child_pid;
    const spawnLine = new RegExp(`^(\\S+) \\[${pid}\\] worker ${pid}: run ${esc(receipt.run_id)} → executor`, "m").exec(text);
    if (!spawnLine || !row?.started_at) return;
    // The same worker's lock line just before it (a pid can be reused over a long log).
    const lockLines = [...text.slice(0, spawnLine.index).matchAll(new RegExp(`^(\\S+) \\[${pid}\\] worker ${pid}: acquired the queue lock`, "gm"))];
    if (!lockLines.length) return;
    const locked = Date.parse(lockLines[lockLines.length - 1][1]);
    const spawned = Date.parse(spawnLine[1]);
    if (!Number.isFinite(locked) || !Number.isFinite(spawned)) return;
    parts.worker_start.push(locked - row.created_at);
    parts.worker_to_spawn.push(spawned - locked);
    parts.executor_to_claim.push(row.started_at - spawned);
  });
  if (parts.worker_start.length !== receipts.length) {
    ctx.warn("queue: could not match the worker log for the enqueue → running breakdown");
    return null;
  }
  return {
    what: "median ms: created_at → worker holds the lock → executor spawned → started_at (worker.log timestamps)",
    worker_start_ms: median(parts.worker_start),
    worker_to_spawn_ms: median(parts.worker_to_spawn),
    executor_to_claim_ms: median(parts.executor_to_claim),
  };
}

// ---------------------------------------------------------------------------
// 2. drain throughput

async function measureDrain(ctx, { stateHome, ledger, caAsync, receiptOf, waitMs }) {
  ledger.park();
  ctx.log(`queue: parked; enqueueing ${DRAIN_RUNS} runs (${PRODUCER_CONCURRENCY} producers at a time)`);
  const receipts = [];
  const enqueueStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: PRODUCER_CONCURRENCY }, async () => {
      while (next < DRAIN_RUNS) {
        next++;
        receipts.push(receiptOf((await caAsync(["garden", "--using", "claude", "--json"])).stdout));
      }
    }),
  );
  const enqueueMs = performance.now() - enqueueStarted;
  // Each producer spawned a worker that found the queue parked; all must be gone first.
  await waitAsync(() => receipts.every((r) => !alive(r.child_pid)), waitMs, "the parked workers to exit", 20);
  if (!ledger.parked()) throw new Error("queue bench: lost the parked lock while enqueueing");
  const ids = receipts.map((r) => r.run_id);
  const queued = ledger.runs(ids).filter((r) => r.status === "queued").length;
  if (queued !== DRAIN_RUNS) throw new Error(`queue bench: ${queued} of ${DRAIN_RUNS} runs are queued after enqueueing`);

  // Un-park and wake one worker with `ca jobs` (its recovery step spawns the worker).
  ctx.log("queue: un-parking and waking a worker with `ca jobs --json`");
  ledger.unpark();
  const wakeEpoch = Date.now();
  const wakeStarted = performance.now();
  await caAsync(["jobs", "--json", "--limit", "1"]);
  const wakeMs = performance.now() - wakeStarted;
  const statuses = new Set(["done", "failed", "cancelled"]);
  await waitAsync(
    () => ledger.runs(ids).every((r) => statuses.has(r.status)),
    waitMs,
    `${DRAIN_RUNS} runs to finish`,
    25,
  );
  await waitAsync(() => !ledger.lock(), waitMs, "the draining worker to release the lock", 10);

  const all = ledger.runs(ids);
  const byStatus = {};
  for (const r of all) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  if ((byStatus.done ?? 0) !== DRAIN_RUNS) {
    const errors = [...new Set(all.filter((r) => r.status !== "done").map((r) => `${r.status}: ${r.error}`))];
    ctx.warn(`queue: drain ended with ${JSON.stringify(byStatus)}; ${errors.slice(0, 3).join(" | ")}`);
  }
  // Runs that never started (failed before a claim) count as drained, but have no start.
  const rows = all.filter((r) => r.started_at !== null).sort((a, b) => a.started_at - b.started_at);
  if (rows.length === 0) throw new Error("queue bench: no drained run ever started");
  const firstStarted = rows[0].started_at;
  const lastFinished = Math.max(...all.map((r) => r.finished_at));
  const drainMs = lastFinished - firstStarted;
  const runsPerS = round2(DRAIN_RUNS / (drainMs / 1000));
  const gaps = rows.slice(1).map((r, k) => r.started_at - rows[k].finished_at);
  // The gap split at the worker log's "run <id> → executor" line (best effort).
  const log = readWorkerLog(stateHome);
  const spawned = rows.map((r) => spawnTime(log, r.run_id));
  const split = spawned.every(Number.isFinite)
    ? {
        worker_ms: median(rows.slice(1).map((r, k) => spawned[k + 1] - rows[k].finished_at)),
        executor_start_ms: median(rows.map((r, k) => r.started_at - spawned[k])),
      }
    : null;
  const figure = ctx.figure({
    label: "queue: drain",
    what: `${DRAIN_RUNS} queued runs drained by one wake-up; runs_per_s = ${DRAIN_RUNS} / (last finished_at - first started_at)`,
    fields: {
      runs: DRAIN_RUNS,
      runs_per_s: runsPerS,
      ms_per_run: round1(drainMs / DRAIN_RUNS),
      drain_ms: drainMs,
      wall_ms: lastFinished - wakeEpoch,
      wall_runs_per_s: round2(DRAIN_RUNS / ((lastFinished - wakeEpoch) / 1000)),
      wake_to_first_start_ms: firstStarted - wakeEpoch,
      wake_command_ms: round1(wakeMs),
      run_median_ms: median(rows.map((r) => r.finished_at - r.started_at)),
      gap_median_ms: median(gaps),
      gap_split: split && {
        what: "median ms: previous finished_at → worker spawns the next executor → started_at (worker.log timestamps)",
        ...split,
      },
      workers: new Set(rows.map((r) => r.worker_token).filter(Boolean)).size,
      statuses: byStatus,
      enqueue_ms: Math.round(enqueueMs),
      producers_in_parallel: PRODUCER_CONCURRENCY,
    },
  });
  ctx.target("drain_throughput", { measurement: figure, stat: "runs_per_s", atLeast: 5, unit: "runs/s", figure: "queue.drain" });
  return figure;
}

// ---------------------------------------------------------------------------
// 3. `ca jobs --json` with 10 000 runs

function measureJobs(ctx, { env, root, ledgerHome, openLedger, caSync }) {
  const checkLength = (n) => (out) => {
    let value;
    try {
      value = JSON.parse(out);
    } catch (error) {
      return `stdout is not JSON (${error.message})`;
    }
    return Array.isArray(value) && value.length === n ? null : `expected ${n} jobs, got ${Array.isArray(value) ? value.length : typeof value}`;
  };
  const jobs = (label, args, n) =>
    ctx.measure({ label, args, cwd: root, stateHome: ledgerHome, env, check: checkLength(n) });

  caSync(["jobs", "--json"], ledgerHome); // creates the ledger
  const empty = jobs("queue: ca jobs --json (empty ledger)", ["jobs", "--json"], 0);

  const ledger = openLedger(ledgerHome);
  const started = performance.now();
  const events = fillLedger(ledger, join(ledgerHome, "logs", "runs"), LEDGER_RUNS);
  const insertMs = performance.now() - started;
  ledger.close();
  ctx.log(`queue: inserted ${LEDGER_RUNS} runs and ${events} events in ${Math.round(insertMs)} ms`);

  const list = jobs(`queue: ca jobs --json (${LEDGER_RUNS} runs)`, ["jobs", "--json"], 100);
  const all = jobs(`queue: ca jobs --json --all (${LEDGER_RUNS} runs)`, ["jobs", "--json", "--all"], LEDGER_RUNS);
  ctx.target("jobs_list_10k", { measurement: list, marginMs: 80, figure: "queue.jobs_10k.jobs" });
  return { ledger_runs: LEDGER_RUNS, ledger_events: events, insert_ms: Math.round(insertMs), empty, jobs: list, jobs_all: all };
}

// ---------------------------------------------------------------------------
// 4. attach delay

async function measureAttach(ctx, { env, root, stateHome, ledger, caSync, receiptOf, children, waitMs }) {
  ledger.park();
  const receipt = receiptOf(caSync(["garden", "--using", "claude", "--json"]));
  await waitAsync(() => !alive(receipt.child_pid), waitMs, "the parked worker to exit", 10);
  const runId = receipt.run_id;

  const started = performance.now();
  const child = spawn(process.execPath, [ctx.cli, "jobs", "attach", runId, "--json"], {
    cwd: root,
    env: ctx.childEnv({ stateHome, env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const seen = new Map(); // event sequence → performance.now() of the line that carried it
  const waiting = new Map(); // sequence → resolve
  let firstLineAt = null;
  let buffer = "";
  let stderr = "";
  let badLines = 0;
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.on("data", (chunk) => {
    const now = performance.now();
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      firstLineAt ??= now;
      let update;
      try {
        update = JSON.parse(line);
      } catch {
        badLines++;
        continue;
      }
      for (const event of update.events ?? []) {
        if (!seen.has(event.sequence)) seen.set(event.sequence, now);
        waiting.get(event.sequence)?.(now);
        waiting.delete(event.sequence);
      }
    }
  });
  const seenAt = (seq, timeoutMs) =>
    new Promise((resolve, reject) => {
      if (seen.has(seq)) return resolve(seen.get(seq));
      const timer = setTimeout(() => reject(new Error(`queue bench: attach never printed event ${seq} (stderr: ${stderr.slice(-2000)})`)), timeoutMs);
      waiting.set(seq, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });

  let exit;
  const delays = [];
  try {
    await Promise.race([
      waitAsync(() => firstLineAt !== null, 20_000, "the first line of `ca jobs attach`", 5),
      exited.then((e) => Promise.reject(new Error(`queue bench: attach exited early (${e.signal ?? e.code}): ${stderr.slice(-2000)}`))),
    ]);
    for (let i = 0; i < ATTACH_EVENTS; i++) {
      await sleep(150 + ((i * 37) % 101)); // 150–250 ms apart, not in step with the poll
      const seq = ledger.appendEvent(runId, `bench probe ${i + 1}`);
      const appended = performance.now();
      delays.push((await seenAt(seq, 10_000)) - appended);
    }
  } finally {
    kill(child.pid, "SIGINT");
    exit = await Promise.race([exited, sleep(5_000).then(() => null)]);
    if (!exit) {
      kill(child.pid, "SIGKILL");
      exit = await exited;
      ctx.warn("queue: `ca jobs attach` did not exit within 5 s of SIGINT; killed");
    }
    children.delete(child);
    // The parked run is cancelled (queued → cancelled at once), then the queue is freed.
    caSync(["jobs", "cancel", runId, "--json"]);
    ledger.unpark();
  }
  if (exit.code !== 130) ctx.warn(`queue: \`ca jobs attach\` exited ${exit.signal ?? exit.code} after SIGINT, expected 130`);
  if (badLines) ctx.warn(`queue: \`ca jobs attach --json\` printed ${badLines} line(s) that are not JSON`);
  const figure = ctx.figure({
    label: "queue: attach delay",
    what: "appending a run_events row → `ca jobs attach --json` prints it (ms)",
    samples: delays,
    fields: {
      events: ATTACH_EVENTS,
      first_line_ms: round1(firstLineAt - started),
      exit_code: exit.code,
    },
  });
  ctx.target("attach_delay", { measurement: figure, limitMs: 300, figure: "queue.attach" });
  return figure;
}
