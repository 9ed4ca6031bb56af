import type { CliContext } from "../context.js";
import type { Check, LeftoverRemoval, McpOutcome, ScheduleOutcome, SetupReport } from "../../setup/model.js";
import { formatDuration } from "../../config/duration.js";

export function setupJson(report: SetupReport) {
  const { settings } = report;
  return {
    instructions: report.instructions,
    config: {
      path: report.configPath,
      auto_commit: settings.autoCommit,
      harness_default: settings.harnessDefault,
      automation: {
        sync: { enabled: settings.sync.enabled, every: formatDuration(settings.sync.everyMs), every_ms: settings.sync.everyMs },
        garden: { enabled: settings.garden.enabled, every: formatDuration(settings.garden.everyMs), every_ms: settings.garden.everyMs },
      },
    },
    schedules: report.schedules.map(scheduleJson),
    mcp: report.mcp.map(mcpJson),
    hooks: report.hooks,
    python_leftovers: report.python.map(({ kind, path, removed }) => ({ kind, path, removed })),
    warnings: report.warnings,
  };
}

function mcpJson(outcome: McpOutcome) {
  if (outcome.status === "failed") return { client: outcome.client, scope: "user", status: outcome.status, message: outcome.message, fix: outcome.fix };
  return { client: outcome.client, scope: "user", status: outcome.status, config_path: outcome.configPath };
}

function scheduleJson(schedule: ScheduleOutcome) {
  if (schedule.outcome === "failed") return schedule;
  const { task, outcome, enabled, intervalMs, scheduler, location, changed } = schedule;
  return { task, outcome, enabled, every: formatDuration(intervalMs), every_ms: intervalMs, scheduler, location, changed };
}

/** Each schedule with its error (null when it was updated), for the failed-schedule contract (`reportScheduleFailures`). */
export function scheduleErrors(report: SetupReport): { task: string; error: string | null }[] {
  return report.schedules.map((schedule) => ({ task: schedule.task, error: schedule.outcome === "failed" ? schedule.error : null }));
}

export function renderSetup(ctx: CliContext, report: SetupReport): void {
  const s = ctx.out;
  const lines: string[] = [];
  for (const item of report.instructions) {
    const status = item.status === "already installed" ? s.dim(item.status) : s.green(item.status);
    lines.push(`${item.target} instructions: ${status} in ${item.path}`);
  }
  lines.push(`settings: ${settingsLine(report)} ${s.dim(`(${report.configPath})`)}`);
  // A failed registration is told among the warnings, with its fix.
  for (const outcome of report.mcp) {
    if (outcome.status !== "failed") lines.push(`${outcome.client} MCP server: ${mcpLine(ctx, outcome)}`);
  }
  for (const hook of report.hooks) {
    const status = hook.status === "already installed" ? s.dim(hook.status) : s.green(hook.status);
    lines.push(`${hook.target} SessionEnd hook: ${status} in ${hook.path}${hook.target === "codex" ? s.dim(" (Codex runs it once you trust it: /hooks in Codex)") : ""}`);
  }
  // A failed one is told after the warnings, with the one fix `config set` prints too.
  for (const schedule of report.schedules) {
    if (schedule.outcome !== "failed") lines.push(`${schedule.task} schedule: ${scheduleLine(schedule)}`);
  }
  // One that could not be removed is told among the warnings.
  for (const leftover of report.python) {
    if (leftover.removed) lines.push(`Python CodeAlmanac leftover: ${s.green("removed")} ${LEFTOVER_NAMES[leftover.kind]} ${leftover.path}`);
  }
  ctx.write(lines.join("\n") + "\n");
  renderWarnings(ctx, report.warnings);
}

const LEFTOVER_NAMES: Record<LeftoverRemoval["kind"], string> = {
  update_job: "its launchd update job",
  claude_guide: "its Claude Code guide",
  claude_import: "its @~/.claude/codealmanac.md line from",
};

function settingsLine(report: SetupReport): string {
  const { settings } = report;
  const every = (task: "sync" | "garden") =>
    settings[task].enabled ? `${task} every ${formatDuration(settings[task].everyMs)}` : `${task} off`;
  const agent = settings.harnessDefault ?? "detected per run";
  return `agent ${agent}, auto-commit ${settings.autoCommit ? "on" : "off"}, ${every("sync")}, ${every("garden")}`;
}

function mcpLine(ctx: CliContext, outcome: Exclude<McpOutcome, { status: "failed" }>): string {
  const s = ctx.out;
  const status = outcome.status === "already installed" ? s.dim(outcome.status) : s.green(outcome.status);
  return `${status} in ${outcome.configPath}`;
}

function scheduleLine(schedule: Exclude<ScheduleOutcome, { outcome: "failed" }>): string {
  const where = `${schedule.scheduler}: ${schedule.location}`;
  if (!schedule.enabled) return `${schedule.outcome === "removed" ? "removed" : "off"} (${where})`;
  const verb = schedule.outcome === "unchanged" ? "already installed" : "installed";
  return `${verb}, every ${formatDuration(schedule.intervalMs)} (${where})`;
}

/** Problems that did not stop the command, on stderr with what to do about each. */
export function renderWarnings(ctx: CliContext, warnings: Check[]): void {
  const s = ctx.err;
  for (const warning of warnings) {
    ctx.writeErr(`${s.yellow("warning")}: ${warning.message}\n`);
    if (warning.fix) ctx.writeErr(`  ${s.dim("fix:")} ${warning.fix}\n`);
  }
}
