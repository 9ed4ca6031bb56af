import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../support/cli.js";

interface StressSummary {
  ok: boolean;
  runs: number;
  statuses: { done: number; failed: number; cancelled: number };
  kills: { worker: number; executor: number; total: number };
}

describe("queue stress (CI size)", () => {
  test("5 producers, 50 runs, random SIGKILLs: every run ends, none twice, never two at once, first in first out", () => {
    const result = spawnSync(process.execPath, [join(ROOT, "test/stress/run-stress.mjs"), "--producers", "5", "--runs", "50"], { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`stress failed:\n${result.stdout}\n${result.stderr}`);
    const summary = JSON.parse(result.stdout.trim().split("\n").pop()!) as StressSummary;
    console.log(
      `stress: ${summary.statuses.done} done, ${summary.statuses.failed} failed, ${summary.statuses.cancelled} cancelled; ` +
        `${summary.kills.total} kills (${summary.kills.worker} workers, ${summary.kills.executor} executors)`,
    );
    expect(summary).toMatchObject({ ok: true, runs: 50 });
    expect(summary.statuses.done + summary.statuses.failed + summary.statuses.cancelled).toBe(50);
    // Passing says something only if some runs succeeded and some processes died under them.
    expect(summary.statuses.done).toBeGreaterThan(0);
    expect(summary.kills.total).toBeGreaterThan(0);
  }, 900_000);
});
