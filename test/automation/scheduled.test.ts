import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { performScheduledRun } from "../../src/automation/scheduled.js";
import { readTaskRun, startTaskRun } from "../../src/automation/run-records.js";
import { TASK_LOG_LIMIT_BYTES, taskLogPath } from "../../src/automation/task-log.js";
import { statePaths, type StatePaths } from "../../src/core/paths.js";
import { HOUR, NOW } from "./support.js";

let paths: StatePaths;
beforeEach(() => {
  paths = statePaths({ CODEALMANAC_HOME: mkdtempSync(join(tmpdir(), "ca-scheduled-")) });
});
afterEach(() => rmSync(paths.root, { recursive: true, force: true }));

const log = (task: "sync" | "garden" = "sync") => readFileSync(taskLogPath(paths, task), "utf8");

describe("__scheduled bookkeeping", () => {
  test("a due task is recorded as started, run, and recorded with its exit code", async () => {
    let seen: unknown = "not run";
    const outcome = await performScheduledRun({
      paths,
      now: () => NOW,
      task: "sync",
      everyMs: null,
      run: async () => {
        seen = readTaskRun(paths, "sync");
        return 0;
      },
    });
    expect(outcome).toEqual({ skipped: false, exitCode: 0 });
    expect(seen).toEqual({ startedAt: NOW, finishedAt: null, exitCode: null });
    expect(readTaskRun(paths, "sync")).toEqual({ startedAt: NOW, finishedAt: NOW, exitCode: 0 });
    expect(log()).toBe("2025-05-01T12:00:00.000Z sync: started\n2025-05-01T12:00:00.000Z sync: succeeded\n");
  });

  test("--every skips, quietly and successfully, a task whose last start is too recent", async () => {
    startTaskRun(paths, "garden", NOW - 3 * HOUR - 5 * 60_000);
    let ran = false;
    const outcome = await performScheduledRun({
      paths,
      now: () => NOW,
      task: "garden",
      everyMs: 5 * HOUR,
      run: async () => {
        ran = true;
        return 0;
      },
    });
    expect(outcome).toEqual({ skipped: true, exitCode: 0 });
    expect(ran).toBe(false);
    expect(readTaskRun(paths, "garden")!.startedAt).toBe(NOW - 3 * HOUR - 5 * 60_000);
    expect(log("garden")).toBe("2025-05-01T12:00:00.000Z garden: skipped, not due (last started 3h05m ago; runs every 5h)\n");
  });

  test("--every runs the task half a cron tick early, so a 15-minute grid does not add a tick", async () => {
    startTaskRun(paths, "sync", NOW - 5 * HOUR + 7 * 60_000);
    const outcome = await performScheduledRun({ paths, now: () => NOW, task: "sync", everyMs: 5 * HOUR, run: async () => 0 });
    expect(outcome.skipped).toBe(false);
  });

  test("a failing task is recorded with its exit code, and one that throws as exit 1", async () => {
    const failed = await performScheduledRun({ paths, now: () => NOW, task: "sync", everyMs: null, run: async () => 4 });
    expect(failed).toEqual({ skipped: false, exitCode: 4 });
    expect(readTaskRun(paths, "sync")!.exitCode).toBe(4);
    await expect(
      performScheduledRun({
        paths,
        now: () => NOW + 1,
        task: "sync",
        everyMs: null,
        run: async () => {
          throw new Error("database is locked\nstack…");
        },
      }),
    ).rejects.toThrow("database is locked");
    expect(readTaskRun(paths, "sync")).toEqual({ startedAt: NOW + 1, finishedAt: NOW + 1, exitCode: 1 });
    expect(log().split("\n").slice(-3)).toEqual(["2025-05-01T12:00:00.001Z sync: error: database is locked", "2025-05-01T12:00:00.001Z sync: failed (exit 1)", ""]);
  });

  test("after a run, a log over 1 MiB becomes <log>.1 and the next run starts a fresh log", async () => {
    const file = taskLogPath(paths, "sync");
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, "x".repeat(TASK_LOG_LIMIT_BYTES));
    writeFileSync(`${file}.1`, "older");
    await performScheduledRun({ paths, now: () => NOW, task: "sync", everyMs: null, run: async () => 0 });
    expect(existsSync(file)).toBe(false);
    expect(statSync(`${file}.1`).size).toBeGreaterThan(TASK_LOG_LIMIT_BYTES);
    expect(readFileSync(`${file}.1`, "utf8").endsWith("sync: succeeded\n")).toBe(true);
    await performScheduledRun({ paths, now: () => NOW, task: "sync", everyMs: null, run: async () => 0 });
    expect(log()).toBe("2025-05-01T12:00:00.000Z sync: started\n2025-05-01T12:00:00.000Z sync: succeeded\n");
  });
});
