/**
 * Codex reads its MCP servers from `[mcp_servers.<name>]` tables in `$CODEX_HOME/config.toml`
 * (default ~/.codex). We edit that one table line by line, check the result parses to
 * exactly what we meant with everything else unchanged, and replace the file in one step.
 */
import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import * as z from "zod/mini";
import { viewCodexMcpServer } from "../../config/codex-mcp-toml.js";
import { conflict, invalid } from "../../core/errors.js";
import { readTextIfExists } from "../../core/fs.js";
import { codexDir } from "../../setup/instruction-files.js";
import { writeFileAtomic } from "../../wiki/atomic-write.js";
import { appendServerTable, removeServerTable, serverTable, serverTableText, updateServerTable } from "./codex-table.js";
import {
  SERVER_NAME,
  type ClientRegistrar,
  type RegistrarDeps,
  type RegistrationAction,
  type RegistrationReport,
  type RegistrationRequest,
  type ServerCommand,
} from "./model.js";
import { runsServer, sameCommand, withAddedFlags } from "./server-command.js";

const CodexServer = z.object({ command: z.string(), args: z.optional(z.array(z.string())) });

export function codexConfigPath(env: NodeJS.ProcessEnv): string {
  return join(codexDir(env), "config.toml");
}

export const codexRegistrar: ClientRegistrar = {
  async install(request, deps) {
    const file = openConfig(request, deps);
    const before = file.view.entry;
    const current = registeredServer(before);
    if (current && runsServer(current, deps.server)) {
      return report(request, current, "install", file.path, { status: "already installed", text: serverTableText(file.text, SERVER_NAME) });
    }
    const target = withAddedFlags(deps.server, current);
    const after = before === undefined ? appendServerTable(file.text, SERVER_NAME, target) : updateServerTable(file.text, SERVER_NAME, target);
    checkEdit(file, after, (entry) => {
      const written = registeredServer(entry);
      return written !== null && sameCommand(written, target);
    });
    const text = before === undefined ? serverTable(SERVER_NAME, target) : serverTableText(after, SERVER_NAME);
    if (!request.print) write(file.path, after);
    return report(request, target, "install", file.path, { status: before === undefined ? "installed" : "updated", text });
  },

  async uninstall(request, deps) {
    const file = openConfig(request, deps);
    const server = registeredServer(file.view.entry) ?? deps.server;
    if (file.view.entry === undefined) return report(request, server, "uninstall", file.path, { status: "not installed", text: null });
    const after = removeServerTable(file.text, SERVER_NAME);
    checkEdit(file, after, (entry) => entry === undefined);
    const deletedFile = after === "";
    if (!request.print) {
      if (deletedFile) rmSync(file.path);
      else write(file.path, after);
    }
    return report(request, server, "uninstall", file.path, { status: "removed", text: serverTableText(file.text, SERVER_NAME), deletedFile });
  },

  registration(scope, deps) {
    if (scope === "project") return null;
    const path = codexConfigPath(deps.env);
    let text: string | null;
    try {
      text = readTextIfExists(path);
    } catch {
      return null;
    }
    if (text === null) return null;
    const view = viewCodexMcpServer(text, SERVER_NAME);
    // A file that no longer parses may still hold our table: uninstall then says why it cannot remove it.
    if (!view.valid) {
      return serverTableText(text, SERVER_NAME) === null ? null : { configPath: path, server: null, problem: { in: "file", message: `it is not valid TOML (${view.problem})` } };
    }
    if (view.entry === undefined) return null;
    const server = registeredServer(view.entry);
    return { configPath: path, server, problem: server ? null : { in: "entry", message: `its [mcp_servers.${SERVER_NAME}] table has no command Codex can start` } };
  },
};

interface ConfigFile {
  /** The file written: a symlinked config.toml (dotfiles) is written through to its target. */
  path: string;
  text: string;
  view: { entry: unknown; others: string };
}

function openConfig(request: RegistrationRequest, deps: RegistrarDeps): ConfigFile {
  if (request.scope === "project") {
    throw invalid("Codex has no project scope here: its MCP servers live in $CODEX_HOME/config.toml; use --scope user");
  }
  const named = codexConfigPath(deps.env);
  const path = existsSync(named) ? realpathSync(named) : named;
  let text: string | null;
  try {
    text = readTextIfExists(path);
  } catch (error) {
    throw invalid(`cannot read ${path}: ${(error as Error).message}`);
  }
  const view = viewCodexMcpServer(text ?? "", SERVER_NAME);
  if (!view.valid) throw invalid(`cannot edit ${path}: it is not valid TOML (${view.problem}); fix it first`);
  return { path, text: text ?? "", view };
}

/** The command a `[mcp_servers.<name>]` value starts; null when it is not a command Codex could run. */
function registeredServer(entry: unknown): ServerCommand | null {
  const parsed = CodexServer.safeParse(entry);
  return parsed.success ? { command: parsed.data.command, args: parsed.data.args ?? [] } : null;
}

/** The edit must parse, leave our entry as intended and every other value as it was; otherwise nothing is written. */
function checkEdit(file: ConfigFile, after: string, intended: (entry: unknown) => boolean): void {
  const view = viewCodexMcpServer(after, SERVER_NAME);
  if (view.valid && intended(view.entry) && view.others === file.view.others) return;
  throw conflict(
    `cannot edit ${file.path} safely: it defines mcp_servers.${SERVER_NAME} in a form ca does not edit (an inline table or dotted keys); ` +
      `change it by hand (\`ca mcp install --client codex --print\` shows the table)`,
  );
}

function write(path: string, text: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileAtomic(path, text);
  } catch (error) {
    throw invalid(`cannot write ${path}: ${(error as Error).message}`);
  }
}

function report(
  request: RegistrationRequest,
  server: ServerCommand,
  action: RegistrationAction,
  configPath: string,
  outcome: Pick<RegistrationReport, "status" | "text"> & { deletedFile?: boolean },
): RegistrationReport {
  return {
    client: "codex",
    scope: request.scope,
    action,
    status: outcome.status,
    dryRun: request.print,
    server,
    configPath,
    commands: [],
    text: outcome.text,
    deletedFile: outcome.deletedFile ?? false,
    note: null,
  };
}
