import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { resolveExecutable } from "../../src/core/executables.js";
import { describe, expect, test } from "vitest";
import { quoteArgument, readExecStart, readTimerInterval, serviceUnit, systemdUnitDir, timerUnit } from "../../src/automation/systemd-units.js";
import { launchAgentPath, launchAgentPlist, readProgramArguments, readStartInterval } from "../../src/automation/launchd-plist.js";
import { HOUR, sampleCommand } from "./support.js";

describe("systemd units", () => {
  test("the service runs the command once, with its environment, appending to the task log", () => {
    expect(serviceUnit("sync", sampleCommand())).toBe(
      [
        "# Written by CodeAlmanac; change it with `ca config set automation.<task>.*`, not here.",
        "[Unit]",
        "Description=CodeAlmanac scheduled sync",
        "",
        "[Service]",
        "Type=oneshot",
        'ExecStart="/usr/bin/node" "/opt/ca/dist/bin.js" "__scheduled" "sync"',
        'Environment="PATH=/home/u/.local/bin:/usr/local/bin:/usr/bin:/bin"',
        'Environment="CODEALMANAC_HOME=/home/u/.codealmanac"',
        "StandardOutput=append:/home/u/.codealmanac/logs/automation/sync.log",
        "StandardError=append:/home/u/.codealmanac/logs/automation/sync.log",
        "KillMode=process",
        "",
      ].join("\n"),
    );
  });

  test("the timer first fires one interval after it starts, then one interval after each run", () => {
    expect(timerUnit("garden", 24 * HOUR)).toBe(
      [
        "# Written by CodeAlmanac; change it with `ca config set automation.<task>.*`, not here.",
        "[Unit]",
        "Description=Run CodeAlmanac garden every 24h",
        "",
        "[Timer]",
        "OnActiveSec=86400s",
        "OnUnitActiveSec=86400s",
        "Unit=codealmanac-garden.service",
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
      ].join("\n"),
    );
    expect(readTimerInterval(timerUnit("garden", 24 * HOUR))).toBe(24 * HOUR);
    expect(readTimerInterval(timerUnit("sync", 90 * 60_000))).toBe(90 * 60_000);
  });

  test("paths with spaces, quotes, backslashes, % and $ survive systemd's quoting", () => {
    const odd = '/tmp/my dir/50% "off"/$HOME\\x/bin.js';
    expect(quoteArgument(odd)).toBe('"/tmp/my dir/50%% \\"off\\"/$$HOME\\\\x/bin.js"');
    expect(quoteArgument("PATH=/a%b:$c", false)).toBe('"PATH=/a%%b:$c"');
    const command = sampleCommand("sync", { argv: ["/usr/bin/node", odd, "__scheduled", "sync"], logPath: "/s/50%/sync.log" });
    const unit = serviceUnit("sync", command);
    expect(readExecStart(unit)).toEqual(command.argv);
    expect(unit).toContain("StandardOutput=append:/s/50%%/sync.log\n");
  });

  test("units go under $XDG_CONFIG_HOME/systemd/user, else ~/.config/systemd/user", () => {
    expect(systemdUnitDir({ XDG_CONFIG_HOME: "/xdg" }, "/home/u")).toBe("/xdg/systemd/user");
    expect(systemdUnitDir({}, "/home/u")).toBe("/home/u/.config/systemd/user");
    expect(systemdUnitDir({ XDG_CONFIG_HOME: "relative" }, "/home/u")).toBe("/home/u/.config/systemd/user");
  });
});

describe("launchd agent", () => {
  test("the plist names the program, interval, environment and log, and does not run at load", () => {
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
        "  </array>",
        "  <key>StartInterval</key>",
        "  <integer>18000</integer>",
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
    expect(readProgramArguments(plist)).toEqual(argv);
    expect(readStartInterval(plist)).toBe(24 * HOUR);
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
      writeFileSync(join(dir, "codealmanac-sync.service"), serviceUnit("sync", command));
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
