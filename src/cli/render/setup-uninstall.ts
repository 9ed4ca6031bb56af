import type { CliContext } from "../context.js";
import { HARNESSES } from "../../harnesses/catalog.js";
import type { RemovedRegistration } from "../../setup/mcp-servers.js";
import { PACKAGE_UNINSTALL, type UninstallReport } from "../../setup/uninstall.js";
import { renderWarnings } from "./setup.js";

export function nothingJson() {
  return {
    nothing_to_remove: true,
    removed: { instructions: [], mcp: [], hooks: [], schedules: [], state_root: null },
    cancelled: [],
    worker_stopped: null,
    viewers_stopped: [],
    warnings: [],
    package: PACKAGE_UNINSTALL,
  };
}

export function renderNothing(ctx: CliContext): void {
  ctx.write(`nothing to remove\n${packageLine()}\n`);
}

export function uninstallJson(report: UninstallReport) {
  return {
    nothing_to_remove: false,
    removed: { instructions: report.instructions, mcp: report.mcp, hooks: report.hooks, schedules: report.schedules, state_root: report.stateRoot },
    cancelled: report.cancelled,
    worker_stopped: report.worker,
    viewers_stopped: report.viewers.map((viewer) => ({ pid: viewer.pid, url: viewer.url })),
    warnings: report.warnings,
    package: report.packageCommand,
  };
}

export function renderUninstall(ctx: CliContext, report: UninstallReport): void {
  const lines: string[] = [];
  const cancelled = report.cancelled.length;
  if (cancelled > 0) lines.push(`cancelled ${cancelled} job${cancelled === 1 ? "" : "s"}: ${report.cancelled.join(", ")}`);
  if (report.worker !== null) lines.push(`stopped the worker (pid ${report.worker})`);
  for (const viewer of report.viewers) lines.push(`stopped the viewer at ${viewer.url} (pid ${viewer.pid})`);
  for (const file of report.instructions) {
    if (file.deleted) lines.push(`deleted ${file.path} (it held only the codealmanac block)`);
    else lines.push(`removed the codealmanac block from ${file.path}`);
  }
  for (const registration of report.mcp) lines.push(mcpLine(registration));
  for (const hook of report.hooks) lines.push(hook.deleted ? `deleted ${hook.path} (it held only the codealmanac SessionEnd hook)` : `removed the codealmanac SessionEnd hook from ${hook.path}`);
  for (const task of report.schedules) lines.push(`removed the ${task} schedule`);
  if (report.stateRoot) lines.push(`deleted ${report.stateRoot}`);
  lines.push(packageLine());
  ctx.write(lines.join("\n") + "\n");
  renderWarnings(ctx, report.warnings);
}

function mcpLine({ client, path, deleted }: RemovedRegistration): string {
  if (deleted) return `deleted ${path} (it held only the codealmanac MCP server)`;
  return `removed the codealmanac MCP server from ${HARNESSES[client].label} (${path})`;
}

function packageLine(): string {
  return `the codealmanac package stays installed; remove it with: ${PACKAGE_UNINSTALL}`;
}
