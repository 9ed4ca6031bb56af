import { afterEach, describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { defaultTitle, enqueueAndWake, insertRun, wakeWorkerIfNeeded, type ProducerDeps } from "../../src/queue/producer.js";
import type { Repository } from "../../src/repositories/model.js";
import { enqueue, ledger, spec, type Ledger } from "../runs/helpers.js";
import { FakeProcesses, FakeSpawner, tempEnvironments } from "./fake-ports.js";

/** Queueing a run and waking a worker, over a real ledger with the operating system faked. */

let l: Ledger;
let envs: ReturnType<typeof tempEnvironments>;
let spawner: FakeSpawner;
let processes: FakeProcesses;
afterEach(() => {
  l?.close();
  envs?.remove();
});

const NOW = Date.UTC(2026, 6, 11, 12, 3, 4);
const STALE_MS = 30_000;
const REPOSITORY: Repository = { repositoryId: "repo_0123456789abcdef", name: "demo", description: "", rootPath: "/work/demo", registeredAt: 0 };

function deps(): ProducerDeps {
  l = ledger();
  envs = tempEnvironments();
  processes = new FakeProcesses();
  spawner = new FakeSpawner(processes, () => undefined);
  return {
    runs: l.runs,
    locks: l.locks,
    processes,
    spawner,
    now: () => NOW,
    runLogDir: "/state/logs/runs",
    staleAfterMs: STALE_MS,
    environments: envs.environments,
    env: { PATH: "/usr/bin", OPENAI_API_KEY: "sk-x" },
  };
}

const environmentOf = (runId: string) => join(envs.dir, runId, "environment.json");

describe("queueing", () => {
  test("commits a queued run with its repository, title, spec and log, and the command's environment beside it", () => {
    const d = deps();
    const record = insertRun(d, { repository: REPOSITORY, kind: "garden", spec: spec("garden") });
    expect(record.runId).toMatch(/^garden-20260711120304-[0-9a-f]{8}$/);
    expect(record).toMatchObject({
      status: "queued",
      kind: "garden",
      repositoryId: "repo_0123456789abcdef",
      repositoryName: "demo",
      repositoryRoot: "/work/demo",
      title: "Garden wiki",
      logPath: `/state/logs/runs/${record.runId}.log`,
      retryOf: null,
      createdAt: NOW,
    });
    expect(JSON.parse(record.specJson)).toEqual(spec("garden"));
    expect(JSON.parse(readFileSync(environmentOf(record.runId), "utf8"))).toEqual({ PATH: "/usr/bin", OPENAI_API_KEY: "sk-x" });
    // The environment stays out of the ledger.
    expect(JSON.stringify(l.runs.requireRun(record.runId))).not.toContain("sk-x");
  });

  test("a retry records what it retries; a spec's own title wins", () => {
    const d = deps();
    const record = insertRun(d, { repository: REPOSITORY, kind: "ingest", spec: spec("ingest", { title: "Notes again" }), retryOf: "ingest-1" });
    expect(record).toMatchObject({ retryOf: "ingest-1", title: "Notes again", kind: "ingest" });
  });

  test("when the commit fails, the environment written for it is removed again", () => {
    const d = deps();
    l.db.close();
    expect(() => insertRun(d, { repository: REPOSITORY, kind: "garden", spec: spec("garden") })).toThrow("The database connection is not open");
    const folders = readdirSync(envs.dir);
    expect(folders).toHaveLength(1);
    expect(readdirSync(join(envs.dir, folders[0]!))).toEqual([]);
  });

  test("enqueueAndWake commits first, then starts a worker, and says how many queued runs are ahead", () => {
    const d = deps();
    enqueue(l);
    enqueue(l);
    const running = enqueue(l);
    l.locks.acquireWorkerLock({ token: "w", pid: 1, startTime: "1" }, NOW, STALE_MS, () => true);
    l.runs.claimRun(running, { executionId: "e", pid: 2, startTime: "2", pgid: 2, workerToken: "w" }, NOW);
    const { record, receipt } = enqueueAndWake(d, { repository: REPOSITORY, kind: "build", spec: spec("build") });
    expect(receipt).toEqual({ run_id: record.runId, repository: "demo", runs_ahead: 2, status: "queued", child_pid: 9001 });
    expect(record.title).toBe("Build wiki");
    expect(spawner.workers).toBe(1);
  });
});

describe("waking a worker", () => {
  test("nothing queued: no worker", () => {
    const d = deps();
    expect(wakeWorkerIfNeeded(d)).toBeNull();
    expect(spawner.workers).toBe(0);
  });

  test("queued work and no lock, a dead holder, or a stale heartbeat: a worker is started", () => {
    const d = deps();
    enqueue(l);
    expect(wakeWorkerIfNeeded(d)).toBe(9001);
    l.locks.acquireWorkerLock({ token: "dead", pid: 77, startTime: "st-77" }, NOW, STALE_MS, () => false);
    expect(wakeWorkerIfNeeded(d)).toBe(9002);
    processes.live.set(77, "st-77");
    l.locks.acquireWorkerLock({ token: "stalled", pid: 77, startTime: "st-77" }, NOW - STALE_MS, STALE_MS, () => false);
    expect(wakeWorkerIfNeeded(d)).toBe(9003);
  });

  test("queued work with a live worker whose heartbeat is fresh: none", () => {
    const d = deps();
    enqueue(l);
    processes.live.set(77, "st-77");
    l.locks.acquireWorkerLock({ token: "live", pid: 77, startTime: "st-77" }, NOW - STALE_MS + 1, STALE_MS, () => false);
    expect(wakeWorkerIfNeeded(d)).toBeNull();
    expect(spawner.workers).toBe(0);
  });
});

describe("default titles", () => {
  test("name the kind, and for ingest its one input or how many", () => {
    expect(defaultTitle(spec("build"))).toBe("Build wiki");
    expect(defaultTitle(spec("garden"))).toBe("Garden wiki");
    expect(defaultTitle(spec("ingest", { inputs: ["notes.md"] }))).toBe("Ingest notes.md");
    expect(defaultTitle(spec("ingest", { inputs: ["a.md", "b.md"] }))).toBe("Ingest 2 sources");
  });
});
