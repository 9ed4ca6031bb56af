/**
 * Codex adapter: runs `codex exec --json` in the repository with the workspace-write
 * sandbox (writes confined to the repository, `.git` read-only, plus the state folder of
 * CodeAlmanac's own commands) and approvals off, stdin closed, and turns its event stream
 * into harness events and one `HarnessRunResult`.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { isPathLike, resolveExecutable } from "../../core/executables.js";
import { isDirectory } from "../../core/fs.js";
import { homeDir } from "../../core/paths.js";
import { HARNESSES } from "../catalog.js";
import { readCliVersion, runAgentProcess, type AgentProcessExit } from "../agent-process.js";
import { decideEnding, type StreamVerdict } from "../ending.js";
import { conclude, EventSink, failedWith, type Outcome } from "../outcome.js";
import { firstLine, parseJsonLine } from "../text.js";
import type { HarnessEvent } from "../events.js";
import type { AgentCommands, HarnessAdapter, HarnessReadiness, HarnessRunRequest, HarnessRunResult } from "../types.js";
import { atLeast } from "../version.js";
import { codexFailure, CODEX_MIN_VERSION, CODEX_UPGRADE_FIX, notInstalled, tooOld } from "./failures.js";
import { createCodexStreamParser, type CodexStreamState } from "./stream.js";

/** Marks our runs in the rollout's `session_meta`, so sync can tell them from the user's sessions. */
export const CODEX_MARKER = "codealmanac";

/** The first Codex with `exec --thread-source`. */
const THREAD_SOURCE_VERSION = "0.153.0";

/** Linux refuses a single argument over 128 KiB (E2BIG); longer prompts go through stdin. */
const ARGUMENT_LIMIT_BYTES = 100_000;

/** After `turn.completed`, how long `codex exec` may take to exit on its own. */
const DEFAULT_EXIT_AFTER_TURN_MS = 5_000;

export interface CodexAdapterOptions {
  executable?: string;
  exitAfterTurnMs?: number;
  /** The fix for a rejected key in the run's environment: it depends on Codex's model provider. */
  loginFix?: (env: NodeJS.ProcessEnv) => string;
}

/**
 * `-c sandbox_workspace_write.writable_roots=[…]` for the folders CodeAlmanac's own commands
 * write to: the commands the agent runs inherit its sandbox, which otherwise leaves only the
 * repository writable (and `.git` in it read-only). A JSON string is a valid TOML basic string.
 */
export function writableRootsOverride(commands: AgentCommands | undefined): string[] {
  if (!commands || commands.writableRoots.length === 0) return [];
  return ["-c", `sandbox_workspace_write.writable_roots=[${commands.writableRoots.map((root) => JSON.stringify(root)).join(",")}]`];
}

/** The argv after the executable; the prompt is the last argument (`-` when it goes through stdin). */
export function codexArgs(
  request: { cwd: string; model: string; version?: string | null; commands?: AgentCommands },
  promptArgument: string,
): string[] {
  return [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "-C",
    request.cwd,
    "-m",
    request.model,
    "-s",
    "workspace-write",
    "-c",
    'approval_policy="never"',
    // The sandbox leaves /tmp and $TMPDIR writable by default; a wiki run needs neither.
    "-c",
    "sandbox_workspace_write.exclude_slash_tmp=true",
    "-c",
    "sandbox_workspace_write.exclude_tmpdir_env_var=true",
    ...writableRootsOverride(request.commands),
    // Commands run in `bash -lc` by default, and a login shell's /etc/profile resets PATH
    // (Debian's does), which drops the run's own `codealmanac` from the front of it.
    "-c",
    "allow_login_shell=false",
    ...(atLeast(request.version, THREAD_SOURCE_VERSION) ? ["--thread-source", CODEX_MARKER] : []),
    promptArgument,
  ];
}

export function createCodexAdapter(options: CodexAdapterOptions = {}): HarnessAdapter {
  const executable = options.executable ?? HARNESSES.codex.executable;
  const exitAfterTurnMs = options.exitAfterTurnMs ?? DEFAULT_EXIT_AFTER_TURN_MS;
  return {
    kind: "codex",

    async readiness(env: NodeJS.ProcessEnv = process.env): Promise<HarnessReadiness> {
      // No login check: API keys in the environment and custom model providers run fine
      // while `codex login status` says "Not logged in"; a 401 is classified from the run.
      const found = resolveExecutable(executable, env);
      if (!found) {
        return { kind: "codex", available: false, message: notFoundMessage(executable), repair: HARNESSES.codex.install };
      }
      const version = await readCliVersion(found, env);
      if (version && !atLeast(version, CODEX_MIN_VERSION)) {
        return { kind: "codex", available: false, message: tooOld(version).message, repair: CODEX_UPGRADE_FIX, version };
      }
      return { kind: "codex", available: true, message: `codex ${version ?? "(version unknown)"} at ${found}`, version };
    },

    run(request: HarnessRunRequest, onEvent): Promise<HarnessRunResult> {
      return runCodex(executable, exitAfterTurnMs, request, new EventSink(onEvent), options.loginFix);
    },
  };
}

async function runCodex(
  executable: string,
  exitAfterTurnMs: number,
  request: HarnessRunRequest,
  sink: EventSink,
  loginFix: CodexAdapterOptions["loginFix"],
): Promise<HarnessRunResult> {
  const env: NodeJS.ProcessEnv = { ...(request.env ?? process.env), CODEX_INTERNAL_ORIGINATOR_OVERRIDE: CODEX_MARKER };
  const parser = createCodexStreamParser({ cwd: request.cwd, ...(loginFix ? { loginFix: loginFix(env) } : {}) });
  const startedAt = Date.now();

  const finish = (outcome: Outcome) => {
    for (const event of parser.flush()) sink.deliver(event);
    const { threadId, usage } = parser.state;
    return sink.settle(
      conclude(sink, {
        kind: "codex",
        outcome,
        sessionId: threadId,
        transcriptPath: threadId ? findRollout(env, threadId, startedAt) : null,
        usage,
        costUsd: null,
      }),
    );
  };

  if (request.signal?.aborted) return finish({ status: "cancelled", failure: null, outputText: "codex cancelled" });
  if (!isDirectory(request.cwd)) {
    return finish(failedWith(codexFailure("codex.process_failed", `working directory does not exist: ${request.cwd}`)));
  }
  const command = resolveExecutable(executable, env);
  if (!command) return finish(failedWith(notInstalled(notFoundMessage(executable))));

  const viaStdin = Buffer.byteLength(request.prompt, "utf8") > ARGUMENT_LIMIT_BYTES || request.prompt.includes("\0");
  const exit = await runAgentProcess(
    {
      command,
      args: codexArgs(
        { cwd: request.cwd, model: request.model, version: request.cliVersion ?? null, ...(request.commands ? { commands: request.commands } : {}) },
        viaStdin ? "-" : request.prompt,
      ),
      cwd: request.cwd,
      env,
      // `codex exec` reads stdin to its end whenever it is not a terminal: it must be closed.
      stdin: viaStdin ? request.prompt : null,
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
      ...(request.idleTimeoutMs !== undefined ? { idleTimeoutMs: request.idleTimeoutMs } : {}),
      isWaitingNotice: isReconnectNotice,
      ...(request.signal ? { signal: request.signal } : {}),
      exitAfterFinishMs: exitAfterTurnMs,
      onStderr: (chunk) => {
        // A write the sandbox refused leaves no --json event, only this stderr line.
        for (const refused of refusedWrites(chunk)) sink.deliver(refusedWriteEvent(refused, parser.state.threadId));
        request.onStderr?.(chunk);
      },
    },
    (line, control) => {
      for (const event of parser.push(line)) sink.deliver(event);
      if (sink.failed) control.stop("sink");
      if (parser.state.legacy) control.stop("fatal");
      // Retrying a rejected credential only delays the failure.
      if (parser.state.failure?.code === "codex.not_authenticated") control.stop("authentication");
      // Nor does waiting for a network that is not there: Codex would wait forever.
      if (parser.state.failure?.code === "codex.provider_unreachable") control.stop("fatal");
      if (parser.state.completed || parser.state.failure) control.finished();
    },
  );
  return finish(decide(exit, parser.state, request, executable));
}

/** The run's status and failure from what the process did and what its stream said. */
function decide(exit: AgentProcessExit, state: CodexStreamState, request: HarnessRunRequest, executable: string): Outcome {
  return decideEnding(exit, codexVerdict(state, request.cliVersion ?? null), {
    kind: "codex",
    limits: request,
    spawnFailure: (error) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return notInstalled(notFoundMessage(executable));
      return codexFailure("codex.process_failed", `could not start codex: ${firstLine(String(error))}`);
    },
    processFailed: (message) => codexFailure("codex.process_failed", message),
    stderrLine: stderrLine(exit),
    afterSuccess: "after completing the turn",
    withoutSuccess: "without completing the turn",
  });
}

/** What the stream said: a legacy format or a failed turn, a completed turn, or nothing conclusive. */
function codexVerdict(state: CodexStreamState, cliVersion: string | null): StreamVerdict {
  if (state.legacy) return { kind: "failed", outcome: failedWith(tooOld(cliVersion)) };
  if (state.failure) return { kind: "failed", outcome: failedWith(state.failure) };
  if (state.completed) return { kind: "completed", answer: state.answer ?? "" };
  return { kind: "unfinished", authenticationFailure: null };
}

/** The line of stderr that explains a failure: an error line if there is one, skipping notices. */
function stderrLine(exit: AgentProcessExit): string {
  const lines = exit.stderrHead
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^Reading (additional )?(input|prompt) from stdin/i.test(line) && !/^WARNING\b/.test(line));
  return lines.find((line) => /error|fatal|unexpected|not /i.test(line)) ?? lines[0] ?? "";
}

/** `… ERROR codex_core::tools::router: error=patch rejected: writing outside of the project; …` */
function refusedWrites(chunk: string): string[] {
  const found: string[] = [];
  for (const line of chunk.split("\n")) {
    const match = /error=patch rejected: ([^;\n]+)/.exec(line);
    if (match) found.push(match[1]!.trim());
  }
  return found;
}

function refusedWriteEvent(reason: string, threadId: string | null): HarnessEvent {
  const event: HarnessEvent = {
    kind: "warning",
    message: `Codex sandbox refused a write: ${reason}`,
    actor: threadId ? { thread_id: threadId, role: "root", label: "Main", confidence: "provider" } : { role: "unknown", confidence: "unknown" },
  };
  if (threadId) event.provider_session_id = threadId;
  return event;
}

/**
 * `{"type":"error","message":"Reconnecting... 2/5 (…)"}`: Codex retrying a stream the model
 * went silent on (its own stream idle timeout is five minutes, like ours by default). Shown
 * as it comes, but not output: otherwise each retry would re-arm our idle timeout and a model
 * that never answers would hold the run until Codex ran out of retries.
 */
export function isReconnectNotice(line: string): boolean {
  if (!line.includes("Reconnecting")) return false;
  const parsed = parseJsonLine(line);
  return parsed?.type === "error" && typeof parsed.message === "string" && parsed.message.startsWith("Reconnecting...");
}

function notFoundMessage(executable: string): string {
  return isPathLike(executable) ? `codex not found at ${executable}` : `${executable} not found on PATH`;
}

/**
 * The rollout Codex wrote for this thread: `sessions/YYYY/MM/DD/rollout-…-<thread>.jsonl`
 * under CODEX_HOME, in the local-time date folder of the run's start or end.
 */
export function findRollout(env: NodeJS.ProcessEnv, threadId: string, startedAt: number, now = Date.now()): string | null {
  const home = env.CODEX_HOME?.trim() || join(homeDir(env), ".codex");
  const days = new Set<string>();
  for (let at = startedAt - 86_400_000; at <= now + 86_400_000; at += 86_400_000) days.add(dateFolder(at));
  days.add(dateFolder(now));
  for (const day of days) {
    const folder = join(home, "sessions", day);
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    const name = names.find((n) => n.startsWith("rollout-") && (n.endsWith(`${threadId}.jsonl`) || n.includes(`${threadId}_`)));
    if (name) return join(folder, name);
  }
  return null;
}

function dateFolder(at: number): string {
  const date = new Date(at);
  const pad = (n: number) => String(n).padStart(2, "0");
  return join(String(date.getFullYear()), pad(date.getMonth() + 1), pad(date.getDate()));
}
