/**
 * Doctor's `mcp.<client>`: is our MCP server registered with the agent the way `setup`
 * registers it, and would the agent be able to start it. A registration that points at a
 * node or a script that no longer exists (Node upgraded, the package moved) fails every
 * session of that agent, so it fails doctor, unless the person declined the server at
 * setup (`--no-mcp`): what they never asked for only warns. A missing registration warns,
 * and is fine when it was declined or the agent is not installed.
 */
import { existsSync } from "node:fs";
import { isPathLike, resolveExecutable } from "../core/executables.js";
import { HARNESSES } from "../harnesses/catalog.js";
import { shellLine } from "../mcp/install/describe.js";
import { SERVER_NAME, type FoundRegistration, type McpClient, type ServerCommand } from "../mcp/install/model.js";
import { runsServer } from "../mcp/install/server-command.js";
import type { McpDecision } from "./mcp-servers.js";
import type { Check } from "./model.js";

export interface McpInspection {
  client: McpClient;
  /** Our entry in the client's user-scope file; null when there is none. */
  found: FoundRegistration | null;
  /** What setup last decided for this client; null when it never did. */
  decision: McpDecision | null;
  /** Whether the client's CLI is on PATH. */
  installed: boolean;
}

export function mcpCheck(inspection: McpInspection, ours: ServerCommand, env: NodeJS.ProcessEnv): Check {
  const { client, found, decision } = inspection;
  const key = `mcp.${client}`;
  const label = HARNESSES[client].label;
  const install = `\`ca mcp install --client ${client}\``;
  if (!found) {
    if (decision === "declined") return { key, status: "ok", message: `not registered, as asked (setup --no-mcp, ${label} unticked, or \`ca mcp uninstall\`)` };
    if (!inspection.installed) return { key, status: "ok", message: `not registered; ${label} is not installed` };
    return { key, status: "warn", message: `the ${SERVER_NAME} MCP server is not registered with ${label}: its sessions cannot call the wiki's tools`, fix: `${install} registers it (as \`ca setup --target ${client}\` does)` };
  }
  // Broken: the agent fails to start it in every session. Only what the person asked for fails doctor.
  const broken = decision === "declined" ? "warn" : "fail";
  if (!found.server) {
    const problem = found.problem ?? { in: "entry", message: "its entry cannot be read" };
    const fix = problem.in === "file" ? `fix ${found.configPath} by hand, then ${install}` : `${install} replaces it`;
    return { key, status: broken, message: `the ${SERVER_NAME} MCP server in ${found.configPath} is broken: ${problem.message}`, fix };
  }
  const missing = missingPrograms(found.server, env);
  if (missing.length > 0) {
    const them = missing.length === 1 ? `${missing[0]}, which no longer exists` : `${missing.join(" and ")}, which no longer exist`;
    return { key, status: broken, message: `the ${SERVER_NAME} MCP server in ${found.configPath} is broken: it starts ${them}`, fix: `${install} registers this installation's server` };
  }
  if (!runsServer(found.server, ours)) {
    const message = `registered in ${found.configPath}, but it starts another installation: ${shellLine([found.server.command, ...found.server.args])}`;
    return { key, status: "warn", message, fix: `${install} points it at this one` };
  }
  return { key, status: "ok", message: `registered in ${found.configPath}` };
}

/** The node (or command) and the script the registration starts, when they are gone. */
function missingPrograms(server: ServerCommand, env: NodeJS.ProcessEnv): string[] {
  const missing: string[] = [];
  if (resolveExecutable(server.command, env) === null) missing.push(server.command);
  const script = server.args[0];
  if (script !== undefined && isPathLike(script) && !existsSync(script)) missing.push(script);
  return missing;
}
