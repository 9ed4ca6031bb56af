import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { launchAgentPlist } from "../../src/automation/launchd-plist.js";
import { scheduledCommand } from "../../src/automation/scheduled-command.js";
import { HOUR, schedulerWorlds } from "./support.js";
import { ROOT } from "../support/cli.js";

const world = schedulerWorlds();
const launchctlCalls = (w: ReturnType<typeof world>) => w.calls().filter((c) => c.tool === "launchctl").map((c) => c.argv.join(" "));

describe("launchd", () => {
  test("enabling writes the plist, boots out any old agent and bootstraps it in gui/<uid>", async () => {
    const w = world(null);
    const automation = w.automation({ platform: "darwin" });
    const result = await automation.reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    const plist = join(w.home, "Library", "LaunchAgents", "com.codealmanac.sync.plist");
    expect(result).toEqual({ task: "sync", enabled: true, intervalMs: 5 * HOUR, scheduler: "launchd", location: plist, changed: true });
    const command = scheduledCommand({ env: w.env, paths: w.paths, cliPath: join(ROOT, "dist", "bin.js"), nodePath: "/usr/bin/node" }, "sync");
    expect(readFileSync(plist, "utf8")).toBe(launchAgentPlist("sync", 5 * HOUR, command));
    expect(launchctlCalls(w)).toEqual(["bootout gui/501/com.codealmanac.sync", `bootstrap gui/501 ${plist}`]);
    expect(w.launchd()["com.codealmanac.sync"]).toMatchObject({ domain: "gui/501", loads: 1 });
  });

  test("the same settings again only ask whether the agent is loaded", async () => {
    const w = world(null);
    await w.automation({ platform: "darwin" }).reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    w.resetCalls();
    const again = await w.automation({ platform: "darwin" }).reconcile("sync", { enabled: true, everyMs: 5 * HOUR });
    expect(again.changed).toBe(false);
    expect(launchctlCalls(w)).toEqual(["print gui/501/com.codealmanac.sync"]);
    await w.automation({ platform: "darwin" }).reconcile("sync", { enabled: true, everyMs: HOUR });
    expect(w.launchd()["com.codealmanac.sync"]!.loads).toBe(2);
  });

  test("disabling boots the agent out and deletes the plist; a second time changes nothing", async () => {
    const w = world("launchd");
    const automation = w.automation();
    await automation.reconcile("garden", { enabled: true, everyMs: 24 * HOUR });
    const result = await automation.reconcile("garden", { enabled: false, everyMs: 24 * HOUR });
    expect(result.changed).toBe(true);
    expect(existsSync(join(w.home, "Library", "LaunchAgents", "com.codealmanac.garden.plist"))).toBe(false);
    expect(w.launchd()).toEqual({});
    expect((await automation.reconcile("garden", { enabled: false, everyMs: 24 * HOUR })).changed).toBe(false);
  });

  test("status reads the interval from the plist and whether the agent is loaded", async () => {
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
