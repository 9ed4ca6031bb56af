import { commandFailureLine, gitEnvironment, type CommandResult } from "../core/command.js";
import type { SourceTools } from "./context.js";

export type ToolOutcome = { ok: true; stdout: string; truncated: boolean } | { ok: false; reason: string; result?: CommandResult };

export interface ToolCall {
  cwd: string;
  /** Defaults to the command timeout of the limits. */
  timeoutMs?: number;
  maxOutputBytes?: number;
}

/** Prompts, pagers, colour and update notices would all corrupt captured output. */
export function ghEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...gitEnvironment(env), GH_PROMPT_DISABLED: "1", GH_PAGER: "", GH_NO_UPDATE_NOTIFIER: "1", NO_COLOR: "1", CLICOLOR: "0" };
}

/** Runs `git <args>`; a failure names the subcommand and git's first error line. */
export function runGit(tools: SourceTools, args: string[], call: ToolCall): Promise<ToolOutcome> {
  const fullArgs = ["-c", "core.quotePath=false", "-c", "color.ui=false", ...args];
  return runTool(tools, "git", fullArgs, `git ${args[0] ?? ""}`, call, gitEnvironment(tools.env));
}

/** Runs `gh <args>`; a failure names the subcommand (`gh pr view`) and gh's first error line. */
export function runGh(tools: SourceTools, args: string[], call: ToolCall): Promise<ToolOutcome> {
  const label = `gh ${args.slice(0, args[0] === "api" ? 1 : 2).join(" ")}`;
  return runTool(tools, "gh", args, label, call, ghEnv(tools.env));
}

async function runTool(
  tools: SourceTools,
  file: string,
  args: string[],
  label: string,
  call: ToolCall,
  env: NodeJS.ProcessEnv,
): Promise<ToolOutcome> {
  const timeoutMs = call.timeoutMs ?? tools.limits.commandTimeoutMs;
  const result = await tools.run(file, args, {
    cwd: call.cwd,
    env,
    timeoutMs,
    maxOutputBytes: call.maxOutputBytes ?? tools.limits.commandOutputBytes,
  });
  if (result.notFound) return { ok: false, reason: `${file} not found on PATH`, result };
  if (result.timedOut) return { ok: false, reason: `${label} timed out after ${formatSeconds(timeoutMs)}`, result };
  if (result.code !== 0) {
    const line = commandFailureLine(result);
    return { ok: false, reason: line ? `${label} failed: ${line}` : `${label} failed with exit code ${result.code ?? result.signal}`, result };
  }
  return { ok: true, stdout: result.stdout, truncated: result.truncated };
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
