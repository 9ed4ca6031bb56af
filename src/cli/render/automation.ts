import { formatDuration } from "../../config/duration.js";
import type { GardenNote, ScheduleStatus, SchedulerKind, TaskRunRecord } from "../../automation/model.js";
import type { CliContext } from "../context.js";
import { humanDuration, isoTime } from "./format.js";

const SCHEDULER_LABEL: Record<SchedulerKind, string> = {
  systemd: "systemd user timer",
  cron: "cron (user crontab)",
  launchd: "launchd user agent",
};

export function statusJson(status: ScheduleStatus) {
  return {
    task: status.task,
    scheduler: status.scheduler,
    installed: status.installed,
    enabled: status.enabled,
    interval: status.intervalMs === null ? null : formatDuration(status.intervalMs),
    interval_ms: status.intervalMs,
    location: status.location,
    last_run: status.lastRun === null ? null : runJson(status.lastRun),
    notes: status.notes,
  };
}

function runJson(run: TaskRunRecord) {
  return {
    started_at: isoTime(run.startedAt),
    finished_at: isoTime(run.finishedAt),
    exit_code: run.exitCode,
    result: run.finishedAt === null ? "running" : run.exitCode === 0 ? "succeeded" : "failed",
    ...(run.gardens ? { gardens: run.gardens.map(gardenJson) } : {}),
  };
}

function gardenJson(note: GardenNote) {
  switch (note.mode) {
    case "stale":
      return { repository: note.repository, mode: note.mode, run_id: note.runId, stale_pages: note.stalePages };
    case "general":
      return { repository: note.repository, mode: note.mode, run_id: note.runId };
    case "skipped":
      return { repository: note.repository, mode: note.mode, reason: note.reason, ...(note.failed ? { failed: true } : {}) };
  }
}

/** One block per task, a blank line between blocks. */
export function renderStatuses(ctx: CliContext, statuses: readonly ScheduleStatus[], now: number): void {
  ctx.write(statuses.map((status) => statusBlock(ctx, status, now)).join("\n"));
}

function statusBlock(ctx: CliContext, status: ScheduleStatus, now: number): string {
  const state = !status.installed
    ? ctx.out.yellow("not installed")
    : status.enabled
      ? ctx.out.green("installed, enabled")
      : ctx.out.yellow("installed, not enabled");
  const lines = [`${ctx.out.bold(`${status.task} automation`)}: ${state}`];
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(10)} ${value}`);
  row("scheduler", status.scheduler === null ? "none available" : SCHEDULER_LABEL[status.scheduler]);
  if (status.installed && status.location !== null) row("where", status.location);
  if (status.intervalMs !== null) row("interval", formatDuration(status.intervalMs));
  row("last run", lastRun(ctx, status.lastRun, now));
  for (const note of status.lastRun?.gardens ?? []) row("garden", gardenRow(ctx, note));
  for (const note of status.notes) row("note", ctx.out.dim(note));
  return lines.join("\n") + "\n";
}

function lastRun(ctx: CliContext, run: TaskRunRecord | null, now: number): string {
  if (run === null) return "not run yet";
  const when = `${isoTime(run.startedAt)} (${humanDuration(now - run.startedAt)} ago)`;
  if (run.finishedAt === null) return `${when}, still running or stopped before it finished`;
  return `${when}, ${run.exitCode === 0 ? ctx.out.green("succeeded") : ctx.out.red(`failed (exit ${run.exitCode})`)}`;
}

/** What the last scheduled garden did for one wiki. */
function gardenRow(ctx: CliContext, note: GardenNote): string {
  switch (note.mode) {
    case "stale":
      return `${note.repository}: stale garden ${note.runId} (${note.stalePages.length} stale page${note.stalePages.length === 1 ? "" : "s"}: ${note.stalePages.join(", ")})`;
    case "general":
      return `${note.repository}: garden ${note.runId}`;
    case "skipped":
      return `${note.repository}: ${note.failed ? ctx.out.red(note.reason) : `skipped, ${note.reason}`}`;
  }
}
