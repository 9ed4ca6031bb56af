import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { launchAgentPlist } from "../../src/automation/launchd-plist.js";
import { readScheduleAnchor } from "../../src/automation/run-records.js";
import { anchorWatcher, HOUR, NOW, schedulerWorlds } from "./support.js";

const world = schedulerWorlds();
const launchctlCalls = (w: ReturnType<typeof world>) => w.calls().filter((c) => c.tool === "launchctl").map((c) => c.argv.join(" "));

describe("launchd", () => {
  test("enabling writes the plist, boots out any old agent and bootstraps it in gui/<uid>", async () => {
    const w = world(null);
    const automation = w.automation({ platform: "darwin" });
    const result = await automation.reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    const plist = join(w.home, "Library", "LaunchAgents", "com.codealmanac.sync.plist");
    expect(result).toEqual({ task: "sync", enabled: true, intervalMs: 5 * HOUR, scheduler: "launchd", location: plist, changed: true });
    const command = w.command("sync");
    expect(readFileSync(plist, "utf8")).toBe(launchAgentPlist("sync", 5 * HOUR, command));
    expect(launchctlCalls(w)).toEqual(["bootout gui/501/com.codealmanac.sync", `bootstrap gui/501 ${plist}`]);
    expect(w.launchd()["com.codealmanac.sync"]).toMatchObject({ domain: "gui/501", loads: 1 });
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW);
  });

  test("the same settings again only ask whether the agent is loaded; a new interval reloads it and re-anchors", async () => {
    const w = world(null);
    let now = NOW;
    const automation = w.automation({ platform: "darwin", now: () => now });
    await automation.reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    w.resetCalls();
    now += HOUR;
    const again = await automation.reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    expect(again.changed).toBe(false);
    expect(launchctlCalls(w)).toEqual(["print gui/501/com.codealmanac.sync"]);
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW);
    await automation.reconcile("sync", { enabled: true, everyMs: 2 * HOUR });
    expect(w.launchd()["com.codealmanac.sync"]!.loads).toBe(2);
    expect(readFileSync(join(w.home, "Library", "LaunchAgents", "com.codealmanac.sync.plist"), "utf8")).toContain(
      "    <string>--every</string>\n    <string>2h</string>\n  </array>\n  <key>StartInterval</key>\n  <integer>900</integer>\n",
    );
    expect(readScheduleAnchor(w.paths, "sync")).toBe(NOW + HOUR);
  });

  test("the anchor is written before the agent is loaded", async () => {
    const w = world("launchd");
    const watcher = anchorWatcher(w.paths, "garden");
    await w.automation({ run: watcher.run }).reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    expect(watcher.seen.at(-1)).toBe(`launchctl bootstrap gui/501 ${join(w.home, "Library", "LaunchAgents", "com.codealmanac.garden.plist")} @ ${NOW}`);
  });

  test("disabling boots the agent out and deletes the plist; a second time changes nothing", async () => {
    const w = world("launchd");
    const automation = w.automation();
    await automation.reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    const result = await automation.reconcile("garden", { enabled: false, everyMs: 24 * HOUR });
    expect(result.changed).toBe(true);
    expect(existsSync(join(w.home, "Library", "LaunchAgents", "com.codealmanac.garden.plist"))).toBe(false);
    expect(w.launchd()).toEqual({});
    expect(readScheduleAnchor(w.paths, "garden")).toBeNull();
    expect((await automation.reconcile("garden", { enabled: false, everyMs: 24 * HOUR })).changed).toBe(false);
  });

  test("status reads the interval from the plist's --every and whether the agent is loaded", async () => {
    const w = world("launchd");
    await w.automation().reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    const [garden, sync] = await w.automation().status(["garden", "sync"]);
    expect(garden).toMatchObject({ scheduler: "launchd", installed: true, enabled: true, intervalMs: 24 * HOUR, notes: [] });
    expect(sync).toMatchObject({ scheduler: "launchd", installed: false, enabled: false, intervalMs: null, notes: [] });
  });

  test("a failed bootstrap names the label and what launchctl said", async () => {
    const w = world("launchd", { FAKE_SCHEDULER_FAIL: "launchctl:bootstrap" });
    await expect(w.automation().reconcile("sync", { enabled: true, everyMs: HOUR })).rejects.toThrow(
      "launchctl bootstrap failed for com.codealmanac.sync: launchctl bootstrap: simulated failure",
    );
  });
});
