/**
 * `ca mcp install|uninstall`: registers our MCP server with one client, or removes it,
 * each client through its own mechanism (see claude.ts and codex.ts).
 */
import { claudeRegistrar } from "./claude.js";
import { codexRegistrar } from "./codex.js";
import type {
  ClientRegistrar,
  FoundRegistration,
  McpClient,
  McpScope,
  RegistrarDeps,
  RegistrationAction,
  RegistrationReport,
  RegistrationRequest,
} from "./model.js";

const REGISTRARS: Record<McpClient, ClientRegistrar> = { claude: claudeRegistrar, codex: codexRegistrar };

export function registerServer(action: RegistrationAction, request: RegistrationRequest, deps: RegistrarDeps): Promise<RegistrationReport> {
  return REGISTRARS[request.client][action](request, deps);
}

/** The file that registers our server with `client` in `scope`, or null: nothing is run or changed. */
export function registeredIn(client: McpClient, scope: McpScope, deps: Pick<RegistrarDeps, "env" | "cwd">): string | null {
  return REGISTRARS[client].registration(scope, deps)?.configPath ?? null;
}

/** Our server's entry with `client` in `scope` and the command it starts, or null: nothing is run or changed. */
export function findRegistration(client: McpClient, scope: McpScope, deps: Pick<RegistrarDeps, "env" | "cwd">): FoundRegistration | null {
  return REGISTRARS[client].registration(scope, deps);
}

export { serverCommand } from "./server-command.js";
export { describeRegistration, registrationJson } from "./describe.js";
