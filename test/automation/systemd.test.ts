import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { serviceUnit, timerUnit } from "../../src/automation/systemd-units.js";
import { finishTaskRun, readScheduleAnchor, startTaskRun } from "../../src/automation/run-records.js";
import { anchorWatcher, HOUR, NOW, schedulerWorlds } from "./support.js";

const world = schedulerWorlds();
const SYNC = { enabled: true, everyMs: 5 * HOUR };
const systemctlCalls = (w: ReturnType<typeof world>) => w.calls().filter((c) => c.tool === "systemctl").map((c) => c.argv.join(" "));

describe("systemd user timers", () => {
  test("enabling writes the service and timer, reloads, enables and starts the timer", async () => {
    const w = world("systemd");
    const result = await w.automation().reconcile("sync", SYNC);
    const dir = join(w.home, ".config", "systemd", "user");
    expect(result).toEqual({
      task: "sync",
      enabled: true,
      intervalMs: 5 * HOUR,
      scheduler: "systemd",
      location: join(dir, "codealmanac-sync.timer"),
      changed: true,
    });
    const command = w.command("sync");
    expect(readFileSync(join(dir, "codealmanac-sync.service"), "utf8")).toBe(serviceUnit("sync", 5 * HOUR, command));
    expect(readFileSync(join(dir, "codealmanac-sync.timer"), "utf8")).toBe(timerUnit("sync", 5 * HOUR));
    expect(systemctlCalls(w)).toEqual([
      "--user daemon-reload",
      "--user enable codealmanac-sync.timer",
      "--user restart codealmanac-sync.timer",
    ]);
    expect(w.systemd()["codealmanac-sync.timer"]).toMatchObject({ enabled: true, active: true });
    expect(existsSync(join(w.paths.logs, "automation"))).toBe(true);
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW);
  });

  test("reconciling again with the same settings changes nothing and does not restart the timer", async () => {
    const w = world("systemd");
    await w.automation().reconcile("sync", SYNC);
    const timer = join(w.home, ".config", "systemd", "user", "codealmanac-sync.timer");
    const before = readFileSync(timer, "utf8");
    w.resetCalls();
    const again = await w.automation().reconcile("sync", SYNC);
    expect(again.changed).toBe(false);
    expect(systemctlCalls(w)).toEqual(["--user show codealmanac-sync.timer --property=UnitFileState,ActiveState"]);
    expect(readFileSync(timer, "utf8")).toBe(before);
    expect(w.systemd()["codealmanac-sync.timer"]!.restarts).toBe(1);
  });

  test("a new tick rewrites the timer and restarts it; a timer someone stopped is started again", async () => {
    const w = world("systemd");
    await w.automation().reconcile("sync", SYNC);
    await w.automation().reconcile("sync", { enabled: true, everyMs: 10 * 60_000 });
    expect(w.systemd()["codealmanac-sync.timer"]!.restarts).toBe(2);
    expect(readFileSync(join(w.home, ".config", "systemd", "user", "codealmanac-sync.timer"), "utf8")).toContain("OnUnitActiveSec=600s\n");

    const state = JSON.parse(readFileSync(join(w.fakeDir, "systemd.json"), "utf8"));
    state["codealmanac-sync.timer"].active = false;
    writeFileSync(join(w.fakeDir, "systemd.json"), JSON.stringify(state));
    w.resetCalls();
    const restarted = await w.automation().reconcile("sync", { enabled: true, everyMs: 10 * 60_000 });
    expect(restarted.changed).toBe(true);
    expect(systemctlCalls(w)).toEqual([
      "--user show codealmanac-sync.timer --property=UnitFileState,ActiveState",
      "--user daemon-reload",
      "--user enable --now codealmanac-sync.timer",
    ]);
  });

  test("a new interval on the same tick rewrites only the service and re-anchors; a new PATH does not re-anchor", async () => {
    const w = world("systemd");
    const dir = join(w.home, ".config", "systemd", "user");
    let now = NOW;
    await w.automation({ now: () => now }).reconcile("sync", SYNC);
    const timer = readFileSync(join(dir, "codealmanac-sync.timer"), "utf8");
    now += HOUR;
    w.resetCalls();
    const result = await w.automation({ now: () => now }).reconcile("sync", { enabled: true, everyMs: 2 * HOUR });
    expect(result.changed).toBe(true);
    expect(readFileSync(join(dir, "codealmanac-sync.service"), "utf8")).toContain('"__scheduled" "sync" "--every" "2h"\n');
    expect(readFileSync(join(dir, "codealmanac-sync.timer"), "utf8")).toBe(timer);
    expect(systemctlCalls(w)).toEqual(["--user daemon-reload", "--user enable --now codealmanac-sync.timer"]);
    expect(w.systemd()["codealmanac-sync.timer"]!.restarts).toBe(1);
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW + HOUR);

    now += HOUR;
    const moved = await w.automation({ now: () => now, env: { ...w.env, PATH: `/new/bin:${w.env.PATH}` } }).reconcile("sync", { enabled: true, everyMs: 2 * HOUR });
    expect(moved.changed).toBe(true);
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW + HOUR);
  });

  test("the anchor is written before the timer starts, since a timer started after its boot tick wakes the service at once", async () => {
    const w = world("systemd");
    const watcher = anchorWatcher(w.paths, "sync");
    await w.automation({ run: watcher.run }).reconcile("sync", SYNC);
    expect(watcher.seen).toEqual([
      `systemctl --user daemon-reload @ ${NOW}`,
      `systemctl --user enable codealmanac-sync.timer @ ${NOW}`,
      `systemctl --user restart codealmanac-sync.timer @ ${NOW}`,
    ]);
  });

  test("disabling stops and disables the timer, deletes both units and reloads", async () => {
    const w = world("systemd");
    await w.automation().reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    w.resetCalls();
    const result = await w.automation().reconcile("garden", { enabled: false, everyMs: 24 * HOUR });
    expect(result).toMatchObject({ enabled: false, scheduler: "systemd", changed: true });
    const dir = join(w.home, ".config", "systemd", "user");
    expect(existsSync(join(dir, "codealmanac-garden.timer"))).toBe(false);
    expect(existsSync(join(dir, "codealmanac-garden.service"))).toBe(false);
    expect(systemctlCalls(w)).toEqual(["--user disable --now codealmanac-garden.timer", "--user daemon-reload"]);
    expect(w.systemd()["codealmanac-garden.timer"]).toMatchObject({ enabled: false, active: false });
    expect(readScheduleAnchor(w.paths, "garden")).toBeNull();
    const again = await w.automation().reconcile("garden", { enabled: false, everyMs: 24 * HOUR });
    expect(again.changed).toBe(false);
  });

  test("removing the last of our units removes the folders setup created for them, and only while they are empty", async () => {
    const w = world("systemd");
    const config = join(w.home, ".config");
    const dir = join(config, "systemd", "user");
    expect(existsSync(config)).toBe(false);
    await w.automation().reconcile("sync", SYNC);
    await w.automation().reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    await w.automation().reconcile("sync", { ...SYNC, enabled: false });
    expect(existsSync(join(dir, "codealmanac-garden.timer")), "another unit of ours is still there").toBe(true);
    const removed = await w.automation().removeAll();
    expect(removed.map((r) => r.task)).toEqual(["garden"]);
    expect(existsSync(config), "~/.config was created by setup and is empty again").toBe(false);
  });

  test("a unit folder that was there before setup, or that holds someone else's unit, stays", async () => {
    const before = world("systemd");
    const dir = join(before.home, ".config", "systemd", "user");
    mkdirSync(dir, { recursive: true });
    await before.automation().reconcile("sync", SYNC);
    await before.automation().removeAll();
    expect(existsSync(dir), "the folder was there before setup").toBe(true);

    const shared = world("systemd");
    const sharedDir = join(shared.home, ".config", "systemd", "user");
    await shared.automation().reconcile("sync", SYNC);
    writeFileSync(join(sharedDir, "backup.timer"), "[Timer]\n");
    await shared.automation().removeAll();
    expect(readFileSync(join(sharedDir, "backup.timer"), "utf8")).toBe("[Timer]\n");
    expect(existsSync(join(sharedDir, "codealmanac-sync.timer"))).toBe(false);
  });

  test("status reads back what is installed, the interval from the service's --every, and the last run", async () => {
    const w = world("systemd");
    await w.automation().reconcile("sync", SYNC);
    startTaskRun(w.paths, "sync", NOW - HOUR);
    finishTaskRun(w.paths, "sync", 0, NOW - HOUR + 60_000);
    const [sync, garden] = await w.automation().status();
    expect(sync).toEqual({
      task: "sync",
      scheduler: "systemd",
      installed: true,
      enabled: true,
      intervalMs: 5 * HOUR,
      location: join(w.home, ".config", "systemd", "user", "codealmanac-sync.timer"),
      lastRun: { startedAt: NOW - HOUR, finishedAt: NOW - HOUR + 60_000, exitCode: 0 },
      notes: [],
    });
    expect(garden).toMatchObject({ task: "garden", installed: false, enabled: false, intervalMs: null, lastRun: null, notes: [] });
  });

  test("status notes a timer that is installed but not running, and a program that is gone", async () => {
    const w = world("systemd");
    await w.automation({ nodePath: join(w.dir, "old-node", "node") }).reconcile("sync", SYNC);
    writeFileSync(join(w.fakeDir, "systemd.json"), "{}");
    const [sync] = await w.automation().status(["sync"]);
    expect(sync!.installed).toBe(true);
    expect(sync!.enabled).toBe(false);
    expect(sync!.notes).toEqual([
      "codealmanac-sync.timer is not enabled and not active",
      `${join(w.dir, "old-node", "node")} no longer exists; run \`ca config apply\` to reinstall the schedule`,
    ]);
  });

  test("a failing systemctl is a one-line product error naming the command", async () => {
    const w = world("systemd", { FAKE_SCHEDULER_FAIL: "systemctl:daemon-reload" });
    await expect(w.automation().reconcile("sync", SYNC)).rejects.toMatchObject({
      name: "ProductError",
      message: "systemctl --user daemon-reload failed: systemctl daemon-reload: simulated failure",
    });
  });
});
