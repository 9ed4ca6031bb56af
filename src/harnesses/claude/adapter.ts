/**
 * Claude Code adapter: runs `claude -p --output-format stream-json --verbose …`
 * (decisions.md §19) as a child of the caller — in the caller's process group, so
 * a group kill of the executor reaches it (decisions.md §17) — and turns its
 * stream into harness events and one `HarnessRunResult`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { isDirectory } from "../../core/fs.js";
import { homeDir } from "../../core/paths.js";
import type { HarnessEvent, HarnessUsage } from "../events.js";
import type {
  HarnessAdapter,
  HarnessFailure,
  HarnessReadiness,
  HarnessRunRequest,
  HarnessRunResult,
  HarnessRunStatus,
} from "../types.js";
import { classifyClaudeResult, createClaudeStreamParser, type ClaudeResultLine } from "./stream.js";

export const CLAUDE_ALLOWED_TOOLS =
  "Read,Write,Edit,MultiEdit,Glob,Grep,Bash(git status:*),Bash(git diff:*),Bash(git log:*)";

export const CLAUDE_INSTALL_REPAIR =
  "Install Claude Code (npm install -g @anthropic-ai/claude-code) or use --using codex";

/** SIGTERM, then SIGKILL this long after if the process is still there. */
export const KILL_GRACE_MS = 2_000;

/** After the `result` line, how long `claude -p` may take to exit on its own before it is stopped. */
const DEFAULT_EXIT_AFTER_RESULT_MS = 5_000;

/** After the process exits, how long to wait for its stdout to close (a grandchild may hold it). */
const STDIO_CLOSE_GRACE_MS = 1_000;

const STDERR_HEAD_LIMIT = 64 * 1024;
const SUMMARY_LIMIT = 200;

export interface ClaudeAdapterOptions {
  /** Executable name looked up on PATH, or a path. Default `claude`. */
  executable?: string;
  /** How long the CLI may linger after its `result` line before it is stopped. Default 5 s. */
  exitAfterResultMs?: number;
}

/** The argv after the executable, exactly as decisions.md §19 prescribes. */
export function claudeArgs(model: string, sessionId: string): string[] {
  return [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--permission-mode",
    "acceptEdits",
    "--allowedTools",
    CLAUDE_ALLOWED_TOOLS,
    "--model",
    model,
    "--session-id",
    sessionId,
  ];
}

export function createClaudeAdapter(options: ClaudeAdapterOptions = {}): HarnessAdapter {
  const executable = options.executable ?? "claude";
  const exitAfterResultMs = options.exitAfterResultMs ?? DEFAULT_EXIT_AFTER_RESULT_MS;

  return {
    kind: "claude",

    async readiness(env: NodeJS.ProcessEnv = process.env): Promise<HarnessReadiness> {
      // Deliberately spawns nothing: auth problems surface from the run itself.
      const found = resolveExecutable(executable, env);
      if (!found) {
        return { kind: "claude", available: false, message: notFoundMessage(executable), repair: CLAUDE_INSTALL_REPAIR };
      }
      return { kind: "claude", available: true, message: `claude found at ${found}` };
    },

    run(request: HarnessRunRequest, onEvent: (event: HarnessEvent) => void): Promise<HarnessRunResult> {
      return runClaude(executable, exitAfterResultMs, request, onEvent);
    },
  };
}

// ---------------------------------------------------------------------------
// One run

type StopReason = "timeout" | "authentication" | "cancelled" | "sink" | "after_result";

interface Outcome {
  status: HarnessRunStatus;
  failure: HarnessFailure | null;
  outputText: string;
}

function runClaude(
  executable: string,
  exitAfterResultMs: number,
  request: HarnessRunRequest,
  onEvent: (event: HarnessEvent) => void,
): Promise<HarnessRunResult> {
  const env = childEnv(request.env ?? process.env);
  const parser = createClaudeStreamParser({ cwd: request.cwd });
  const events: HarnessEvent[] = [];
  let sinkError: { error: unknown } | null = null;

  function deliver(event: HarnessEvent): void {
    events.push(event);
    if (sinkError) return;
    try {
      onEvent(event);
    } catch (error) {
      sinkError = { error };
    }
  }

  /** Appends the single terminal `done`, delivers it, and builds the result. */
  function conclude(outcome: Outcome, result: ClaudeResultLine | null): HarnessRunResult {
    const { sessionId } = parser.finish();
    const outputText = outcome.outputText.trim() || outcome.failure?.message || `claude ${outcome.status}`;
    const usage = usageFrom(result);
    const headline = firstLine(outputText);
    const done: HarnessEvent = {
      kind: "done",
      message: clip(`claude ${outcome.status}${headline ? `: ${headline}` : ""}`, 500),
      status: outcome.status,
      actor: sessionId
        ? { thread_id: sessionId, role: "root", label: "Main", confidence: "provider" }
        : { role: "unknown", label: "Unknown actor", confidence: "unknown" },
    };
    if (sessionId) done.provider_session_id = sessionId;
    if (outcome.failure) done.failure = { ...outcome.failure };
    if (usage) done.usage = usage;
    deliver(done);
    return {
      kind: "claude",
      status: outcome.status,
      outputText,
      summary: outcome.status === "succeeded" && headline ? clip(headline, SUMMARY_LIMIT) : null,
      failure: outcome.failure,
      sessionId,
      transcriptPath: sessionId ? claudeTranscriptPath(request.cwd, sessionId, request.env ?? process.env) : null,
      costUsd: result?.total_cost_usd ?? null,
      usage,
      events,
    };
  }

  function settle(outcome: Outcome, result: ClaudeResultLine | null): Promise<HarnessRunResult> {
    const built = conclude(outcome, result);
    return sinkError ? Promise.reject(sinkError.error) : Promise.resolve(built);
  }

  // Failures found before anything is spawned.
  if (request.signal?.aborted) {
    return settle({ status: "cancelled", failure: null, outputText: "claude cancelled" }, null);
  }
  if (!isDirectory(request.cwd)) {
    const failure = claudeFailure("claude.process_failed", `working directory does not exist: ${request.cwd}`);
    return settle({ status: "failed", failure, outputText: failure.message }, null);
  }
  const command = resolveExecutable(executable, env);
  if (!command) {
    const failure = notInstalled(executable);
    return settle({ status: "failed", failure, outputText: failure.message }, null);
  }

  return new Promise<HarnessRunResult>((resolvePromise, rejectPromise) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(command, claudeArgs(request.model, request.sessionId), {
        cwd: request.cwd,
        env,
        stdio: ["pipe", "pipe", "pipe"],
        // Not detached: the agent stays in the caller's process group (decisions.md §17).
        detached: false,
        windowsHide: true,
      });
    } catch (error) {
      const failure = spawnFailure(executable, error);
      settle({ status: "failed", failure, outputText: failure.message }, null).then(resolvePromise, rejectPromise);
      return;
    }

    let settled = false;
    let spawnError: unknown = null;
    let stopReason: StopReason | null = null;
    let terminated = false;
    let exited = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let resultSeen = false;
    let stdoutBuffer = "";
    let stderrHead = "";
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, action: () => void) => timers.push(setTimeout(action, ms));

    function stop(reason: StopReason): void {
      stopReason ??= reason;
      if (exited || terminated) return;
      terminated = true;
      child.kill("SIGTERM");
      later(KILL_GRACE_MS, () => {
        if (!exited) child.kill("SIGKILL");
      });
    }

    function handleLine(line: string): void {
      for (const event of parser.push(line)) deliver(event);
      if (sinkError) stop("sink");
      if (parser.authenticationFailure) stop("authentication");
      if (!resultSeen && parser.finish().result) {
        resultSeen = true;
        later(exitAfterResultMs, () => stop("after_result"));
      }
    }

    const onAbort = () => stop("cancelled");
    request.signal?.addEventListener("abort", onAbort, { once: true });
    if (request.timeoutMs !== undefined && Number.isFinite(request.timeoutMs) && request.timeoutMs > 0) {
      later(request.timeoutMs, () => stop("timeout"));
    }

    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      if (settled) return;
      stdoutBuffer += chunk;
      let newline = stdoutBuffer.indexOf("\n");
      while (newline >= 0 && !settled) {
        const line = stdoutBuffer.slice(0, newline);
        stdoutBuffer = stdoutBuffer.slice(newline + 1);
        handleLine(line);
        newline = stdoutBuffer.indexOf("\n");
      }
    });

    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderrHead.length < STDERR_HEAD_LIMIT) stderrHead += chunk;
      try {
        request.onStderr?.(chunk);
      } catch {
        // A stderr observer must never break the run.
      }
    });

    // The child may exit before reading its prompt; EPIPE here is not our failure.
    child.stdin.on("error", () => {});
    child.stdin.end(request.prompt, "utf8");

    child.on("error", (error) => {
      // Spawn failures (ENOENT, EACCES) arrive here; kill failures too, which we ignore.
      if (child.pid === undefined) {
        spawnError = error;
        finish();
      }
    });

    child.on("exit", (code, signal) => {
      if (settled) return;
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // stdout normally closes right after; a grandchild holding it must not keep us waiting.
      later(STDIO_CLOSE_GRACE_MS, () => finish());
    });

    child.on("close", (code, signal) => {
      if (!exited) {
        exited = true;
        exitCode = code;
        exitSignal = signal;
      }
      finish();
    });

    function finish(): void {
      if (settled) return;
      if (stdoutBuffer.trim() !== "") handleLine(stdoutBuffer);
      stdoutBuffer = "";
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
      child.stdout.destroy();
      child.stderr.destroy();

      const { result } = parser.finish();
      const outcome = spawnError
        ? failedWith(spawnFailure(executable, spawnError))
        : decide({
            result,
            stopReason,
            stoppedByUs: terminated,
            exitCode,
            exitSignal,
            stderrLine: firstLine(stderrHead),
            timeoutMs: request.timeoutMs,
            authenticationFailure: parser.authenticationFailure,
          });
      settle(outcome, result).then(resolvePromise, rejectPromise);
    }
  });
}

interface Facts {
  result: ClaudeResultLine | null;
  stopReason: StopReason | null;
  stoppedByUs: boolean;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stderrLine: string;
  timeoutMs: number | undefined;
  authenticationFailure: HarnessFailure | null;
}

/** The run's status and failure from what the process did (harnesses.md §6.1). */
function decide(facts: Facts): Outcome {
  const { result } = facts;
  const exitText = facts.exitCode !== null ? String(facts.exitCode) : (facts.exitSignal ?? "unknown");

  if (result) {
    const failure = classifyClaudeResult(result);
    if (failure) return { status: "failed", failure, outputText: result.result?.trim() || failure.message };
    // A success result counts when the CLI exited cleanly, or when we stopped it after the result.
    if (facts.exitCode === 0 || facts.stoppedByUs) {
      return { status: "succeeded", failure: null, outputText: result.result ?? "" };
    }
    return failedWith(
      claudeFailure(
        "claude.process_failed",
        facts.stderrLine || `claude exited ${exitText} after reporting success`,
      ),
    );
  }

  switch (facts.stopReason) {
    case "cancelled":
      return { status: "cancelled", failure: null, outputText: "claude cancelled" };
    case "timeout":
      return failedWith(
        claudeFailure("timeout", `claude timed out after ${formatDuration(facts.timeoutMs ?? 0)}`, {
          fix: "Raise runs.timeout or give the run less to do",
        }),
      );
    case "authentication":
      if (facts.authenticationFailure) return failedWith(facts.authenticationFailure);
      break;
    default:
      break;
  }
  return failedWith(
    claudeFailure("claude.process_failed", facts.stderrLine || `claude exited ${exitText} without a result`),
  );
}

function failedWith(failure: HarnessFailure): Outcome {
  return { status: "failed", failure, outputText: failure.message };
}

function claudeFailure(code: string, message: string, extra: { fix?: string } = {}): HarnessFailure {
  return { provider: "claude", code, message, ...extra };
}

function notInstalled(executable: string): HarnessFailure {
  return claudeFailure("claude.not_installed", notFoundMessage(executable), { fix: CLAUDE_INSTALL_REPAIR });
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
// Executable lookup (no spawning)

function isPathLike(executable: string): boolean {
  return executable.includes("/") || executable.includes("\\");
}

/** Absolute path of an executable file, looked up on `env.PATH` unless already a path. */
export function resolveExecutable(executable: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (isPathLike(executable)) {
    const candidate = resolve(executable);
    return isExecutableFile(candidate) ? candidate : null;
  }
  const dirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter((dir) => dir !== "");
  const extensions =
    process.platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT;.COM").split(";")] : [""];
  for (const dir of dirs) {
    if (!isAbsolute(dir)) continue; // a relative PATH entry would depend on the cwd
    for (const extension of extensions) {
      const candidate = join(dir, executable + extension);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}


// ---------------------------------------------------------------------------
// Transcript location (agent-cli-formats.md §3.1–3.2)

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

// ---------------------------------------------------------------------------
// Text helpers

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "") ?? ""
  );
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

function formatDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const seconds = ms / 1_000;
  if (seconds < 120) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  const minutes = seconds / 60;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)} min`;
}
