import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { cronLine, parseCrontab } from "../../src/automation/cron-table.js";
import { readScheduleAnchor } from "../../src/automation/run-records.js";
import { anchorWatcher, HOUR, NOW, schedulerWorlds } from "./support.js";

const world = schedulerWorlds();
const FOREIGN = "SHELL=/bin/bash\n# someone else's job\n*/5 * * * *   /usr/bin/true  # keep my spacing\n\n@daily other --flag 'quoted arg'";
const crontabCalls = (w: ReturnType<typeof world>) => w.calls().filter((c) => c.tool === "crontab").map((c) => c.argv.join(" "));

function installForeign(w: ReturnType<typeof world>, text: string): void {
  mkdirSync(w.fakeDir, { recursive: true });
  writeFileSync(join(w.fakeDir, "crontab"), text);
}

describe("cron", () => {
  test("enabling adds the task's line in a managed block and keeps every other byte", async () => {
    const w = world("cron");
    installForeign(w, FOREIGN);
    const result = await w.automation().reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    expect(result).toEqual({ task: "sync", enabled: true, intervalMs: 5 * HOUR, scheduler: "cron", location: "crontab", changed: true });
    const command = w.command("sync");
    expect(w.crontab()).toBe(
      `# >>> codealmanac >>> (managed by \`ca config\`; lines in this block are replaced)\n${cronLine(5 * HOUR, command)}\n# <<< codealmanac <<<\n${FOREIGN}`,
    );
    expect(crontabCalls(w)).toEqual(["-l", "-"]);
  });

  test("reconciling again with the same settings reads the crontab and writes nothing", async () => {
    const w = world("cron");
    installForeign(w, FOREIGN);
    await w.automation().reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    w.resetCalls();
    const again = await w.automation().reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    expect(again.changed).toBe(false);
    expect(crontabCalls(w)).toEqual(["-l"]);
  });

  test("disabling every task gives back the original crontab byte for byte", async () => {
    const w = world("cron");
    installForeign(w, FOREIGN);
    const automation = w.automation();
    await automation.reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    await automation.reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    expect(parseCrontab(w.crontab()!).lines.map((l) => l.task)).toEqual(["sync", "garden"]);
    await automation.reconcile("sync", { enabled: false, everyMs: 5 * HOUR });
    expect(parseCrontab(w.crontab()!).lines.map((l) => l.task)).toEqual(["garden"]);
    const removed = await automation.removeAll();
    expect(removed.map((r) => [r.task, r.scheduler, r.changed])).toEqual([["garden", "cron", true]]);
    expect(w.crontab()).toBe(FOREIGN);
  });

  test("with no crontab before, removing the last line removes the crontab (crontab -r)", async () => {
    const w = world("cron");
    await w.automation().reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    w.resetCalls();
    await w.automation().reconcile("garden", { enabled: false, everyMs: 24 * HOUR });
    expect(crontabCalls(w)).toEqual(["-l", "-r"]);
    expect(w.crontab()).toBeNull();
  });

  test("a new line or interval waits one interval before its first run; a new PATH does not", async () => {
    const w = world("cron");
    let now = NOW;
    const automation = w.automation({ now: () => now });
    await automation.reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW);
    now += HOUR;
    await w.automation({ now: () => now, env: { ...w.env, PATH: `/new/bin:${w.env.PATH}` } }).reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW);
    await automation.reconcile("sync", { enabled: true, everyMs: 2 * HOUR });
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW + HOUR);
    await automation.reconcile("sync", { enabled: false, everyMs: 2 * HOUR });
    expect(readScheduleAnchor(w.paths, "sync")).toBeNull();
  });

  test("the anchor is written before the line is, so cron never wakes the task without it", async () => {
    const w = world("cron");
    const watcher = anchorWatcher(w.paths, "garden");
    await w.automation({ run: watcher.run }).reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    expect(watcher.seen).toEqual(["crontab -l @ no anchor", `crontab - @ ${NOW}`]);
  });

  test("status reads the interval back from the line", async () => {
    const w = world("cron");
    await w.automation().reconcile("garden", { enabled: true, everyMs: 12 * HOUR });
    const statuses = await w.automation().status(["garden", "sync"]);
    expect(statuses.map((s) => [s.task, s.scheduler, s.installed, s.enabled, s.intervalMs, s.location])).toEqual([
      ["garden", "cron", true, true, 12 * HOUR, "crontab"],
      ["sync", "cron", false, false, null, "crontab"],
    ]);
  });

  test("a crontab that cannot be read is a note in status and an error when reconciling", async () => {
    const w = world("cron", { FAKE_SCHEDULER_FAIL: "crontab:-l" });
    const [sync] = await w.automation().status(["sync"]);
    expect(sync).toMatchObject({ installed: false, scheduler: "cron", notes: ["crontab -l failed: crontab -l: simulated failure"] });
    await expect(w.automation().reconcile("sync", { enabled: true, everyMs: HOUR })).rejects.toThrow("crontab -l failed: crontab -l: simulated failure");
  });
});
