/**
 * Registering our stdio MCP server (`ca mcp`) with an agent client: the clients and
 * scopes `ca mcp install|uninstall` accepts, and what one registration reports.
 */
import type { CommandRunner } from "../../core/command.js";

export const MCP_CLIENTS = ["claude", "codex"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export const MCP_SCOPES = ["user", "project"] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

/** The name the server is registered under in every client. */
export const SERVER_NAME = "codealmanac";

/** How a client starts the server: absolute paths, so it works whatever PATH the client has. */
export interface ServerCommand {
  command: string;
  args: string[];
}

export type RegistrationAction = "install" | "uninstall";

export interface RegistrationRequest {
  client: McpClient;
  scope: McpScope;
  /** Show what would be written or run, and change nothing. */
  print: boolean;
}

/** installed, updated (another command was registered) and removed change something; the rest change nothing. */
export type RegistrationStatus = "installed" | "updated" | "already installed" | "removed" | "not installed";

export interface RegistrationReport {
  client: McpClient;
  scope: McpScope;
  action: RegistrationAction;
  status: RegistrationStatus;
  /** True under --print: the status is what would happen, and nothing was changed. */
  dryRun: boolean;
  server: ServerCommand;
  /** The file the registration lives in. */
  configPath: string;
  /** The client's own commands run (or, under --print, to run), each as an argv. */
  commands: string[][];
  /** The text written or removed, or to paste by hand; null when there is none. */
  text: string | null;
  /** The file was deleted because it held nothing but our server. */
  deletedFile: boolean;
  /** Something the person has to know or do next. */
  note: string | null;
}

export interface RegistrarDeps {
  env: NodeJS.ProcessEnv;
  cwd: string;
  run: CommandRunner;
  server: ServerCommand;
}

/** One client's way of registering a server. */
export interface ClientRegistrar {
  install(request: RegistrationRequest, deps: RegistrarDeps): Promise<RegistrationReport>;
  uninstall(request: RegistrationRequest, deps: RegistrarDeps): Promise<RegistrationReport>;
  /** The registration of our server in this scope, read without changing anything; null when none exists. */
  registration(scope: McpScope, deps: Pick<RegistrarDeps, "env" | "cwd">): FoundRegistration | null;
}

/** Our server's entry in a client's file, as `doctor` and `uninstall` see it. */
export interface FoundRegistration {
  configPath: string;
  /** The command the client starts; null when the entry is not one it could start. */
  server: ServerCommand | null;
  /** Why `server` is null: the entry's form (a new registration replaces it), or the whole file, which must be fixed by hand first. */
  problem: { in: "entry" | "file"; message: string } | null;
}
