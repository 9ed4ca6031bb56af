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
import { BIN, FAKE_BIN, ROOT, type Sandbox } from "../support/cli.js";
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
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const PULL_REQUEST_SETTING =
    'codealmanac: the repository must let Actions create pull requests: Settings → Actions → General → "Allow GitHub Actions to create and approve pull requests"\n';

  test("prints a GitHub workflow and says where to save it, which secret to add, and the setting that lets Actions open pull requests", () => {
    const box = schedulerBox();
    const result = box.run(["automation", "ci", "--provider", "github", "--using", "claude", "--every", "12h"]);
    expect(result.code).toBe(0);
    type Step = { uses?: string; run?: string; with?: Record<string, unknown> };
    const workflow = parse(result.stdout) as { on: { schedule: { cron: string }[] }; jobs: { garden: { steps: Step[] } } };
    expect(workflow.on.schedule).toEqual([{ cron: "17 */12 * * *" }]);
    const steps = workflow.jobs.garden.steps;
    expect(steps.find((s) => s.uses === "actions/setup-node@v4")!.with).toEqual({ "node-version": 22 });
    expect(steps.map((s) => s.run).filter(Boolean)[0]).toBe(`npm install -g --allow-scripts=better-sqlite3,@anthropic-ai/claude-code codealmanac@${version} @anthropic-ai/claude-code`);
    expect(steps.map((s) => s.run).filter(Boolean)[1]).toContain("ca garden --wait --json --using claude");
    expect(result.stderr).toBe(
      "codealmanac: save this as .github/workflows/codealmanac-garden.yml and add the repository secret ANTHROPIC_API_KEY (Settings → Secrets and variables → Actions)\n" +
        PULL_REQUEST_SETTING,
    );
  });

  test("the install step pins the CodeAlmanac that printed the file, the version --version reports", () => {
    const box = schedulerBox();
    expect(box.run(["--version"]).stdout.trim()).toBe(`codealmanac ${version}`);
    const out = box.run(["automation", "ci", "--provider", "github", "--json"]).json<{ workflow: string; drift_check: { workflow: string } }>();
    expect(out.workflow).toContain(`npm install -g --allow-scripts=better-sqlite3,@openai/codex codealmanac@${version} @openai/codex\n`);
    expect(out.drift_check.workflow).toContain(`npm install -g --allow-scripts=better-sqlite3 codealmanac@${version}\n`);
  });

  test("--json wraps the workflow text with where it goes and what to set up", () => {
    const result = schedulerBox().run(["automation", "ci", "--provider", "github", "--json"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    const out = result.json<{ workflow: string; notes: string[] }>();
    expect(out).toMatchObject({ provider: "github", path: ".github/workflows/codealmanac-garden.yml", harness: "codex", schedule: "17 3 * * *", secret: "OPENAI_API_KEY", token_variable: null });
    expect(out.notes[1]).toBe(PULL_REQUEST_SETTING.slice("codealmanac: ".length, -1));
  });

  test("--provider gitlab prints a .gitlab-ci.yml job, the variables to add, and the schedule to create in CI/CD → Schedules", () => {
    const box = schedulerBox();
    const result = box.run(["automation", "ci", "--provider", "gitlab", "--every", "7d"]);
    expect(result.code, result.stderr).toBe(0);
    const job = (parse(result.stdout) as Record<string, { image?: string; rules?: unknown; script?: string[] }>)["codealmanac-garden"]!;
    expect(job.image).toBe("node:20");
    expect(job.rules).toEqual([{ if: '$CI_PIPELINE_SOURCE == "schedule"' }]);
    expect(job.script![0]).toBe(`npm install -g --allow-scripts=better-sqlite3,@openai/codex codealmanac@${version} @openai/codex`);
    expect(result.stderr.split("\n")).toEqual([
      'codealmanac: save this as .gitlab-ci.yml, or add its "garden" stage and codealmanac-garden job to yours',
      "codealmanac: add the masked CI/CD variables OPENAI_API_KEY and CODEALMANAC_GITLAB_TOKEN (Settings → CI/CD → Variables); CODEALMANAC_GITLAB_TOKEN is a project access token with the Developer role and the api and write_repository scopes",
      'codealmanac: GitLab keeps schedules outside the file: create one in Build → Pipeline schedules (CI/CD → Schedules) with the interval pattern "17 3 * * 1", cron timezone UTC, on the default branch',
      'codealmanac:   or: glab schedule create --cron "17 3 * * 1" --cronTimeZone UTC --ref <default branch> --description "CodeAlmanac garden"',
      "",
    ]);
    const json = box.run(["automation", "ci", "--provider", "gitlab", "--json"]).json<Record<string, unknown>>();
    expect(json).toMatchObject({ provider: "gitlab", path: ".gitlab-ci.yml", secret: "OPENAI_API_KEY", token_variable: "CODEALMANAC_GITLAB_TOKEN", drift_check: null });
    const drift = box.run(["automation", "ci", "--provider", "gitlab", "--workflow", "drift"]);
    expect([drift.code, drift.stdout, drift.stderr]).toEqual([1, "", "codealmanac: --workflow drift needs --provider github; gitlab has no drift check\n"]);
  });

  test("--help says what each provider needs, how --every is read, and what is printed where", () => {
    const help = schedulerBox().run(["automation", "ci", "--help"]);
    expect(help.code).toBe(0);
    for (const text of [
      "github (a GitHub Actions workflow) or",
      '"Allow GitHub Actions\n          to create and approve pull requests"',
      "22 for Claude Code, 20 for Codex",
      "CODEALMANAC_GITLAB_TOKEN",
      "Build →\n          Pipeline schedules (CI/CD → Schedules)",
      "(4h, 6h)",
      "gh\n          and the job's token",
    ]) {
      expect(help.stdout).toContain(text);
    }
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

  test("an unknown provider, or an interval cron cannot run evenly, is a one-line error naming the flag (exit 1)", () => {
    const box = schedulerBox();
    const provider = box.run(["automation", "ci", "--provider", "jenkins"]);
    expect([provider.code, provider.stdout, provider.stderr]).toEqual([1, "", 'codealmanac: unknown --provider "jenkins" (expected github, gitlab)\n']);
    const every = box.run(["automation", "ci", "--provider", "github", "--every", "5h"]);
    expect([every.code, every.stdout, every.stderr]).toEqual([
      1,
      "",
      'codealmanac: invalid --every "5h": GitHub\'s cron cannot run every 5h evenly; nearest: 4h, 6h (or give a cron expression such as "17 3 * * *")\n',
    ]);
    const json = box.run(["automation", "ci", "--provider", "gitlab", "--every", "2d", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: "validation_failed", message: 'invalid --every "2d": GitLab\'s cron cannot run every 2d evenly; nearest: 1d, 7d (or give a cron expression such as "17 3 * * *")' },
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
