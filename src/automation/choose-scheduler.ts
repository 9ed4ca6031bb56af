/**
 * Which scheduler serves this machine: launchd on macOS; on Linux systemd user timers when
 * a user service manager answers, else the user crontab; nothing elsewhere.
 * `CODEALMANAC_SCHEDULER=systemd|cron|launchd` forces one (for tests, and for a machine
 * whose detection guesses wrong); `none` turns scheduling off, as on an unsupported system.
 */
import { ProductError } from "../core/errors.js";
import { cronAvailable, cronScheduler } from "./cron.js";
import { launchdScheduler } from "./launchd.js";
import type { SchedulerKind } from "./model.js";
import type { SchedulerAdapter, SchedulerContext } from "./scheduler.js";
import { systemdReachable, systemdScheduler } from "./systemd.js";

const KINDS: readonly SchedulerKind[] = ["systemd", "cron", "launchd"];

export type SchedulerChoice = { adapter: SchedulerAdapter } | { problem: ProductError };

export async function chooseScheduler(ctx: SchedulerContext, platform: NodeJS.Platform): Promise<SchedulerChoice> {
  const forced = ctx.env.CODEALMANAC_SCHEDULER?.trim();
  if (forced === "none") return { problem: unavailable("scheduled automation is turned off here (CODEALMANAC_SCHEDULER=none)") };
  if (forced) {
    if (!(KINDS as readonly string[]).includes(forced)) {
      return { problem: unavailable(`CODEALMANAC_SCHEDULER must be one of ${KINDS.join(", ")} or none, not "${forced}"`) };
    }
    return { adapter: schedulerOf(forced as SchedulerKind, ctx) };
  }
  if (platform === "darwin") return { adapter: launchdScheduler(ctx) };
  if (platform !== "linux") {
    return {
      problem: unavailable(
        `scheduled automation is not supported on ${platform}; run \`ca sync\` from your own scheduler, or garden from CI with \`ca automation ci --provider github\``,
      ),
    };
  }
  if (await systemdReachable(ctx)) return { adapter: systemdScheduler(ctx) };
  if (cronAvailable(ctx.env)) return { adapter: cronScheduler(ctx) };
  return {
    problem: unavailable(
      "scheduled automation needs systemd user timers (`systemctl --user`) or cron (`crontab`), and neither is available here; run `ca sync` from your own scheduler, or garden from CI with `ca automation ci --provider github`",
    ),
  };
}

/**
 * Every scheduler that may hold one of our schedules on this machine, for removing them
 * all: on Linux both kinds (detection may have changed since they were installed), and
 * systemd's files even when its manager does not answer.
 */
export async function installedSchedulers(ctx: SchedulerContext, platform: NodeJS.Platform): Promise<SchedulerAdapter[]> {
  const forced = ctx.env.CODEALMANAC_SCHEDULER?.trim();
  if (forced) return (KINDS as readonly string[]).includes(forced) ? [schedulerOf(forced as SchedulerKind, ctx)] : [];
  if (platform === "darwin") return [launchdScheduler(ctx)];
  if (platform !== "linux") return [];
  const schedulers = [systemdScheduler(ctx, await systemdReachable(ctx))];
  if (cronAvailable(ctx.env)) schedulers.push(cronScheduler(ctx));
  return schedulers;
}

function schedulerOf(kind: SchedulerKind, ctx: SchedulerContext): SchedulerAdapter {
  if (kind === "systemd") return systemdScheduler(ctx);
  if (kind === "cron") return cronScheduler(ctx);
  return launchdScheduler(ctx);
}

function unavailable(message: string): ProductError {
  return new ProductError("execution_failed", message);
}
