/**
 * The cron adapter against the real `crontab` of the user running the tests. Whatever
 * crontab the user had is put back exactly, in a `finally`. Skipped (with the reason
 * printed) where there is no `crontab` command; on Debian: `apt-get install -y cron`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createAutomation } from "../../src/automation/service.js";
import { parseCrontab } from "../../src/automation/cron-table.js";
import { resolveExecutable } from "../../src/core/executables.js";
import { runCommand } from "../../src/core/exec.js";
import { statePaths } from "../../src/core/paths.js";
import { ROOT } from "../support/cli.js";
import { HOUR, NOW } from "./support.js";

const crontab = resolveExecutable("crontab", process.env);
if (!crontab) console.warn("real crontab test skipped: no `crontab` command on PATH (Debian: apt-get install -y cron)");

/** The user's crontab, or null when they have none. */
function readCrontab(): string | null {
  const result = spawnSync("crontab", ["-l"], { encoding: "utf8" });
  if (result.status === 0) return result.stdout;
  if (/no crontab for/i.test(result.stderr)) return null;
  throw new Error(`crontab -l failed: ${result.stderr}`);
}

function writeCrontab(text: string | null): void {
  const result = text === null ? spawnSync("crontab", ["-r"], { encoding: "utf8" }) : spawnSync("crontab", ["-"], { input: text, encoding: "utf8" });
  if (result.status !== 0 && !(text === null && /no crontab for/i.test(result.stderr))) throw new Error(`crontab failed: ${result.stderr}`);
}

describe.skipIf(!crontab)("the real user crontab", () => {
  test("installs a task's line, leaves it alone when unchanged, and removes it leaving the rest exactly as it was", async () => {
    const original = readCrontab();
    const dir = mkdtempSync(join(tmpdir(), "ca-real-crontab-"));
    try {
      const foreign = `${original ?? ""}# codealmanac test: someone else's line, kept byte for byte\n0 4 * * *   /bin/true   # spacing kept\n`;
      writeCrontab(foreign);
      const env = { ...process.env, HOME: join(dir, "home"), CODEALMANAC_HOME: join(dir, "state"), CODEALMANAC_SCHEDULER: "cron" };
      const automation = createAutomation({
        env,
        paths: statePaths(env),
        platform: "linux",
        run: runCommand,
        cliPath: join(ROOT, "dist", "bin.js"),
        nodePath: process.execPath,
        now: () => NOW,
      });

      expect((await automation.reconcile("sync", { enabled: true, everyMs: 5 * HOUR })).changed).toBe(true);
      const installed = readCrontab()!;
      expect(installed.endsWith(foreign)).toBe(true);
      expect(parseCrontab(installed).lines.map((l) => [l.task, l.everyMs, l.argv.slice(2, 4)])).toEqual([["sync", 5 * HOUR, ["__scheduled", "sync"]]]);
      expect((await automation.status(["sync"]))[0]).toMatchObject({ scheduler: "cron", installed: true, enabled: true, intervalMs: 5 * HOUR });

      expect((await automation.reconcile("sync", { enabled: true, everyMs: 5 * HOUR })).changed).toBe(false);
      expect(readCrontab()).toBe(installed);

      expect((await automation.reconcile("sync", { enabled: false, everyMs: 5 * HOUR })).changed).toBe(true);
      expect(readCrontab()).toBe(foreign);
    } finally {
      writeCrontab(original);
      rmSync(dir, { recursive: true, force: true });
    }
    expect(readCrontab()).toBe(original);
  });
});
