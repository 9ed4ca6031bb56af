import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { statePaths, type StatePaths } from "../../src/core/paths.js";
import { runCommand } from "../../src/core/exec.js";
import type { CommandRunner } from "../../src/core/command.js";
import { readScheduleAnchor } from "../../src/automation/run-records.js";
import { createAutomation, type AutomationDeps } from "../../src/automation/service.js";
import type { Automation, AutomationTask, SchedulerKind } from "../../src/automation/model.js";
import { scheduledCommand, type ScheduledCommand } from "../../src/automation/scheduled-command.js";
import { ROOT } from "../support/cli.js";

/** The fake systemctl, launchctl and crontab (see fake-scheduler.mjs); never on PATH unless a test puts it there. */
export const SCHEDULER_BIN = join(ROOT, "test", "fixtures", "scheduler-bin");

export interface Call {
  tool: string;
  argv: string[];
}

export interface SchedulerWorld {
  dir: string;
  home: string;
  paths: StatePaths;
  /** The fakes' state folder (FAKE_SCHEDULER_DIR). */
  fakeDir: string;
  env: NodeJS.ProcessEnv;
  /** The CLI script the schedules start: a stand-in of our own, which a build running meanwhile cannot remove. */
  cliPath: string;
  /** What `automation()` (with no overrides) installs for the task. */
  command(task: AutomationTask): ScheduledCommand;
  calls(): Call[];
  /** Forgets the calls so far. */
  resetCalls(): void;
  crontab(): string | null;
  systemd(): Record<string, { enabled: boolean; active: boolean; restarts?: number }>;
  launchd(): Record<string, { domain: string; plist: string; loads: number }>;
  automation(overrides?: Partial<AutomationDeps>): Automation;
}

/**
 * A temporary HOME and state root with the fake scheduler tools first on PATH and the
 * scheduler forced to `kind`; removed after the test.
 */
export function schedulerWorlds(): (kind: SchedulerKind | null, extraEnv?: NodeJS.ProcessEnv) => SchedulerWorld {
  const made: string[] = [];
  afterEach(() => {
    while (made.length > 0) rmSync(made.pop()!, { recursive: true, force: true });
  });
  return (kind, extraEnv = {}) => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-automation-")));
    made.push(dir);
    const home = join(dir, "home");
    const fakeDir = join(dir, "fake");
    mkdirSync(home, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: `${SCHEDULER_BIN}:${process.env.PATH ?? ""}`,
      HOME: home,
      CODEALMANAC_HOME: join(dir, "state"),
      FAKE_SCHEDULER_DIR: fakeDir,
      USER: "tester",
      ...(kind ? { CODEALMANAC_SCHEDULER: kind } : {}),
      ...extraEnv,
    };
    const paths = statePaths(env);
    const cliPath = join(dir, "codealmanac", "dist", "bin.js");
    mkdirSync(join(cliPath, ".."), { recursive: true });
    writeFileSync(cliPath, "");
    const json = (name: string) => (existsSync(join(fakeDir, name)) ? JSON.parse(readFileSync(join(fakeDir, name), "utf8")) : {});
    const world: SchedulerWorld = {
      dir,
      home,
      paths,
      fakeDir,
      env,
      cliPath,
      command: (task) => scheduledCommand({ env: world.env, paths: world.paths, cliPath, nodePath: NODE_PATH }, task),
      calls: () =>
        existsSync(join(fakeDir, "calls.jsonl"))
          ? readFileSync(join(fakeDir, "calls.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Call)
          : [],
      resetCalls: () => rmSync(join(fakeDir, "calls.jsonl"), { force: true }),
      crontab: () => (existsSync(join(fakeDir, "crontab")) ? readFileSync(join(fakeDir, "crontab"), "utf8") : null),
      systemd: () => json("systemd.json"),
      launchd: () => json("launchd.json"),
      automation: (overrides = {}) =>
        createAutomation({
          env: world.env,
          paths: world.paths,
          platform: "linux",
          run: runCommand,
          cliPath,
          nodePath: NODE_PATH,
          now: () => NOW,
          uid: 501,
          ...overrides,
        }),
    };
    return world;
  };
}

/** The node the schedules start: this one, so status finds it wherever the tests run. */
const NODE_PATH = process.execPath;

/** A runner that notes, for each call of one tool, the task's schedule anchor at that moment. */
export function anchorWatcher(paths: StatePaths, task: AutomationTask): { run: CommandRunner; seen: string[] } {
  const seen: string[] = [];
  const run: CommandRunner = (file, args, request) => {
    seen.push(`${file} ${args.join(" ")} @ ${readScheduleAnchor(paths, task) ?? "no anchor"}`);
    return runCommand(file, args, request);
  };
  return { run, seen };
}

/** A fixed clock for everything that records a time. */
export const NOW = Date.UTC(2025, 4, 1, 12, 0, 0);
export const HOUR = 3_600_000;

/** A folder holding only `node` (and the given fakes), for PATHs on which other tools must not be found. */
export function isolatedBin(parent: string, fakes: string[]): string {
  const bin = join(parent, "isolated-bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, join(bin, "node"));
  for (const fake of fakes) symlinkSync(join(SCHEDULER_BIN, fake), join(bin, fake));
  symlinkSync(join(SCHEDULER_BIN, "fake-scheduler.mjs"), join(bin, "fake-scheduler.mjs"));
  return bin;
}

/** A scheduled command with plain, known values, for the exact-text tests. */
export function sampleCommand(task = "sync", extra: Partial<ScheduledCommand> = {}): ScheduledCommand {
  return {
    argv: ["/usr/bin/node", "/opt/ca/dist/bin.js", "__scheduled", task],
    env: [
      ["PATH", "/home/u/.local/bin:/usr/local/bin:/usr/bin:/bin"],
      ["CODEALMANAC_HOME", "/home/u/.codealmanac"],
    ],
    logPath: `/home/u/.codealmanac/logs/automation/${task}.log`,
    ...extra,
  };
}
