/**
 * Our MCP server in the agents' user scope: `setup` registers it as `ca mcp install
 * --client <client>` would, and `uninstall` removes it again. Neither stops on a client
 * that fails: what could not be done becomes a warning with a fix.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { oneLine } from "../core/errors.js";
import { resolveExecutable } from "../core/executables.js";
import { HARNESSES } from "../harnesses/catalog.js";
import { MCP_CLIENTS, SERVER_NAME, type McpClient, type RegistrationReport } from "../mcp/install/model.js";
import { writeFileAtomic } from "../wiki/atomic-write.js";
import type { Check, McpOutcome } from "./model.js";

export interface McpRegistrationDeps {
  env: NodeJS.ProcessEnv;
  /** The file that registers the server with a client (user scope), or null. Changes nothing. */
  mcpRegistration(client: McpClient): Promise<string | null>;
  /** Removes the server from a client's user scope (`ca mcp uninstall --client <client>`). */
  unregisterMcp(client: McpClient): Promise<RegistrationReport>;
}

/**
 * What setup last decided for each client, kept in the state root so `doctor` can tell a
 * registration the person asked for from one they declined (`--no-mcp`, or the agent
 * unticked at the terminal). A client setup never decided for is absent.
 */
export type McpDecision = "registered" | "declined";
/** The record's file name in the state root. */
export const MCP_RECORD_FILE = "mcp-servers.json";
export type McpRecord = Partial<Record<McpClient, McpDecision>>;

export function readMcpRecord(path: string): McpRecord {
  if (!existsSync(path)) return {};
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (typeof data !== "object" || data === null || Array.isArray(data)) return {};
    const record: McpRecord = {};
    for (const client of MCP_CLIENTS) {
      const value = (data as Record<string, unknown>)[client];
      if (value === "registered" || value === "declined") record[client] = value;
    }
    return record;
  } catch {
    return {};
  }
}

/** Records setup's decisions: the clients registered now, and those declined; the others keep theirs. */
export function recordMcpDecisions(path: string, outcomes: McpOutcome[], declined: readonly McpClient[]): void {
  const changes: McpRecord = {};
  for (const outcome of outcomes) if (outcome.status !== "failed") changes[outcome.client] = "registered";
  for (const client of declined) changes[client] = "declined";
  if (Object.keys(changes).length === 0) return;
  writeMcpRecord(path, { ...readMcpRecord(path), ...changes });
}

function writeMcpRecord(path: string, record: McpRecord): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * A hand-run `ca mcp install|uninstall` in the user scope is the person's latest word, as
 * setup's is: an install after `--no-mcp` is asked for (a broken one then fails doctor),
 * and an uninstall is a decline. `--print` and the project scope change no record.
 */
export function recordHandRegistration(path: string, report: RegistrationReport): void {
  if (report.dryRun || report.scope !== "user") return;
  const decision: McpDecision = report.action === "install" ? "registered" : "declined";
  if (readMcpRecord(path)[report.client] === decision) return;
  writeMcpRecord(path, { ...readMcpRecord(path), [report.client]: decision });
}

/** A registration uninstall will remove. */
export interface McpRegistration {
  client: McpClient;
  configPath: string;
}

/** A registration uninstall removed; `deleted` when the file held nothing else and went with it. */
export interface RemovedRegistration {
  client: McpClient;
  path: string;
  deleted: boolean;
}

export async function registerMcpServers(
  clients: McpClient[],
  register: (client: McpClient) => Promise<RegistrationReport>,
  warnings: Check[],
): Promise<McpOutcome[]> {
  const outcomes: McpOutcome[] = [];
  for (const client of clients) {
    try {
      const report = await register(client);
      outcomes.push({ client, status: report.status, configPath: report.configPath });
    } catch (error) {
      const message = `could not register the ${SERVER_NAME} MCP server with ${HARNESSES[client].label}: ${oneLine(error)}`;
      const fix = `after fixing it, \`ca mcp install --client ${client}\` registers it`;
      outcomes.push({ client, status: "failed", message, fix });
      warnings.push({ key: `mcp.${client}`, status: "warn", message, fix });
    }
  }
  return outcomes;
}

export async function findMcpRegistrations(deps: McpRegistrationDeps): Promise<McpRegistration[]> {
  const found: McpRegistration[] = [];
  for (const client of MCP_CLIENTS) {
    const configPath = await deps.mcpRegistration(client);
    if (configPath !== null) found.push({ client, configPath });
  }
  return found;
}

/** Claude Code's registrations are its own CLI's to remove: without `claude` on PATH the entry stays, with a warning. */
export async function removeMcpServers(planned: McpRegistration[], deps: McpRegistrationDeps, warnings: Check[]): Promise<RemovedRegistration[]> {
  const removed: RemovedRegistration[] = [];
  for (const { client, configPath } of planned) {
    const fix = byHand(client, configPath);
    if (client === "claude" && resolveExecutable(HARNESSES.claude.executable, deps.env) === null) {
      warnings.push({ key: `mcp.${client}`, status: "warn", message: `kept the ${SERVER_NAME} MCP server in ${configPath}: claude is not on PATH to remove it`, fix });
      continue;
    }
    try {
      const report = await deps.unregisterMcp(client);
      if (report.status === "removed") removed.push({ client, path: report.configPath, deleted: report.deletedFile });
    } catch (error) {
      const message = `could not remove the ${SERVER_NAME} MCP server from ${HARNESSES[client].label}: ${oneLine(error)}`;
      warnings.push({ key: `mcp.${client}`, status: "warn", message, fix });
    }
  }
  return removed;
}

function byHand(client: McpClient, configPath: string): string {
  if (client === "codex") return `delete the [mcp_servers.${SERVER_NAME}] table from ${configPath} by hand`;
  return `run \`claude mcp remove --scope user ${SERVER_NAME}\`, or delete "${SERVER_NAME}" from "mcpServers" in ${configPath} by hand`;
}
