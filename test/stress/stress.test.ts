import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../support/cli.js";

describe("queue stress (CI size)", () => {
  test("5 producers, 50 runs, random SIGKILLs: every run ends, none twice, first in first out", () => {
    const result = spawnSync(process.execPath, [join(ROOT, "test/stress/run-stress.mjs"), "--producers", "5", "--runs", "50"], {
      encoding: "utf8",
      timeout: 240_000,
    });
    if (result.status !== 0) throw new Error(`stress failed:\n${result.stdout}\n${result.stderr}`);
    const summary = JSON.parse(result.stdout.trim().split("\n").pop()!) as { ok: boolean; runs: number };
    expect(summary).toMatchObject({ ok: true, runs: 50 });
  }, 300_000);
});
