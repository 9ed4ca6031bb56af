import { realpathSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { resolveExecutable } from "../core/executables.js";
import { expandHome, homeDir, type StatePaths } from "../core/paths.js";
import { HARNESS_KINDS, HARNESSES } from "../harnesses/catalog.js";
import type { AutomationTask } from "./model.js";
import { taskLogPath } from "./task-log.js";

/** What a scheduler starts for a task: a program with its arguments, environment and log file. */
export interface ScheduledCommand {
  /** `<node> <real path of the CLI script> __scheduled <task>`, every path absolute; schedulers add `--every` (`wakeArgv`). */
  argv: string[];
  /** Name → value, in the order they are written (PATH first). */
  env: [string, string][];
  logPath: string;
}

export interface CommandSource {
  env: NodeJS.ProcessEnv;
  paths: StatePaths;
  cliPath: string;
  nodePath: string;
}

/** Variables a scheduled run needs to find the same state and agent logins as the user's shell. */
const CARRIED_VARIABLES = ["CODEALMANAC_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME"] as const;

/** Where agent CLIs and node usually live, for schedulers that start with a bare PATH. */
const USUAL_BIN_DIRS = ["/usr/local/bin", "/opt/homebrew/bin", "/usr/bin", "/bin"];

export function scheduledCommand(source: CommandSource, task: AutomationTask): ScheduledCommand {
  return {
    argv: [resolve(source.nodePath), realScriptPath(source.cliPath), "__scheduled", task],
    env: scheduledEnvironment(source),
    logPath: taskLogPath(source.paths, task),
  };
}

/**
 * The script's real path: `argv[1]` may be an npm bin symlink, which a reinstall can point
 * elsewhere or remove, while the package's own file stays where the schedule names it.
 */
function realScriptPath(cliPath: string): string {
  try {
    return realpathSync(cliPath);
  } catch {
    return resolve(cliPath);
  }
}

function scheduledEnvironment(source: CommandSource): [string, string][] {
  const env: [string, string][] = [["PATH", scheduledPath(source.env, source.nodePath)]];
  for (const name of CARRIED_VARIABLES) {
    const value = name === "CODEALMANAC_HOME" ? carriedStateRoot(source) : source.env[name]?.trim();
    if (value) env.push([name, resolve(expandHome(value, source.env))]);
  }
  return env;
}

function carriedStateRoot(source: CommandSource): string | undefined {
  return source.env.CODEALMANAC_HOME?.trim() ? source.paths.root : undefined;
}

/**
 * A PATH on which a scheduled run finds the agent CLIs and the node their scripts start
 * with: the current PATH's absolute entries, the folders of node and of every agent CLI as
 * they resolve now, then the usual install folders; duplicates dropped, first one kept.
 */
export function scheduledPath(env: NodeJS.ProcessEnv, nodePath: string): string {
  const current = (env.PATH ?? "").split(delimiter);
  const agents = HARNESS_KINDS.map((kind) => resolveExecutable(HARNESSES[kind].executable, env));
  const found = [nodePath, ...agents].filter((path): path is string => path !== null).map((path) => dirname(resolve(path)));
  const usual = [join(homeDir(env), ".local", "bin"), ...USUAL_BIN_DIRS];
  const dirs = [...current, ...found, ...usual].filter((dir) => dir !== "" && isAbsolute(dir));
  return [...new Set(dirs)].join(delimiter);
}
