import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { resolveExecutable } from "../../src/core/executables.js";
import { describe, expect, test } from "vitest";
import { quoteArgument, readExecStart, serviceUnit, systemdUnitDir, timerUnit } from "../../src/automation/systemd-units.js";
import { launchAgentPath, launchAgentPlist, readProgramArguments } from "../../src/automation/launchd-plist.js";
import { argvEvery } from "../../src/automation/wake-tick.js";
import { HOUR, sampleCommand } from "./support.js";

describe("systemd units", () => {
  test("the service runs the command once with the task's interval, with its environment, appending to the task log", () => {
    expect(serviceUnit("sync", 5 * HOUR, sampleCommand())).toBe(
      [
        "# Written by CodeAlmanac; change it with `ca config set automation.<task>.*`, not here.",
        "[Unit]",
        "Description=CodeAlmanac scheduled sync",
        "",
        "[Service]",
        "Type=oneshot",
        'ExecStart="/usr/bin/node" "/opt/ca/dist/bin.js" "__scheduled" "sync" "--every" "5h"',
        'Environment="PATH=/home/u/.local/bin:/usr/local/bin:/usr/bin:/bin"',
        'Environment="CODEALMANAC_HOME=/home/u/.codealmanac"',
        "StandardOutput=append:/home/u/.codealmanac/logs/automation/sync.log",
        "StandardError=append:/home/u/.codealmanac/logs/automation/sync.log",
        "KillMode=process",
        "",
      ].join("\n"),
    );
  });

  test("the timer wakes the service a tick after boot, then a tick after each wake, whatever the interval", () => {
    expect(timerUnit("garden", 24 * HOUR)).toBe(
      [
        "# Written by CodeAlmanac; change it with `ca config set automation.<task>.*`, not here.",
        "[Unit]",
        "Description=Run CodeAlmanac garden when due, checking every 15m",
        "",
        "[Timer]",
        "OnBootSec=900s",
        "OnUnitActiveSec=900s",
        "Unit=codealmanac-garden.service",
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
      ].join("\n"),
    );
    expect(timerUnit("sync", 5 * HOUR)).toBe(timerUnit("sync", 24 * HOUR).replace(/garden/g, "sync"));
    expect(timerUnit("sync", 7 * 60_000)).toContain("\nOnBootSec=360s\nOnUnitActiveSec=360s\n");
    expect(timerUnit("sync", 30_000)).toContain("Description=Run CodeAlmanac sync when due, checking every 1m\n");
    expect(argvEvery(readExecStart(serviceUnit("garden", 24 * HOUR, sampleCommand("garden"))))).toBe(24 * HOUR);
    expect(argvEvery(readExecStart(serviceUnit("sync", 90 * 60_000, sampleCommand())))).toBe(90 * 60_000);
  });

  test("paths with spaces, quotes, backslashes, % and $ survive systemd's quoting", () => {
    const odd = '/tmp/my dir/50% "off"/$HOME\\x/bin.js';
    expect(quoteArgument(odd)).toBe('"/tmp/my dir/50%% \\"off\\"/$$HOME\\\\x/bin.js"');
    expect(quoteArgument("PATH=/a%b:$c", false)).toBe('"PATH=/a%%b:$c"');
    const command = sampleCommand("sync", { argv: ["/usr/bin/node", odd, "__scheduled", "sync"], logPath: "/s/50%/sync.log" });
    const unit = serviceUnit("sync", 5 * HOUR, command);
    expect(readExecStart(unit)).toEqual([...command.argv, "--every", "5h"]);
    expect(unit).toContain("StandardOutput=append:/s/50%%/sync.log\n");
  });

  test("units go under $XDG_CONFIG_HOME/systemd/user, else ~/.config/systemd/user", () => {
    expect(systemdUnitDir({ XDG_CONFIG_HOME: "/xdg" }, "/home/u")).toBe("/xdg/systemd/user");
    expect(systemdUnitDir({}, "/home/u")).toBe("/home/u/.config/systemd/user");
    expect(systemdUnitDir({ XDG_CONFIG_HOME: "relative" }, "/home/u")).toBe("/home/u/.config/systemd/user");
  });
});

describe("launchd agent", () => {
  test("the plist names the program with the interval, the wake tick, environment and log, and does not run at load", () => {
    expect(launchAgentPlist("sync", 5 * HOUR, sampleCommand())).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
        '<plist version="1.0">',
        "<dict>",
        "  <key>Label</key>",
        "  <string>com.codealmanac.sync</string>",
        "  <key>ProgramArguments</key>",
        "  <array>",
        "    <string>/usr/bin/node</string>",
        "    <string>/opt/ca/dist/bin.js</string>",
        "    <string>__scheduled</string>",
        "    <string>sync</string>",
        "    <string>--every</string>",
        "    <string>5h</string>",
        "  </array>",
        "  <key>StartInterval</key>",
        "  <integer>900</integer>",
        "  <key>EnvironmentVariables</key>",
        "  <dict>",
        "    <key>PATH</key>",
        "    <string>/home/u/.local/bin:/usr/local/bin:/usr/bin:/bin</string>",
        "    <key>CODEALMANAC_HOME</key>",
        "    <string>/home/u/.codealmanac</string>",
        "  </dict>",
        "  <key>StandardOutPath</key>",
        "  <string>/home/u/.codealmanac/logs/automation/sync.log</string>",
        "  <key>StandardErrorPath</key>",
        "  <string>/home/u/.codealmanac/logs/automation/sync.log</string>",
        "  <key>RunAtLoad</key>",
        "  <false/>",
        "  <key>AbandonProcessGroup</key>",
        "  <true/>",
        "</dict>",
        "</plist>",
        "",
      ].join("\n"),
    );
    expect(launchAgentPath("/Users/u", "garden")).toBe("/Users/u/Library/LaunchAgents/com.codealmanac.garden.plist");
  });

  test("values are XML-escaped and read back unchanged", () => {
    const argv = ["/usr/bin/node", "/Users/a&b/<x>/'q\"/bin.js", "__scheduled", "garden"];
    const plist = launchAgentPlist("garden", 24 * HOUR, sampleCommand("garden", { argv }));
    expect(plist).toContain("<string>/Users/a&amp;b/&lt;x&gt;/&apos;q&quot;/bin.js</string>");
    expect(readProgramArguments(plist)).toEqual([...argv, "--every", "24h"]);
    expect(argvEvery(readProgramArguments(plist))).toBe(24 * HOUR);
    expect(launchAgentPlist("garden", 7 * 60_000, sampleCommand("garden"))).toContain("<key>StartInterval</key>\n  <integer>360</integer>\n");
  });
});

const systemdAnalyze = resolveExecutable("systemd-analyze", process.env);
if (!systemdAnalyze) console.warn("systemd unit verification skipped: no `systemd-analyze` on PATH");

describe.skipIf(!systemdAnalyze)("systemd's own check of the units", () => {
  test("systemd-analyze verify accepts the service and timer, odd paths included, and finds the program", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-units-")));
    try {
      const script = join(dir, "50% $HOME", "my dir", "bin.js");
      mkdirSync(dirname(script), { recursive: true });
      writeFileSync(script, "");
      const command = sampleCommand("sync", {
        argv: [process.execPath, script, "__scheduled", "sync"],
        logPath: join(dir, "logs dir", "sync.log"),
      });
      writeFileSync(join(dir, "codealmanac-sync.service"), serviceUnit("sync", 5 * HOUR, command));
      writeFileSync(join(dir, "codealmanac-sync.timer"), timerUnit("sync", 5 * HOUR));
      // The system manager's checks: the user manager's need a user bus, which containers often lack.
      const result = spawnSync("systemd-analyze", ["verify", join(dir, "codealmanac-sync.timer"), join(dir, "codealmanac-sync.service")], { encoding: "utf8" });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
