import type { SchedulerKind } from "../../automation/model.js";
import { formatDuration, isoDuration } from "../../config/duration.js";
import type { ApplyReport, ConfigChange, ConfigEntry } from "../../config/editor.js";
import { SCHEDULE_FIX, type ScheduleOutcome } from "../../config/schedules.js";
import type { CliContext } from "../context.js";
import { renderTable } from "./table.js";

export function entryJson(entry: ConfigEntry) {
  return { key: entry.key, value: entry.items ?? entry.value, default: entry.isDefault };
}

export function renderConfigList(ctx: CliContext, entries: ConfigEntry[]): void {
  const s = ctx.out;
  const rows = entries.map((e) => [e.key, e.value, e.isDefault ? s.dim("default") : "config.toml"]);
  ctx.write(renderTable(["KEY", "VALUE", "SOURCE"], rows, s));
}

export function scheduleJson(outcome: ScheduleOutcome) {
  const { task, settings, result, error } = outcome;
  return {
    task,
    enabled: result?.enabled ?? settings.enabled,
    interval: isoDuration(result?.intervalMs ?? settings.everyMs),
    scheduler: result?.scheduler ?? null,
    location: result?.location ?? null,
    changed: result?.changed ?? false,
    error,
  };
}

export function changeJson(change: ConfigChange) {
  return {
    path: change.path,
    key: change.key,
    value: change.value,
    written: change.written,
    cleared: change.cleared,
    automation: change.automation ? scheduleJson(change.automation) : null,
    warnings: change.warnings,
  };
}

export function applyJson(report: ApplyReport) {
  return { path: report.path, automation: report.automation.map(scheduleJson), warnings: report.warnings };
}

export function renderSet(ctx: CliContext, change: ConfigChange): void {
  renderChange(ctx, change, `config: ${change.key} = ${change.value}`);
}

export function renderUnset(ctx: CliContext, change: ConfigChange): void {
  const headline = change.written
    ? `config: ${change.key} unset (default ${change.value})`
    : `config: ${change.key} was not set (default ${change.value})`;
  renderChange(ctx, change, headline);
}

function renderChange(ctx: CliContext, change: ConfigChange, headline: string): void {
  const lines = [headline];
  for (const cleared of change.cleared) {
    lines.push(`config: ${cleared.key} unset (${cleared.previous} does not belong to the new harness; now ${cleared.value})`);
  }
  if (change.automation?.result) lines.push(scheduleLine(change.automation));
  ctx.write(lines.join("\n") + "\n");
  renderWarnings(ctx, change.warnings);
}

/** `config applied` only when every schedule now matches; otherwise what was checked, and the failures follow on stderr. */
export function renderApply(ctx: CliContext, report: ApplyReport): void {
  const failed = report.automation.some((o) => o.error !== null);
  const lines = [failed ? `config: ${report.path} is valid` : "config applied", ...report.automation.filter((o) => o.result).map((o) => `  ${scheduleLine(o)}`)];
  ctx.write(lines.join("\n") + "\n");
  renderWarnings(ctx, report.warnings);
}

function renderWarnings(ctx: CliContext, warnings: readonly string[]): void {
  for (const warning of warnings) ctx.writeErr(`codealmanac: warning: ${warning}\n`);
}

const SCHEDULER_LABEL: Record<SchedulerKind, string> = {
  systemd: "systemd timer",
  cron: "crontab",
  launchd: "launchd job",
};

/** `sync: installed (systemd timer, every 5h)`, `sync: removed` and the like. */
export function scheduleLine(outcome: ScheduleOutcome): string {
  const result = outcome.result!;
  const where = `${SCHEDULER_LABEL[result.scheduler]}, every ${formatDuration(result.intervalMs)}`;
  if (result.enabled) return `${result.task}: ${result.changed ? "installed" : "already installed"} (${where})`;
  return `${result.task}: ${result.changed ? "removed" : "off (no schedule installed)"}`;
}

/**
 * Schedules that failed after config.toml was saved, the same for `config set`, `config
 * apply` and `setup`: stdout said what was saved; here each failure gets its own line, then
 * one fix line (one JSON error object under --json), and the exit code is 1.
 */
export function reportScheduleFailures(ctx: CliContext, outcomes: readonly { task: string; error: string | null }[], json: boolean): void {
  const failures = outcomes.filter((o) => o.error !== null).map((o) => `${o.task}: schedule not updated: ${o.error}`);
  if (failures.length === 0) return;
  ctx.exitCode = 1;
  if (json) ctx.writeErr(JSON.stringify({ error: { code: "execution_failed", message: failures.join("; "), fix: SCHEDULE_FIX } }) + "\n");
  else ctx.writeErr([...failures.map((line) => `codealmanac: ${line}\n`), `  fix: ${SCHEDULE_FIX}\n`].join(""));
}
