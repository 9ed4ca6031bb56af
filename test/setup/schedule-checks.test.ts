import { describe, expect, test } from "vitest";
import type { ScheduleStatus } from "../../src/automation/model.js";
import { scheduleCheck, type ScheduleContext } from "../../src/setup/schedule-checks.js";

/** What the automation facade reports when it could choose no scheduler (see automation/choose-scheduler.ts). */
function unscheduled(note: string): ScheduleStatus {
  return { task: "sync", scheduler: null, installed: false, enabled: false, intervalMs: null, location: null, lastRun: null, notes: [note] };
}

const context = (platform: NodeJS.Platform): ScheduleContext => ({ config: null, configExists: true, platform, env: {} });

describe("doctor's schedule check without a scheduler", () => {
  test("on Linux the fix names what is missing (a systemd user session or cron), then `config apply`", () => {
    const check = scheduleCheck(unscheduled("scheduled automation needs systemd user timers (`systemctl --user`) or cron (`crontab`), and neither is available here"), context("linux"));
    expect(check.status).toBe("warn");
    expect(check.message).toMatch(/^not scheduled: scheduled automation needs systemd user timers/);
    expect(check.fix).toBe(
      "start a systemd user session (`systemctl --user status` must answer; on a server, `loginctl enable-linger $USER`) or install cron (`crontab`); " +
        "once the scheduler works, run `codealmanac config apply` to install the schedules; meanwhile run `ca sync` by hand",
    );
    expect(check.fix).not.toContain("ca setup");
  });

  test("where no scheduler is driven at all, the fix is the system's own scheduler or CI, never setup", () => {
    const check = scheduleCheck(unscheduled("scheduled automation is not supported on win32"), context("win32"));
    expect(check.fix).toBe("run `ca sync` from this system's own scheduler, or garden from CI with `ca automation ci --provider github`");
  });
});
