/**
 * The CodeAlmanac commands a run's agent may use: `codealmanac validate`, `search` and `show`,
 * named by the prompt and let through by each harness's permissions (AgentCommands).
 *
 * The name must mean this installation, whatever the agent's PATH holds (a test, a clone run
 * as `node dist/bin.js`, another version installed globally), so the runner puts a folder
 * with a `codealmanac` shim first on the agent's PATH. The shim runs this node and this CLI
 * script, refuses every other subcommand, and gives the CLI a state root of its own inside
 * the run's folder: a sandboxed agent (Codex's workspace-write) can write only there, and
 * nothing the agent runs can touch the user's ledger, config or queue.
 */
import { chmodSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import type { AgentCommands } from "../harnesses/types.js";

export const AGENT_EXECUTABLE = "codealmanac";
export const AGENT_SUBCOMMANDS = ["validate", "search", "show"] as const;

/** How this installation's CLI is started: the node running us and the CLI's entry script. */
export interface CliEntry {
  node: string;
  script: string;
}

export interface AgentTools {
  commands: AgentCommands;
  /** Goes first on the agent's PATH. */
  binDir: string;
  /** CODEALMANAC_HOME of the commands the agent runs. */
  stateRoot: string;
  /** Everything here is the run's own and removed when it ends. */
  folder: string;
}

/** Writes the shim and the folders it uses under `folder` (the run's `agent/` folder). */
export function prepareAgentTools(folder: string, cli: CliEntry): AgentTools {
  const binDir = join(folder, "bin");
  const stateRoot = join(folder, "state");
  const tmpDir = join(folder, "tmp");
  for (const dir of [binDir, stateRoot, tmpDir]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const shim = join(binDir, AGENT_EXECUTABLE);
  writeFileSync(shim, shimScript({ node: cli.node, script: realScript(cli.script) }, stateRoot, tmpDir), { mode: 0o755 });
  chmodSync(shim, 0o755);
  return {
    commands: { executable: AGENT_EXECUTABLE, subcommands: AGENT_SUBCOMMANDS, writableRoots: [stateRoot, tmpDir] },
    binDir,
    stateRoot,
    folder,
  };
}

/** The run's environment with the shim folder first on PATH; everything else as it was. */
export function agentEnvironment(env: NodeJS.ProcessEnv, tools: AgentTools): NodeJS.ProcessEnv {
  const path = env.PATH ?? "";
  return { ...env, PATH: path === "" ? tools.binDir : `${tools.binDir}${delimiter}${path}` };
}

export function removeAgentTools(tools: AgentTools): void {
  rmSync(tools.folder, { recursive: true, force: true });
}

function shimScript(cli: CliEntry, stateRoot: string, tmpDir: string): string {
  const allowed = AGENT_SUBCOMMANDS.join("|");
  const names = AGENT_SUBCOMMANDS.map((sub) => `${AGENT_EXECUTABLE} ${sub}`).join(", ");
  return [
    "#!/bin/sh",
    "# CodeAlmanac for the agent of one run: this installation's CLI, only the commands the",
    "# prompt names, with a state root of its own (written by the run, removed when it ends).",
    'case "$1" in',
    `  ${allowed}) ;;`,
    `  *) echo ${shQuote(`${AGENT_EXECUTABLE}: during a run only ${names} are available`)} >&2; exit 2 ;;`,
    "esac",
    `CODEALMANAC_HOME=${shQuote(stateRoot)}`,
    `TMPDIR=${shQuote(tmpDir)}`,
    "export CODEALMANAC_HOME TMPDIR",
    `exec ${shQuote(cli.node)} ${shQuote(cli.script)} "$@"`,
    "",
  ].join("\n");
}

/** A global install's `codealmanac` is a symlink into the package: record where it leads. */
function realScript(script: string): string {
  const absolute = resolve(script);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
