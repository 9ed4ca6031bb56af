/**
 * Claude Code registers MCP servers with its own CLI (`claude mcp add|remove`), which
 * writes `~/.claude.json` (in `$CLAUDE_CONFIG_DIR` when set) for the user scope and
 * `.mcp.json` in the project for the project scope. We run that CLI and only read those
 * files, to know whether there is anything to do.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import * as z from "zod/mini";
import { commandFailureLine } from "../../core/command.js";
import { ProductError } from "../../core/errors.js";
import { resolveExecutable } from "../../core/executables.js";
import { readTextIfExists } from "../../core/fs.js";
import { expandHome, homeDir } from "../../core/paths.js";
import { HARNESSES } from "../../harnesses/catalog.js";
import { isInitializedRoot, normalizeRoot } from "../../repositories/identity.js";
import {
  SERVER_NAME,
  type ClientRegistrar,
  type McpScope,
  type RegistrarDeps,
  type RegistrationAction,
  type RegistrationReport,
  type RegistrationRequest,
  type ServerCommand,
} from "./model.js";
import { runsServer, withAddedFlags } from "./server-command.js";

const CLAUDE_TIMEOUT_MS = 60_000;

const ClaudeConfig = z.object({ mcpServers: z.optional(z.record(z.string(), z.unknown())) });
const ClaudeServer = z.object({ type: z.optional(z.string()), command: z.string(), args: z.optional(z.array(z.string())) });

export const claudeRegistrar: ClientRegistrar = {
  async install(request, deps) {
    const target = claudeTarget(request.scope, deps);
    const before = readServers(target.configPath)?.[SERVER_NAME];
    const current = registeredServer(before);
    const note = request.scope === "project" ? pendingApprovalNote(target.cwd) : null;
    if (current && runsServer(current, deps.server)) {
      return report(request, current, "install", target, { status: "already installed", commands: [], text: entryJson(current), note });
    }
    const server = withAddedFlags(deps.server, current);
    const commands = before === undefined ? [addArgs(request.scope, server)] : [removeArgs(request.scope), addArgs(request.scope, server)];
    if (!request.print) for (const args of commands) await runClaude(args, target.cwd, deps);
    const status = before === undefined ? "installed" : "updated";
    return report(request, server, "install", target, { status, commands: commands.map(withClaude), text: entryJson(server), note });
  },

  async uninstall(request, deps) {
    const target = claudeTarget(request.scope, deps);
    const before = readServers(target.configPath)?.[SERVER_NAME];
    const server = registeredServer(before) ?? deps.server;
    if (before === undefined) {
      return report(request, server, "uninstall", target, { status: "not installed", commands: [], text: null, note: null });
    }
    const commands = [removeArgs(request.scope)];
    let deletedFile = request.scope === "project" && onlyOurs(target.configPath);
    if (!request.print) {
      await runClaude(commands[0]!, target.cwd, deps);
      deletedFile = request.scope === "project" && deleteIfEmpty(target.configPath);
    }
    return report(request, server, "uninstall", target, { status: "removed", commands: commands.map(withClaude), text: null, note: null, deletedFile });
  },

  registration(scope, deps) {
    const { configPath } = claudeTarget(scope, deps);
    const entry = readServers(configPath)?.[SERVER_NAME];
    if (entry === undefined) return null;
    const server = registeredServer(entry);
    return { configPath, server, problem: server ? null : { in: "entry", message: `its "${SERVER_NAME}" entry is not a stdio command Claude Code can start` } };
  },
};

interface ClaudeTarget {
  configPath: string;
  /** Where `claude` runs: the project scope's file is written in its working directory. */
  cwd: string;
}

/** Claude Code keeps its user settings in `.claude.json` in `$CLAUDE_CONFIG_DIR`, else in the home folder. */
export function claudeUserConfigPath(env: NodeJS.ProcessEnv): string {
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  return join(configured ? expandHome(configured, env) : homeDir(env), ".claude.json");
}

function claudeTarget(scope: McpScope, deps: Pick<RegistrarDeps, "env" | "cwd">): ClaudeTarget {
  if (scope === "user") return { configPath: claudeUserConfigPath(deps.env), cwd: deps.cwd };
  const root = repositoryRoot(deps.cwd);
  return { configPath: join(root, ".mcp.json"), cwd: root };
}

/** The project scope belongs to the repository whose wiki the server will serve: found the way the CLI finds it. */
function repositoryRoot(cwd: string): string {
  for (let dir = normalizeRoot(cwd); ; dir = dirname(dir)) {
    if (isInitializedRoot(dir)) return dir;
    if (dirname(dir) === dir) break;
  }
  throw new ProductError(
    "repository_not_selected",
    "--scope project writes .mcp.json in the repository root, and no almanac/ wiki was found here or above: run it inside a repository with a wiki, or use --scope user",
  );
}

/** The servers a Claude Code config file lists; null when the file is missing or unreadable. */
function readServers(path: string): Record<string, unknown> | null {
  try {
    const text = readTextIfExists(path);
    if (text === null) return null;
    const parsed = ClaudeConfig.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data.mcpServers ?? {}) : null;
  } catch {
    return null;
  }
}

/** The command a stdio server entry starts; null for anything else (an HTTP server, a broken entry). */
function registeredServer(entry: unknown): ServerCommand | null {
  const parsed = ClaudeServer.safeParse(entry);
  if (!parsed.success || (parsed.data.type !== undefined && parsed.data.type !== "stdio")) return null;
  return { command: parsed.data.command, args: parsed.data.args ?? [] };
}

/** The entry as `claude mcp add` writes it, in a file's `mcpServers`: what to add by hand without the CLI. */
function entryJson(server: ServerCommand): string {
  const entry = { type: "stdio", command: server.command, args: server.args, env: {} };
  return JSON.stringify({ mcpServers: { [SERVER_NAME]: entry } }, null, 2);
}

function addArgs(scope: McpScope, server: ServerCommand): string[] {
  return ["mcp", "add", "--scope", scope, SERVER_NAME, "--", server.command, ...server.args];
}

function removeArgs(scope: McpScope): string[] {
  return ["mcp", "remove", "--scope", scope, SERVER_NAME];
}

function withClaude(args: string[]): string[] {
  return [HARNESSES.claude.executable, ...args];
}

async function runClaude(args: string[], cwd: string, deps: RegistrarDeps): Promise<void> {
  const executable = resolveExecutable(HARNESSES.claude.executable, deps.env);
  if (!executable) {
    throw new ProductError(
      "execution_failed",
      `claude not found on PATH: ${HARNESSES.claude.install}, or run this again with --print to see the JSON to add by hand`,
    );
  }
  const env = { ...deps.env };
  // Claude Code refuses some commands inside another Claude Code session (it sees CLAUDECODE).
  delete env.CLAUDECODE;
  const result = await deps.run(executable, args, { cwd, env, timeoutMs: CLAUDE_TIMEOUT_MS });
  const what = `\`claude ${args.slice(0, 2).join(" ")}\``;
  if (result.timedOut) throw new ProductError("execution_failed", `${what} did not finish within ${CLAUDE_TIMEOUT_MS / 1000}s`);
  if (result.code !== 0) throw new ProductError("execution_failed", `${what} failed: ${commandFailureLine(result) || `exit ${result.code ?? result.signal}`}`);
}

/** The project file holds nothing but our server (so removing it leaves an empty file). */
function onlyOurs(path: string): boolean {
  try {
    const parsed = JSON.parse(readTextIfExists(path) ?? "null") as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return false;
    const keys = Object.keys(parsed);
    const servers = (parsed as { mcpServers?: unknown }).mcpServers;
    return keys.length === 1 && typeof servers === "object" && servers !== null && Object.keys(servers).join() === SERVER_NAME;
  } catch {
    return false;
  }
}

/** `claude mcp remove` leaves `{"mcpServers": {}}` behind; a project file holding only that goes, as it came. */
function deleteIfEmpty(path: string): boolean {
  try {
    const parsed = JSON.parse(readTextIfExists(path) ?? "null") as unknown;
    if (JSON.stringify(parsed) !== JSON.stringify({ mcpServers: {} })) return false;
    rmSync(path);
    return true;
  } catch {
    return false;
  }
}

function pendingApprovalNote(root: string): string {
  return (
    `Claude Code shows project servers as "Pending approval" until a person approves them (by design): ` +
    `start \`claude\` in ${root} and approve codealmanac`
  );
}

function report(
  request: RegistrationRequest,
  server: ServerCommand,
  action: RegistrationAction,
  target: ClaudeTarget,
  outcome: Pick<RegistrationReport, "status" | "commands" | "text" | "note"> & { deletedFile?: boolean },
): RegistrationReport {
  return {
    client: "claude",
    scope: request.scope,
    action,
    status: outcome.status,
    dryRun: request.print,
    server,
    configPath: target.configPath,
    commands: outcome.commands,
    text: outcome.text,
    deletedFile: outcome.deletedFile ?? false,
    note: outcome.note,
  };
}
