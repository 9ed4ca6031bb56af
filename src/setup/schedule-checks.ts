/**
 * Doctor's `schedule.<task>`: what the scheduler holds against what config.toml asks for.
 * The fix never sends the person back to `ca setup` once setup has run (it saved
 * config.toml): a schedule setup could not install is installed by `codealmanac config
 * apply` once the scheduler works, the same way back `config set` and `setup` print.
 */
import type { AutomationTask, ScheduleStatus } from "../automation/model.js";
import type { Config } from "../config/config.js";
import { formatDuration } from "../config/duration.js";
import { SCHEDULE_APPLY } from "../config/schedules.js";
import type { Check } from "./model.js";

export interface ScheduleContext {
  /** Null when config.toml is invalid (its own check says so). */
  config: Config | null;
  /** Whether config.toml exists: without it, setup never ran here. */
  configExists: boolean;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
}

const APPLY = "`codealmanac config apply`";

export function scheduleCheck(status: ScheduleStatus, ctx: ScheduleContext): Check {
  const key = `schedule.${status.task}`;
  const notes = status.notes.length > 0 ? ` (${status.notes.join("; ")})` : "";
  if (!status.installed) return notScheduled(status, ctx);
  const every = status.intervalMs !== null ? `every ${formatDuration(status.intervalMs)}` : "interval unknown";
  const where = `${status.scheduler ?? "scheduler"}${status.location ? `: ${status.location}` : ""}`;
  if (!status.enabled) return { key, status: "warn", message: `installed but not active (${where})${notes}`, fix: `${APPLY} activates it again` };
  const last = status.lastRun;
  if (last && last.exitCode !== null && last.exitCode !== 0) {
    const message = `${every} (${where}); the last run failed with exit ${last.exitCode}${notes}`;
    return { key, status: "warn", message, fix: "`ca automation status` shows details" };
  }
  return { key, status: notes ? "warn" : "ok", message: `${every} (${where})${notes}` };
}

function notScheduled(status: ScheduleStatus, ctx: ScheduleContext): Check {
  const { task } = status;
  const key = `schedule.${task}`;
  const byHand = `meanwhile run \`ca ${task}\` by hand`;
  if (status.scheduler === null) {
    const problem = status.notes.join("; ") || "no scheduler is available";
    return { key, status: "warn", message: `not scheduled: ${problem}`, fix: noSchedulerFix(task, ctx) };
  }
  const notes = status.notes.length > 0 ? `: ${status.notes.join("; ")}` : "";
  if (ctx.config && !ctx.config.automation[task].enabled) {
    return { key, status: "ok", message: `off (automation.${task}.enabled = false in config.toml)${notes}` };
  }
  if (!ctx.configExists) return { key, status: "warn", message: `not scheduled${notes}`, fix: `\`ca setup\` schedules it; or run \`ca ${task}\` by hand` };
  // config.toml asks for it, so setup or `config set` already tried: only the scheduler is left to fix.
  if (notes) return { key, status: "warn", message: `not scheduled, though config.toml enables it${notes}`, fix: `${SCHEDULE_APPLY}; ${byHand}` };
  return { key, status: "warn", message: "not scheduled, though config.toml enables it", fix: `${APPLY} installs it` };
}

/** What is missing when no scheduler could be chosen, then the one way back. */
function noSchedulerFix(task: AutomationTask, ctx: ScheduleContext): string {
  const forced = ctx.env.CODEALMANAC_SCHEDULER?.trim();
  const then = `${SCHEDULE_APPLY}; meanwhile run \`ca ${task}\` by hand`;
  if (forced === "none") return `unset CODEALMANAC_SCHEDULER (none turns scheduling off); ${then}`;
  if (forced) return `set CODEALMANAC_SCHEDULER to systemd, cron or launchd, or unset it; ${then}`;
  if (ctx.platform === "linux") {
    return `start a systemd user session (\`systemctl --user status\` must answer; on a server, \`loginctl enable-linger $USER\`) or install cron (\`crontab\`); ${then}`;
  }
  return `run \`ca ${task}\` from this system's own scheduler, or garden from CI with \`ca automation ci --provider github\``;
}
