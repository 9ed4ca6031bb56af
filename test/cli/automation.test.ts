import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { createAutomation } from "../../src/automation/service.js";
import { finishTaskRun, readScheduleAnchor, readTaskRun, startTaskRun } from "../../src/automation/run-records.js";
import { readExecStart, serviceUnitName, systemdUnitDir } from "../../src/automation/systemd-units.js";
import { taskLogPath } from "../../src/automation/task-log.js";
import { runCommand } from "../../src/core/exec.js";
import { statePaths } from "../../src/core/paths.js";
import { BIN, FAKE_BIN, type Sandbox } from "../support/cli.js";
import { freshSandboxes } from "./helpers.js";
import { SCHEDULER_BIN } from "../automation/support.js";

const HOUR = 3_600_000;
const boxes = freshSandboxes();

/** A sandbox whose scheduler is the fake crontab (or fake systemctl), so nothing touches the real one. */
function schedulerBox(scheduler: "cron" | "systemd" = "cron"): Sandbox {
  const box = boxes();
  Object.assign(box.env, {
    PATH: `${SCHEDULER_BIN}:${FAKE_BIN}:${process.env.PATH ?? ""}`,
    FAKE_SCHEDULER_DIR: join(box.dir, "fake-scheduler"),
    CODEALMANAC_SCHEDULER: scheduler,
  });
  return box;
}

function automationOf(box: Sandbox, now = Date.now) {
  return createAutomation({ env: box.env, paths: statePaths(box.env), platform: "linux", run: runCommand, cliPath: BIN, nodePath: process.execPath, now });
}

describe("automation status", () => {
  test("--json: each task's schedule read back, with its interval and last run", async () => {
    const box = schedulerBox();
    await automationOf(box).reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    const paths = statePaths(box.env);
    startTaskRun(paths, "sync", Date.UTC(2025, 0, 2, 3, 4, 5));
    finishTaskRun(paths, "sync", 2, Date.UTC(2025, 0, 2, 3, 5, 0));
    const result = box.run(["automation", "status", "--json"]);
    expect(result.code).toBe(0);
    expect(result.json()).toEqual({
      statuses: [
        {
          task: "sync",
          scheduler: "cron",
          installed: true,
          enabled: true,
          interval: "5h",
          interval_ms: 5 * HOUR,
          location: "crontab",
          last_run: { started_at: "2025-01-02T03:04:05Z", finished_at: "2025-01-02T03:05:00Z", exit_code: 2, result: "failed" },
          notes: [],
        },
        { task: "garden", scheduler: "cron", installed: false, enabled: false, interval: null, interval_ms: null, location: "crontab", last_run: null, notes: [] },
      ],
    });
  });

  test("human: one block per task", async () => {
    const box = schedulerBox();
    await automationOf(box).reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    const result = box.run(["automation", "status", "garden", "sync"]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      [
        "garden automation: installed, enabled",
        "  scheduler  cron (user crontab)",
        "  where      crontab",
        "  interval   24h",
        "  last run   not run yet",
        "",
        "sync automation: not installed",
        "  scheduler  cron (user crontab)",
        "  last run   not run yet",
        "",
      ].join("\n"),
    );
  });

  test("an unknown task is refused in one line; no scheduler is a note, not a failure", () => {
    const box = schedulerBox();
    const bad = box.run(["automation", "status", "update"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('codealmanac: unknown task "update" (expected sync, garden)\n');
    const off = box.run(["automation", "status", "sync", "--json"], { env: { CODEALMANAC_SCHEDULER: "none" } });
    expect(off.code).toBe(0);
    expect(off.json<{ statuses: { scheduler: null; notes: string[] }[] }>().statuses[0]).toMatchObject({
      scheduler: null,
      notes: ["scheduled automation is turned off here (CODEALMANAC_SCHEDULER=none)"],
    });
  });
});

describe("automation", () => {
  test("without a subcommand prints its help on stdout", () => {
    const result = schedulerBox().run(["automation"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: codealmanac automation [options] [command]");
    expect(result.stdout).toMatch(/\n {2}status \[options\] \[tasks\.\.\.\] /);
    expect(result.stdout).toMatch(/\n {2}ci \[options\] /);
  });
});

describe("automation ci", () => {
  test("prints a GitHub workflow and says where to save it and which secret to add", () => {
    const box = schedulerBox();
    const result = box.run(["automation", "ci", "--provider", "github", "--using", "claude", "--every", "12h"]);
    expect(result.code).toBe(0);
    const workflow = parse(result.stdout) as { on: { schedule: { cron: string }[] }; jobs: { garden: { steps: { run?: string }[] } } };
    expect(workflow.on.schedule).toEqual([{ cron: "17 */12 * * *" }]);
    expect(workflow.jobs.garden.steps.map((s) => s.run).filter(Boolean)[1]).toContain("ca garden --wait --json --using claude");
    expect(result.stderr).toBe(
      "codealmanac: save this as .github/workflows/codealmanac-garden.yml and add the repository secret ANTHROPIC_API_KEY (Settings → Secrets and variables → Actions)\n",
    );
  });

  test("--json wraps the workflow text with where it goes", () => {
    const result = schedulerBox().run(["automation", "ci", "--provider", "github", "--json"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const out = result.json<{ workflow: string }>();
    expect(out).toMatchObject({ provider: "github", path: ".github/workflows/codealmanac-garden.yml", harness: "codex", schedule: "17 3 * * *", secret: "OPENAI_API_KEY" });
    expect(out.workflow).toContain("npm install -g codealmanac @openai/codex\n");
  });

  test("--workflow drift prints the pull-request drift check, which fails on stale pages with --drift-check fail", () => {
    const box = schedulerBox();
    const report = box.run(["automation", "ci", "--provider", "github", "--workflow", "drift"]);
    expect(report.code).toBe(0);
    const steps = (parse(report.stdout) as { on: unknown; jobs: { drift: { steps: { run?: string }[] } } }).jobs.drift.steps;
    expect(steps.at(-1)!.run).toBe('ca drift --base "origin/$BASE_REF" --markdown | tee -a "$GITHUB_STEP_SUMMARY"\n');
    expect(report.stderr).toBe("codealmanac: save this as .github/workflows/codealmanac-drift.yml; it needs no secret\n");
    const fail = box.run(["automation", "ci", "--provider", "github", "--workflow", "drift", "--drift-check", "fail"]);
    expect(fail.stdout).toContain("--markdown --fail-on stale |");
    const off = box.run(["automation", "ci", "--provider", "github", "--workflow", "drift", "--drift-check", "off"]);
    expect([off.code, off.stdout, off.stderr]).toEqual([1, "", "codealmanac: --workflow drift needs a drift check; --drift-check off leaves none to print\n"]);
    const unknown = box.run(["automation", "ci", "--provider", "github", "--drift-check", "sometimes"]);
    expect(unknown.code).toBe(2);
  });

  test("--json carries the drift check beside the garden workflow, or null with --drift-check off", () => {
    const box = schedulerBox();
    type Out = { workflow: string; drift_check: { path: string; fail_on: string | null; workflow: string } | null };
    const out = box.run(["automation", "ci", "--provider", "github", "--json", "--drift-check", "fail"]).json<Out>();
    expect(out.drift_check).toMatchObject({ path: ".github/workflows/codealmanac-drift.yml", fail_on: "stale" });
    expect(out.drift_check!.workflow).toContain("pull_request:");
    expect(box.run(["automation", "ci", "--provider", "github", "--json"]).json<Out>().drift_check!.fail_on).toBeNull();
    expect(box.run(["automation", "ci", "--provider", "github", "--json", "--drift-check", "off"]).json<Out>().drift_check).toBeNull();
  });

  test("an unknown provider or schedule is a one-line error naming the flag", () => {
    const box = schedulerBox();
    const provider = box.run(["automation", "ci", "--provider", "gitlab"]);
    expect([provider.code, provider.stdout, provider.stderr]).toEqual([1, "", 'codealmanac: unknown --provider "gitlab" (expected github)\n']);
    const every = box.run(["automation", "ci", "--provider", "github", "--every", "90m", "--json"]);
    expect(every.code).toBe(1);
    expect(JSON.parse(every.stderr)).toEqual({
      error: {
        code: "validation_failed",
        message: 'invalid --every "90m": GitHub schedules run every 5 to 59 minutes, whole hours or whole days; give a cron expression for anything else',
      },
    });
  });
});

describe("__scheduled", () => {
  test("is hidden from help", () => {
    const help = schedulerBox().run(["--help"]);
    expect(help.stdout).toContain("automation");
    expect(help.stdout).not.toContain("__scheduled");
  });

  test("--every skips a task that is not due: exit 0, no output, one log line, record untouched", () => {
    const box = schedulerBox();
    const paths = statePaths(box.env);
    const started = Date.now() - HOUR;
    startTaskRun(paths, "sync", started);
    const result = box.run(["__scheduled", "sync", "--every", "5h"]);
    expect([result.code, result.stdout, result.stderr]).toEqual([0, "", ""]);
    expect(readTaskRun(paths, "sync")).toEqual({ startedAt: started, finishedAt: null, exitCode: null });
    expect(readFileSync(taskLogPath(paths, "sync"), "utf8")).toMatch(/^\S+Z sync: skipped, not due \(last started (59m|1h00m) ago; runs every 5h\)\n$/);
  });

  test("a bad task or --every is refused before anything is recorded", () => {
    const box = schedulerBox();
    const task = box.run(["__scheduled", "update"]);
    expect([task.code, task.stderr]).toEqual([1, 'codealmanac: unknown task "update" (expected sync, garden)\n']);
    const every = box.run(["__scheduled", "garden", "--every", "often"]);
    expect([every.code, every.stderr]).toEqual([1, 'codealmanac: invalid --every "often": expected a duration such as 5h or 30m\n']);
    expect(existsSync(join(statePaths(box.env).root, "automation"))).toBe(false);
  });

  test("a due task runs, and its record and log carry the exit code", () => {
    const box = schedulerBox();
    const paths = statePaths(box.env);
    const result = box.run(["__scheduled", "sync", "--every", "5h"]);
    const record = readTaskRun(paths, "sync");
    expect(record).not.toBeNull();
    expect(record!.exitCode).toBe(result.code);
    expect(readFileSync(taskLogPath(paths, "sync"), "utf8")).toMatch(/sync: started\n[\s\S]*sync: (succeeded|failed \(exit \d+\))\n$/);
  });

  test("the installed timer's command runs a garden whose last start is older than its interval, as the first tick after a reboot does", async () => {
    const box = schedulerBox("systemd");
    const paths = statePaths(box.env);
    const installedAt = Date.now() - 48 * HOUR;
    await automationOf(box, () => installedAt).reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    expect(readScheduleAnchor(paths, "garden")).toBe(installedAt);
    const service = readFileSync(join(systemdUnitDir(box.env, box.home), serviceUnitName("garden")), "utf8");
    const argv = readExecStart(service)!;
    expect(argv).toEqual([process.execPath, realpathSync(BIN), "__scheduled", "garden", "--every", "24h"]);
    startTaskRun(paths, "garden", Date.now() - 25 * HOUR);
    const before = Date.now();

    const result = spawnSync(argv[0]!, argv.slice(1), { cwd: box.dir, env: box.env, encoding: "utf8", timeout: 60_000 });
    expect(result.status).toBe(0);
    const record = readTaskRun(paths, "garden")!;
    expect(record.startedAt).toBeGreaterThanOrEqual(before);
    expect([record.finishedAt !== null, record.exitCode]).toEqual([true, 0]);
    expect(readFileSync(taskLogPath(paths, "garden"), "utf8")).toMatch(/^\S+Z garden: started\n\S+Z garden: succeeded\n$/);
  });
});
