import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  anchorSchedule,
  finishTaskRun,
  isTaskDue,
  readTaskRun,
  startTaskRun,
  taskRunPath,
} from "../../src/automation/run-records.js";
import { statePaths, type StatePaths } from "../../src/core/paths.js";
import { HOUR, NOW } from "./support.js";

let paths: StatePaths;
beforeEach(() => {
  paths = statePaths({ CODEALMANAC_HOME: mkdtempSync(join(tmpdir(), "ca-run-records-")) });
});
afterEach(() => rmSync(paths.root, { recursive: true, force: true }));

describe("task run records", () => {
  test("a start and a finish are written to <state>/automation/<task>.json, and nothing else is left there", () => {
    expect(readTaskRun(paths, "sync")).toBeNull();
    startTaskRun(paths, "sync", NOW);
    expect(readTaskRun(paths, "sync")).toEqual({ startedAt: NOW, finishedAt: null, exitCode: null });
    finishTaskRun(paths, "sync", 3, NOW + 5000);
    expect(readTaskRun(paths, "sync")).toEqual({ startedAt: NOW, finishedAt: NOW + 5000, exitCode: 3 });
    expect(JSON.parse(readFileSync(taskRunPath(paths, "sync"), "utf8"))).toEqual({ started_at: NOW, finished_at: NOW + 5000, exit_code: 3 });
    expect(readdirSync(join(paths.root, "automation"))).toEqual(["sync.json"]);
    expect(readTaskRun(paths, "garden")).toBeNull();
  });

  test("an unreadable record reads as no run", () => {
    startTaskRun(paths, "garden", NOW);
    writeFileSync(taskRunPath(paths, "garden"), "{not json");
    expect(readTaskRun(paths, "garden")).toBeNull();
    writeFileSync(taskRunPath(paths, "garden"), JSON.stringify({ started_at: "yesterday" }));
    expect(readTaskRun(paths, "garden")).toBeNull();
  });

  test("a task is due once its last start is an interval ago, less the tolerance", () => {
    expect(isTaskDue(paths, "sync", 5 * HOUR, NOW)).toBe(true);
    startTaskRun(paths, "sync", NOW);
    expect(isTaskDue(paths, "sync", 5 * HOUR, NOW + 5 * HOUR - 1)).toBe(false);
    expect(isTaskDue(paths, "sync", 5 * HOUR, NOW + 5 * HOUR)).toBe(true);
    expect(isTaskDue(paths, "sync", 5 * HOUR, NOW + 5 * HOUR - 60_000, 60_000)).toBe(true);
    expect(isTaskDue(paths, "sync", 5 * HOUR, NOW + 5 * HOUR - 60_001, 60_000)).toBe(false);
  });

  test("a schedule installed after the last run postpones the next one by a whole interval", () => {
    anchorSchedule(paths, "garden", NOW);
    expect(isTaskDue(paths, "garden", HOUR, NOW + HOUR - 1)).toBe(false);
    expect(isTaskDue(paths, "garden", HOUR, NOW + HOUR)).toBe(true);
    startTaskRun(paths, "garden", NOW - 10 * HOUR);
    expect(isTaskDue(paths, "garden", HOUR, NOW + HOUR - 1)).toBe(false);
  });
});

describe("the garden's decisions in its run record", () => {
  test("are kept beside the exit code, one entry per wiki, and read back", () => {
    startTaskRun(paths, "garden", NOW);
    const gardens = [
      { repository: "app", mode: "stale" as const, runId: "run_1", stalePages: ["arch/queue"] },
      { repository: "lib", mode: "general" as const, runId: "run_2" },
      { repository: "old", mode: "skipped" as const, reason: "no change since the last garden" },
      { repository: "bad", mode: "skipped" as const, reason: "could not queue: no agent", failed: true as const },
    ];
    finishTaskRun(paths, "garden", 1, NOW + 1000, gardens);
    expect(readTaskRun(paths, "garden")).toEqual({ startedAt: NOW, finishedAt: NOW + 1000, exitCode: 1, gardens });
    expect(JSON.parse(readFileSync(taskRunPath(paths, "garden"), "utf8")).gardens).toEqual([
      { repository: "app", mode: "stale", run_id: "run_1", stale_pages: ["arch/queue"] },
      { repository: "lib", mode: "general", run_id: "run_2" },
      { repository: "old", mode: "skipped", reason: "no change since the last garden" },
      { repository: "bad", mode: "skipped", reason: "could not queue: no agent", failed: true },
    ]);
    // The next start forgets them: a running task has decided nothing yet.
    startTaskRun(paths, "garden", NOW + 5000);
    expect(readTaskRun(paths, "garden")).toEqual({ startedAt: NOW + 5000, finishedAt: null, exitCode: null });
  });
});
