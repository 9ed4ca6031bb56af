import { describe, expect, test } from "vitest";
import { HOUR, isolatedBin, schedulerWorlds } from "./support.js";

const world = schedulerWorlds();
const SETTINGS = { enabled: true, everyMs: HOUR };

describe("choosing the scheduler", () => {
  test("on Linux, systemd user timers when systemctl --user answers", async () => {
    const w = world(null);
    w.env.PATH = isolatedBin(w.dir, ["systemctl", "crontab"]);
    expect((await w.automation().reconcile("sync", SETTINGS)).scheduler).toBe("systemd");
  });

  test("on Linux without a user bus, the user crontab", async () => {
    const w = world(null, { FAKE_SYSTEMCTL_NO_BUS: "1" });
    w.env.PATH = isolatedBin(w.dir, ["systemctl", "crontab"]);
    expect((await w.automation().reconcile("sync", SETTINGS)).scheduler).toBe("cron");
    expect(w.calls().map((c) => `${c.tool} ${c.argv.join(" ")}`).slice(0, 2)).toEqual(["systemctl --user show-environment", "crontab -l"]);
  });

  test("on Linux with neither, reconcile refuses with a way forward and status says so", async () => {
    const w = world(null, { FAKE_SYSTEMCTL_NO_BUS: "1" });
    w.env.PATH = isolatedBin(w.dir, ["systemctl"]);
    const message =
      "scheduled automation needs systemd user timers (`systemctl --user`) or cron (`crontab`), and neither is available here; run `ca sync` from your own scheduler, or garden from CI with `ca automation ci --provider github`";
    await expect(w.automation().reconcile("sync", SETTINGS)).rejects.toMatchObject({ name: "ProductError", code: "execution_failed", message });
    const [sync] = await w.automation().status(["sync"]);
    expect(sync).toEqual({ task: "sync", scheduler: null, installed: false, enabled: false, intervalMs: null, location: null, lastRun: null, notes: [message] });
    expect(await w.automation().removeAll()).toEqual([]);
  });

  test("on other systems, a clear unsupported message", async () => {
    const w = world(null);
    const automation = w.automation({ platform: "win32" });
    await expect(automation.reconcile("garden", SETTINGS)).rejects.toThrow(
      "scheduled automation is not supported on win32; run `ca sync` from your own scheduler, or garden from CI with `ca automation ci --provider github`",
    );
    expect((await automation.status())[0]).toMatchObject({ installed: false, scheduler: null });
    expect(await automation.removeAll()).toEqual([]);
  });

  test("CODEALMANAC_SCHEDULER forces a scheduler, turns scheduling off, or is refused when unknown", async () => {
    const w = world("cron");
    expect((await w.automation({ platform: "darwin" }).reconcile("sync", SETTINGS)).scheduler).toBe("cron");
    w.env.CODEALMANAC_SCHEDULER = "none";
    await expect(w.automation().reconcile("sync", SETTINGS)).rejects.toThrow("scheduled automation is turned off here (CODEALMANAC_SCHEDULER=none)");
    w.env.CODEALMANAC_SCHEDULER = "at";
    await expect(w.automation().reconcile("sync", SETTINGS)).rejects.toThrow('CODEALMANAC_SCHEDULER must be one of systemd, cron, launchd or none, not "at"');
  });

  test("removeAll on Linux clears both kinds, and systemd's files even without a user bus", async () => {
    const w = world(null);
    w.env.PATH = isolatedBin(w.dir, ["systemctl", "crontab"]);
    await w.automation().reconcile("sync", SETTINGS);
    w.env.CODEALMANAC_SCHEDULER = "cron";
    await w.automation().reconcile("garden", SETTINGS);
    delete w.env.CODEALMANAC_SCHEDULER;
    w.env.FAKE_SYSTEMCTL_NO_BUS = "1";
    const removed = await w.automation().removeAll();
    expect(removed.map((r) => `${r.scheduler}:${r.task}`)).toEqual(["systemd:sync", "cron:garden"]);
    expect(removed[0]!.intervalMs).toBe(HOUR);
    expect(w.crontab()).toBeNull();
    const statuses = await w.automation().status();
    expect(statuses.map((s) => [s.scheduler, s.installed])).toEqual([
      ["cron", false],
      ["cron", false],
    ]);
  });
});
