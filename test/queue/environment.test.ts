import { describe, expect, test } from "vitest";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FAKE_BIN, sandbox, type Sandbox } from "../support/cli.js";
import {
  checkAndCleanUpAfterEach,
  emptyRepo,
  garden,
  parkedRun,
  readRun,
  releaseQueue,
  waitForFile,
  waitForIdle,
  waitForStatus,
  writeDb,
  type JobRecord,
} from "./support.js";

let box: Sandbox;
checkAndCleanUpAfterEach(() => box);

/** Where a queued run's environment waits for its executor. */
function environmentFile(runId: string): string {
  return join(box.state, "runs", runId, "environment.json");
}

/** Every file under a folder, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** A run whose agent holds before its answer until the test lets it go. */
async function blockingRun(env: NodeJS.ProcessEnv = {}) {
  const root = emptyRepo(box);
  const started = join(box.dir, "first-started");
  const release = join(box.dir, "release-first");
  const first = garden(box, root, { FAKE_CLAUDE_STARTED_FILE: started, FAKE_CLAUDE_RELEASE_FILE: release, ...env });
  await waitForFile(started);
  return { root, first, release: () => writeFileSync(release, "") };
}

describe("a run executes in the environment of the command that queued it", () => {
  test("a run queued while another drains gets its own environment, not the worker's", async () => {
    box = sandbox();
    const { root, first, release } = await blockingRun({ FAKE_CLAUDE_RESULT_TEXT: "answer A" });
    // Queued while the first run's worker drains: that worker, started with the first
    // command's environment, executes this run too.
    const second = garden(box, root, { FAKE_CLAUDE_RESULT_TEXT: "answer B", FAKE_CLAUDE_ENV_FILE: join(box.dir, "second-env.json") });
    release();
    await waitForIdle(box);
    expect(readRun(box, first.run_id)?.status).toBe("done");
    const shown = box.run(["jobs", "show", second.run_id, "--json"]).json<JobRecord>();
    expect(shown.status).toBe("done");
    expect(shown.summary).toBe("answer B");
    const agentEnv = JSON.parse(readFileSync(join(box.dir, "second-env.json"), "utf8")) as Record<string, string>;
    expect(agentEnv.FAKE_CLAUDE_RESULT_TEXT).toBe("answer B");
  });

  test("the agent is looked up on the queuing command's PATH, so readiness is checked where it was at queue time", async () => {
    box = sandbox();
    // The first command sees only the fake codex; the worker it starts has that PATH.
    const codexOnly = join(box.dir, "codex-only");
    mkdirSync(codexOnly);
    symlinkSync(join(FAKE_BIN, "codex"), join(codexOnly, "codex"));
    const path = `${codexOnly}:${dirname(process.execPath)}:/usr/bin:/bin`;
    const root = emptyRepo(box);
    const started = join(box.dir, "codex-started");
    const release = join(box.dir, "release-codex");
    const first = box
      .run(["garden", "--using", "codex", "--json"], {
        cwd: root,
        env: { PATH: path, FAKE_CODEX_STARTED_FILE: started, FAKE_CODEX_RELEASE_FILE: release },
      })
      .json<{ run_id: string }>();
    await waitForFile(started);
    // Queued from a shell whose PATH has claude; executed by the codex-only worker.
    const second = garden(box, root);
    writeFileSync(release, "");
    await waitForIdle(box);
    expect(readRun(box, first.run_id)?.status).toBe("done");
    const row = readRun(box, second.run_id)!;
    expect({ status: row.status, error: row.error }).toEqual({ status: "done", error: null });
  });

  test("jobs retry runs in the retrying command's environment, not the original one's", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const failed = garden(box, root, { FAKE_CLAUDE_SCENARIO: "crash" });
    await waitForStatus(box, failed.run_id, ["failed"]);
    await waitForIdle(box);
    const { first, release } = await blockingRun({ FAKE_CLAUDE_RESULT_TEXT: "the worker's answer" });
    const retried = box.run(["jobs", "retry", failed.run_id, "--json"], { env: { FAKE_CLAUDE_RESULT_TEXT: "retried answer" } }).json<{ run_id: string }>();
    release();
    await waitForIdle(box);
    expect(readRun(box, first.run_id)?.status).toBe("done");
    const shown = box.run(["jobs", "show", retried.run_id, "--json"]).json<JobRecord>();
    expect({ status: shown.status, summary: shown.summary }).toEqual({ status: "done", summary: "retried answer" });
  });
});

describe("the environment holds secrets: it is kept only while the run waits, and only for its owner", () => {
  const secret = "sk-ant-test-7f3c9e1d2b4a6f80";

  test("a 0600 file while queued, taken by the executor, and never in the ledger, a log or jobs show", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root, { ANTHROPIC_API_KEY: secret, FAKE_CLAUDE_ENV_FILE: join(box.dir, "agent-env.json") });
    const file = environmentFile(run.run_id);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(file)).mode & 0o077).toBe(0);
    expect(readFileSync(file, "utf8")).toContain(secret);

    releaseQueue(box);
    box.run(["jobs"]);
    await waitForStatus(box, run.run_id, ["done"]);
    await waitForIdle(box);
    // The agent ran with the key; the file is gone.
    expect((JSON.parse(readFileSync(join(box.dir, "agent-env.json"), "utf8")) as Record<string, string>).ANTHROPIC_API_KEY).toBe(secret);
    expect(existsSync(file)).toBe(false);
    const leaks = filesUnder(box.state).filter((path) => readFileSync(path).includes(secret));
    expect(leaks).toEqual([]);
    expect(box.run(["jobs", "show", run.run_id, "--json"]).stdout).not.toContain(secret);
    expect(box.run(["jobs", "attach", run.run_id, "--json"]).stdout).not.toContain(secret);
  });

  test("a queued run that is cancelled never keeps its environment", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root, { ANTHROPIC_API_KEY: secret });
    expect(existsSync(environmentFile(run.run_id))).toBe(true);
    expect(box.run(["jobs", "cancel", run.run_id]).code).toBe(0);
    expect(existsSync(environmentFile(run.run_id))).toBe(false);
    releaseQueue(box);
  });

  test("jobs prune removes the folder, environment and all, of a run that ended without an executor taking it", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const run = await parkedRun(box, root);
    // A crash left an ended run's environment behind (the cancel that would have removed it died).
    writeFileSync(join(box.dir, "keep.json"), readFileSync(environmentFile(run.run_id)));
    box.run(["jobs", "cancel", run.run_id]);
    writeFileSync(environmentFile(run.run_id), readFileSync(join(box.dir, "keep.json")));
    releaseQueue(box);
    writeDb(box, (db) => db.prepare("UPDATE runs SET created_at = 0 WHERE run_id = ?").run(run.run_id));
    expect(box.run(["jobs", "prune", "--older-than", "1d"]).code).toBe(0);
    expect(existsSync(dirname(environmentFile(run.run_id)))).toBe(false);
  });

  test("a worker that finds the queue idle sweeps the environments of runs that have ended", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const cancelled = await parkedRun(box, root);
    const left = environmentFile(cancelled.run_id);
    writeFileSync(join(box.dir, "keep.json"), readFileSync(left));
    box.run(["jobs", "cancel", cancelled.run_id]);
    writeFileSync(left, readFileSync(join(box.dir, "keep.json")));
    releaseQueue(box);
    const next = garden(box, root);
    await waitForStatus(box, next.run_id, ["done"]);
    await waitForIdle(box);
    expect(existsSync(left)).toBe(false);
  });
});
