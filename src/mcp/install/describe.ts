/**
 * What `ca mcp install|uninstall` prints: a line saying what happened (or, under --print,
 * the exact commands and text it would run or write), and the same facts as JSON.
 */
import { HARNESSES } from "../../harnesses/catalog.js";
import { SERVER_NAME, type RegistrationReport } from "./model.js";

export function registrationJson(report: RegistrationReport) {
  return {
    client: report.client,
    scope: report.scope,
    action: report.action,
    status: report.status,
    dry_run: report.dryRun,
    server: { name: SERVER_NAME, command: report.server.command, args: report.server.args },
    config_path: report.configPath,
    commands: report.commands,
    text: report.text,
    deleted_file: report.deletedFile,
    note: report.note,
  };
}

export function describeRegistration(report: RegistrationReport): string[] {
  const lines = report.dryRun ? describePlan(report) : describeDone(report);
  if (report.note) lines.push(`note: ${report.note}`);
  return lines;
}

function describeDone(report: RegistrationReport): string[] {
  const server = shellLine([report.server.command, ...report.server.args]);
  const lines: string[] = [];
  switch (report.status) {
    case "installed":
    case "updated":
      lines.push(`${report.status} the ${SERVER_NAME} MCP server for ${where(report)}: ${server}`);
      break;
    case "already installed":
      lines.push(`the ${SERVER_NAME} MCP server is already installed for ${where(report)}: ${server}`);
      break;
    case "removed":
      lines.push(`removed the ${SERVER_NAME} MCP server from ${where(report)}`);
      break;
    case "not installed":
      lines.push(`the ${SERVER_NAME} MCP server is not installed for ${where(report)}; nothing to remove`);
      break;
  }
  for (const argv of report.commands) lines.push(`  ran: ${shellLine(argv)}`);
  if (report.deletedFile) lines.push(`deleted ${report.configPath} (it held only the ${SERVER_NAME} server)`);
  return lines;
}

/** Under --print: comment lines around exactly what would be run or written. */
function describePlan(report: RegistrationReport): string[] {
  if (report.status === "already installed" || report.status === "not installed") {
    return [`# the ${SERVER_NAME} MCP server is ${report.status} for ${where(report)}; nothing would change`];
  }
  const lines: string[] = [];
  if (report.commands.length > 0) {
    lines.push("# would run:", ...report.commands.map(shellLine));
    if (report.text) lines.push(`# which writes this into ${report.configPath} (or merge it there by hand):`, report.text);
  } else if (report.text) {
    const verb = report.status === "removed" ? "remove from" : report.status === "updated" ? "write this table into" : "add to";
    lines.push(`# would ${verb} ${report.configPath}:`, report.text);
  }
  if (report.deletedFile) lines.push(`# and delete ${report.configPath}, which would hold nothing else`);
  return lines;
}

function where(report: RegistrationReport): string {
  const label = HARNESSES[report.client].label;
  return report.client === "codex" ? `${label} (${report.configPath})` : `${label} (${report.scope} scope, ${report.configPath})`;
}

/** An argv as a line a person can paste into a POSIX shell. */
export function shellLine(argv: string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(" ");
}
