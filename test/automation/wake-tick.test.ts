import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { parseCrontab } from "../../src/automation/cron-table.js";
import { readProgramArguments } from "../../src/automation/launchd-plist.js";
import type { SchedulerKind } from "../../src/automation/model.js";
import { readScheduleAnchor, readTaskRun, startTaskRun } from "../../src/automation/run-records.js";
import { performScheduledRun } from "../../src/automation/scheduled.js";
import { readExecStart } from "../../src/automation/systemd-units.js";
import { argvEvery, intervalChanged, wakeArgv } from "../../src/automation/wake-tick.js";
import { HOUR, NOW, sampleCommand, schedulerWorlds, type SchedulerWorld } from "./support.js";

const world = schedulerWorlds();
const MINUTE = 60_000;
const GARDEN = { enabled: true, everyMs: 24 * HOUR };

describe("the wake tick's command line", () => {
  test("carries the interval as --every and reads it back", () => {
    const argv = wakeArgv(sampleCommand("garden"), 90 * MINUTE);
    expect(argv).toEqual(["/usr/bin/node", "/opt/ca/dist/bin.js", "__scheduled", "garden", "--every", "90m"]);
    expect(argvEvery(argv)).toBe(90 * MINUTE);
    expect(argvEvery(["node", "bin.js", "__scheduled", "garden"])).toBeNull();
    expect(argvEvery(["node", "bin.js", "__scheduled", "garden", "--every"])).toBeNull();
    expect(argvEvery(null)).toBeNull();
  });

  test("an interval is new when none is installed or it differs as --every writes it", () => {
    expect(intervalChanged(null, 5 * HOUR)).toBe(true);
    expect(intervalChanged(5 * HOUR, 5 * HOUR)).toBe(false);
    expect(intervalChanged(2 * HOUR, 5 * HOUR)).toBe(true);
    expect(intervalChanged(90_000, 90_400)).toBe(false);
  });
});

/** What the scheduler was given for the garden: the program it starts and how often it wakes it. */
function installedGarden(w: SchedulerWorld, kind: SchedulerKind, location: string): { argv: string[]; tickMs: number } {
  if (kind === "cron") {
    const [line] = parseCrontab(w.crontab()!).lines;
    return { argv: line!.argv, tickMs: Number(/^\*\/(\d+) /.exec(line!.text)![1]) * MINUTE };
  }
  const text = readFileSync(location, "utf8");
  if (kind === "launchd") {
    return { argv: readProgramArguments(text)!, tickMs: Number(/<key>StartInterval<\/key>\s*<integer>(\d+)<\/integer>/.exec(text)![1]) * 1000 };
  }
  const boot = /^OnBootSec=(\d+)s$/m.exec(text)![1];
  expect(/^OnUnitActiveSec=(\d+)s$/m.exec(text)![1]).toBe(boot);
  return { argv: readExecStart(readFileSync(location.replace(/\.timer$/, ".service"), "utf8"))!, tickMs: Number(boot) * 1000 };
}

describe.each<SchedulerKind>(["systemd", "launchd", "cron"])("a machine restarted every day, with %s", (kind) => {
  test("still gardens once a day: each restart of the tick leaves the recorded last start to decide", async () => {
    const w = world(kind);
    const installed = await w.automation().reconcile("garden", GARDEN);
    const { argv, tickMs: tick } = installedGarden(w, kind, installed.location);
    expect(argv.slice(2)).toEqual(["__scheduled", "garden", "--every", "24h"]);
    expect(tick).toBe(15 * MINUTE);
    expect((await w.automation().status(["garden"]))[0]!.intervalMs).toBe(24 * HOUR);
    expect(readScheduleAnchor(w.paths, "garden")).toBe(NOW);
    const everyMs = argvEvery(argv);

    // Each day the machine boots at 08:00 and is shut down at 18:00, far less than the
    // interval; every boot starts the tick again, and it fires a tick later, then every tick.
    const runs: number[] = [];
    for (let day = 1; day <= 3; day++) {
      const boot = NOW - 4 * HOUR + day * 24 * HOUR;
      for (let at = boot + tick; at <= boot + 10 * HOUR; at += tick) {
        const run = async () => {
          runs.push(at);
          return 0;
        };
        await performScheduledRun({ paths: w.paths, now: () => at, task: "garden", everyMs, run });
      }
    }
    expect(runs).toEqual([NOW + 24 * HOUR, NOW + 48 * HOUR, NOW + 72 * HOUR]);
  });
});

describe("a due task after a restart", () => {
  test("runs at the first tick however recently the timer began; one not yet due is skipped", async () => {
    const w = world("systemd");
    const installed = await w.automation().reconcile("garden", GARDEN);
    const everyMs = argvEvery(installedGarden(w, "systemd", installed.location).argv);
    const bootedAt = NOW + 30 * HOUR;
    const firstTick = bootedAt + 15 * MINUTE;
    startTaskRun(w.paths, "garden", bootedAt - 25 * HOUR);
    const due = await performScheduledRun({ paths: w.paths, now: () => firstTick, task: "garden", everyMs, run: async () => 0 });
    expect(due).toEqual({ skipped: false, exitCode: 0 });
    expect(readTaskRun(w.paths, "garden")).toEqual({ startedAt: firstTick, finishedAt: firstTick, exitCode: 0 });

    const soon = await performScheduledRun({ paths: w.paths, now: () => firstTick + 15 * MINUTE, task: "garden", everyMs, run: async () => 0 });
    expect(soon).toEqual({ skipped: true, exitCode: 0 });
  });
});
