/**
 * Claude Code adapter: runs `claude -p --output-format stream-json --verbose …` as a
 * child of the executor (in its process group, so a group kill reaches it) and turns
 * its stream into harness events and one `HarnessRunResult`. Writes outside the
 * repository are blocked by Claude Code's own permission layer (see `claudeArgs`); Bash may
 * run read-only git and the CodeAlmanac commands the prompt names, nothing else.
 */
import { realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { isPathLike, resolveExecutable } from "../../core/executables.js";
import { isDirectory } from "../../core/fs.js";
import { homeDir } from "../../core/paths.js";
import type { HarnessUsage } from "../events.js";
import type { AgentCommands, HarnessAdapter, HarnessFailure, HarnessReadiness, HarnessRunRequest, HarnessRunResult } from "../types.js";
import { readCliVersion, runAgentProcess, type AgentProcessExit } from "../agent-process.js";
import { decideEnding, type StreamVerdict } from "../ending.js";
import { conclude, EventSink, failedWith, type Outcome } from "../outcome.js";
import { HARNESSES } from "../catalog.js";
import { firstLine, parseJsonLine } from "../text.js";
import { atLeast } from "../version.js";
import { classifyClaudeResult, createClaudeStreamParser, type ClaudeResultLine } from "./stream.js";

/** The tools a run may use without asking; Bash only for read-only git (and, per run, `commandRules`). */
export const CLAUDE_ALLOWED_TOOLS =
  "Read,Write,Edit,MultiEdit,Glob,Grep,Bash(git status:*),Bash(git diff:*),Bash(git log:*)";

/**
 * Before Claude Code had the setting below, a bare `Write`/`Edit` rule allowed writes
 * anywhere; without those rules `acceptEdits` still accepts edits, but only inside the
 * working directory.
 */
const CLAUDE_ALLOWED_TOOLS_CONFINED = "Read,Glob,Grep,Bash(git status:*),Bash(git diff:*),Bash(git log:*)";

/** The first Claude Code version with `permissions.blockWritesOutsideWorkingDirectories`. */
export const CLAUDE_WRITE_BOUNDARY_VERSION = "2.1.314";

export const CLAUDE_WRITE_BOUNDARY_SETTINGS = JSON.stringify({ permissions: { blockWritesOutsideWorkingDirectories: true } });

/** After the `result` line, how long `claude -p` may take to exit on its own before it is stopped. */
const DEFAULT_EXIT_AFTER_RESULT_MS = 5_000;

export interface ClaudeAdapterOptions {
  /** Executable name looked up on PATH, or a path. Default `claude`. */
  executable?: string;
  /** How long the CLI may linger after its `result` line before it is stopped. Default 5 s. */
  exitAfterResultMs?: number;
}

/**
 * One Bash rule per CodeAlmanac command the prompt names: `Bash(codealmanac validate:*)` lets
 * `codealmanac validate` with any arguments through, and nothing else. Claude Code checks each
 * part of a compound command on its own, so `codealmanac validate && rm x` still asks (and
 * `-p` refuses what would ask).
 */
export function commandRules(commands: AgentCommands | undefined): string[] {
  if (!commands) return [];
  return commands.subcommands.map((sub) => `Bash(${commands.executable} ${sub}:*)`);
}

/** The argv after the executable; `version` is what `claude --version` printed (null: unknown). */
export function claudeArgs(model: string, sessionId: string, version: string | null = null, commands?: AgentCommands): string[] {
  const bounded = atLeast(version, CLAUDE_WRITE_BOUNDARY_VERSION);
  return [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    [bounded ? CLAUDE_ALLOWED_TOOLS : CLAUDE_ALLOWED_TOOLS_CONFINED, ...commandRules(commands)].join(","),
    "--model",
    model,
    "--session-id",
    sessionId,
    ...(bounded ? ["--settings", CLAUDE_WRITE_BOUNDARY_SETTINGS] : []),
  ];
}

export function createClaudeAdapter(options: ClaudeAdapterOptions = {}): HarnessAdapter {
  const executable = options.executable ?? HARNESSES.claude.executable;
  const exitAfterResultMs = options.exitAfterResultMs ?? DEFAULT_EXIT_AFTER_RESULT_MS;

  return {
    kind: "claude",

    async readiness(env: NodeJS.ProcessEnv = process.env): Promise<HarnessReadiness> {
      // Authentication is never checked here: API keys, base URLs and stored logins all
      // work, and a 401 from the run itself is classified with its fix.
      const found = resolveExecutable(executable, env);
      if (!found) {
        return { kind: "claude", available: false, message: notFoundMessage(executable), repair: HARNESSES.claude.install };
      }
      const version = await readCliVersion(found, childEnv(env));
      return { kind: "claude", available: true, message: `claude ${version ?? "(version unknown)"} at ${found}`, version };
    },

    run(request: HarnessRunRequest, onEvent): Promise<HarnessRunResult> {
      return runClaude(executable, exitAfterResultMs, request, new EventSink(onEvent));
    },
  };
}

// ---------------------------------------------------------------------------
// One run

async function runClaude(
  executable: string,
  exitAfterResultMs: number,
  request: HarnessRunRequest,
  sink: EventSink,
): Promise<HarnessRunResult> {
  const baseEnv = request.env ?? process.env;
  const env = withStreamIdleTimeout(childEnv(baseEnv), request.idleTimeoutMs);
  const parser = createClaudeStreamParser({ cwd: request.cwd });

  const finish = (outcome: Outcome, result: ClaudeResultLine | null) => {
    const { sessionId } = parser.finish();
    return sink.settle(
      conclude(sink, {
        kind: "claude",
        outcome,
        sessionId,
        transcriptPath: sessionId ? claudeTranscriptPath(request.cwd, sessionId, baseEnv) : null,
        usage: usageFrom(result),
        costUsd: result?.total_cost_usd ?? null,
      }),
    );
  };

  // Failures found before anything is spawned.
  if (request.signal?.aborted) return finish({ status: "cancelled", failure: null, outputText: "claude cancelled" }, null);
  if (!isDirectory(request.cwd)) {
    return finish(failedWith(claudeFailure("claude.process_failed", `working directory does not exist: ${request.cwd}`)), null);
  }
  const command = resolveExecutable(executable, env);
  if (!command) return finish(failedWith(notInstalled(executable)), null);

  const exit = await runAgentProcess(
    {
      command,
      args: claudeArgs(request.model, request.sessionId, request.cliVersion ?? null, request.commands),
      cwd: request.cwd,
      env,
      stdin: request.prompt,
      ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
      ...(request.idleTimeoutMs !== undefined ? { idleTimeoutMs: request.idleTimeoutMs } : {}),
      isWaitingNotice: isApiRetryLine,
      ...(request.signal ? { signal: request.signal } : {}),
      exitAfterFinishMs: exitAfterResultMs,
      ...(request.onStderr ? { onStderr: request.onStderr } : {}),
    },
    (line, control) => {
      for (const event of parser.push(line)) sink.deliver(event);
      if (sink.failed) control.stop("sink");
      if (parser.authenticationFailure) control.stop("authentication");
      if (parser.finish().result) control.finished();
    },
  );
  const { result } = parser.finish();
  return finish(decide(exit, result, request, executable, parser.authenticationFailure), result);
}

/** The run's status and failure from what the process did and what its stream said. */
function decide(
  exit: AgentProcessExit,
  result: ClaudeResultLine | null,
  request: Pick<HarnessRunRequest, "timeoutMs" | "idleTimeoutMs">,
  executable: string,
  authenticationFailure: HarnessFailure | null,
): Outcome {
  return decideEnding(exit, claudeVerdict(result, authenticationFailure), {
    kind: "claude",
    limits: request,
    spawnFailure: (error) => spawnFailure(executable, error),
    processFailed: (message) => claudeFailure("claude.process_failed", message),
    stderrLine: firstLine(exit.stderrHead),
    afterSuccess: "after reporting success",
    withoutSuccess: "without a result",
  });
}

/** What the stream said: the `result` line, classified, or nothing conclusive. */
function claudeVerdict(result: ClaudeResultLine | null, authenticationFailure: HarnessFailure | null): StreamVerdict {
  if (!result) return { kind: "unfinished", authenticationFailure };
  const failure = classifyClaudeResult(result);
  if (failure) return { kind: "failed", outcome: { status: "failed", failure, outputText: result.result?.trim() || failure.message } };
  return { kind: "completed", answer: result.result ?? "" };
}

function claudeFailure(code: string, message: string, extra: { fix?: string } = {}): HarnessFailure {
  return { provider: "claude", code, message, ...extra };
}

function notInstalled(executable: string): HarnessFailure {
  return claudeFailure("claude.not_installed", notFoundMessage(executable), { fix: HARNESSES.claude.install });
}

function spawnFailure(executable: string, error: unknown): HarnessFailure {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === "ENOENT") return notInstalled(executable);
  const message = error instanceof Error ? error.message : String(error);
  return claudeFailure("claude.process_failed", `could not start claude: ${firstLine(message) || "unknown error"}`);
}

function notFoundMessage(executable: string): string {
  return isPathLike(executable) ? `claude not found at ${executable}` : `${executable} not found on PATH`;
}

/** The caller's environment, marked as ours, minus the nesting guard a parent Claude session sets. */
function childEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, CLAUDE_CODE_ENTRYPOINT: "codealmanac" };
  // Claude Code ≥ 2.1.39 refuses to start when CLAUDECODE is set (it thinks it is nested),
  // which happens whenever `ca` itself was started from a Claude Code shell.
  delete env.CLAUDECODE;
  return env;
}

/**
 * `system/api_retry`: Claude Code retrying a request the model did not answer (2.1.332
 * prints one about every six minutes while an API that never sends headers keeps it
 * waiting, ten times over). Not output: the idle timeout counts on through it.
 */
export function isApiRetryLine(line: string): boolean {
  if (!line.includes("api_retry")) return false;
  const parsed = parseJsonLine(line);
  return parsed?.type === "system" && parsed.subtype === "api_retry";
}

/** Claude Code 2.1.332 raises its stream idle timeout to CLAUDE_STREAM_IDLE_TIMEOUT_MS, up to 30 minutes. */
export const CLAUDE_STREAM_IDLE_LIMIT_MS = 30 * 60_000;
const STREAM_IDLE_MARGIN_MS = 60_000;

/**
 * Claude Code has a stream idle timeout of its own: five minutes without a chunk from the
 * model, counted from its request, which it sends a moment after its first line (so it
 * would race ours, counted from that line). When it fires it retries without streaming,
 * or fails, and prints nothing meanwhile. Unless the user set it, it is moved a minute past
 * `runs.idle_timeout`, so a silent model is stopped once, by our idle timeout, with its
 * message. Past Claude Code's own limit its timeout fires first; that failure is
 * classified as a timeout too (classifyClaudeFailure).
 */
export function withStreamIdleTimeout(env: NodeJS.ProcessEnv, idleTimeoutMs: number | undefined): NodeJS.ProcessEnv {
  if (env.CLAUDE_STREAM_IDLE_TIMEOUT_MS !== undefined) return env;
  if (idleTimeoutMs === undefined || !Number.isFinite(idleTimeoutMs) || idleTimeoutMs <= 0) return env;
  const ms = Math.min(Math.ceil(idleTimeoutMs) + STREAM_IDLE_MARGIN_MS, CLAUDE_STREAM_IDLE_LIMIT_MS);
  return { ...env, CLAUDE_STREAM_IDLE_TIMEOUT_MS: String(ms) };
}

function usageFrom(result: ClaudeResultLine | null): HarnessUsage | null {
  const raw = result?.usage;
  if (!raw) return null;
  const usage: HarnessUsage = {};
  if (raw.input_tokens !== undefined) usage.input_tokens = raw.input_tokens;
  if (raw.cache_read_input_tokens !== undefined) usage.cached_input_tokens = raw.cache_read_input_tokens;
  if (raw.output_tokens !== undefined) usage.output_tokens = raw.output_tokens;
  if (raw.input_tokens !== undefined && raw.output_tokens !== undefined) {
    usage.total_tokens = raw.input_tokens + raw.output_tokens;
  }
  return usage;
}

// ---------------------------------------------------------------------------
// Transcript location

const FOLDER_NAME_LIMIT = 200;

/**
 * Claude's project folder name for a working directory: every character other than
 * `A–Z a–z 0–9` becomes `-`; names longer than 200 characters keep the first 200
 * and get `-` plus a base-36 hash of the whole path appended.
 *
 * The hash here is a deterministic 32-bit string hash of our own choosing; it may
 * not match the one Claude uses, so folders of very long paths may be mispredicted.
 */
export function encodeClaudeProjectFolder(cwd: string): string {
  const encoded = cwd.replace(/[^A-Za-z0-9]/g, "-");
  if (encoded.length <= FOLDER_NAME_LIMIT) return encoded;
  return `${encoded.slice(0, FOLDER_NAME_LIMIT)}-${stringHash(cwd).toString(36)}`;
}

function stringHash(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index += 1) {
    hash = (Math.imul(hash, 31) + text.charCodeAt(index)) | 0;
  }
  return Math.abs(hash);
}

/** `<CLAUDE_CONFIG_DIR or ~/.claude>/projects/<encoded realpath(cwd)>/<session>.jsonl`. */
export function claudeTranscriptPath(cwd: string, sessionId: string, env: NodeJS.ProcessEnv = process.env): string {
  const configDir = env.CLAUDE_CONFIG_DIR?.trim() || join(homeDir(env), ".claude");
  let real: string;
  try {
    real = realpathSync(cwd);
  } catch {
    real = resolve(cwd);
  }
  return join(configDir, "projects", encodeClaudeProjectFolder(real), `${sessionId}.jsonl`);
}
