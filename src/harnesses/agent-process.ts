/**
 * Runs one agent CLI process for an adapter: spawns it in the caller's process group
 * (not detached, so a group kill of the executor reaches it), feeds or closes stdin,
 * splits stdout into lines (`LineSplitter`), and stops it (SIGTERM, then SIGKILL) on
 * timeout, abort, or when the adapter asks (`ChildWatcher`). The adapter interprets the
 * lines; how the run ended is decided from the exit by `decideEnding` (ending.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { runCommand } from "../core/exec.js";
import { afterDelay } from "../core/timers.js";
import { formatVersion, parseVersion } from "./version.js";

/** SIGTERM, then SIGKILL this long after if the process is still there. */
export const KILL_GRACE_MS = 2_000;

/** After the process exits, how long to wait for its stdout to close (a grandchild may hold it). */
const STDIO_CLOSE_GRACE_MS = 1_000;

const STDERR_HEAD_LIMIT = 64 * 1024;

export type StopReason = "timeout" | "idle" | "authentication" | "cancelled" | "sink" | "after_result" | "fatal";

export interface AgentProcessRequest {
  /** Absolute path of the executable. */
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; null closes stdin at once. */
  stdin: string | null;
  timeoutMs?: number;
  /** Stop the agent when its stdout has been silent this long (a model that never answers). */
  idleTimeoutMs?: number;
  /**
   * Lines that do not count as output for the idle timeout: the CLI's own notices that it
   * is still waiting for the model (Claude Code's `api_retry`), which would otherwise keep a
   * model that never answers alive until the CLI gives up.
   */
  isWaitingNotice?: (line: string) => boolean;
  signal?: AbortSignal;
  /** After the adapter calls `finished()`, how long the process may take to exit on its own. */
  exitAfterFinishMs: number;
  onStderr?: (text: string) => void;
}

export interface AgentProcessControl {
  /** Stop the agent now. The first reason given is the one reported. */
  stop(reason: StopReason): void;
  /** The stream said its last word; the process gets `exitAfterFinishMs` to exit on its own. */
  finished(): void;
}

export interface AgentProcessExit {
  /** Set when the process could not be started at all. */
  spawnError: unknown;
  stopReason: StopReason | null;
  /** We signalled it (for any reason). */
  stoppedByUs: boolean;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stderrHead: string;
}

export function runAgentProcess(
  request: AgentProcessRequest,
  onLine: (line: string, control: AgentProcessControl) => void,
): Promise<AgentProcessExit> {
  let child: ChildProcess;
  try {
    child = spawn(request.command, request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [request.stdin === null ? "ignore" : "pipe", "pipe", "pipe"],
      detached: false,
      windowsHide: true,
    });
  } catch (error) {
    return Promise.resolve({ spawnError: error, stopReason: null, stoppedByUs: false, exitCode: null, exitSignal: null, stderrHead: "" });
  }
  return new Promise<AgentProcessExit>((resolvePromise) => {
    new ChildWatcher(child, request, onLine, resolvePromise).start();
  });
}

/** Splits a stream of text chunks into lines; what follows the last newline waits for more. */
export class LineSplitter {
  private buffer = "";

  push(chunk: string): void {
    this.buffer += chunk;
  }

  /** The next complete line (without its newline), or null when none is complete yet. */
  next(): string | null {
    const newline = this.buffer.indexOf("\n");
    if (newline < 0) return null;
    const line = this.buffer.slice(0, newline);
    this.buffer = this.buffer.slice(newline + 1);
    return line;
  }

  /** Everything not yet returned (an unterminated last line, possibly blank), and empties the buffer. */
  rest(): string {
    const rest = this.buffer;
    this.buffer = "";
    return rest;
  }
}

/**
 * Watches one spawned agent: its stdout lines, stderr head, timers (timeout, idle, exit after
 * the stream finished, SIGKILL grace), abort signal and exit, and settles once with the exit.
 */
class ChildWatcher implements AgentProcessControl {
  private settled = false;
  private spawnError: unknown = null;
  private stopReason: StopReason | null = null;
  private terminated = false;
  private exited = false;
  private finishing = false;
  private exitCode: number | null = null;
  private exitSignal: NodeJS.Signals | null = null;
  private stderrHead = "";
  private readonly stdout = new LineSplitter();
  /** Cancels of the armed timers; `afterDelay`, because the run and idle timeouts come from config and may pass Node's timer limit. */
  private readonly timers: (() => void)[] = [];
  private cancelIdle: (() => void) | undefined;
  private readonly onAbort = () => this.stop("cancelled");

  constructor(
    private readonly child: ChildProcess,
    private readonly request: AgentProcessRequest,
    private readonly onLine: (line: string, control: AgentProcessControl) => void,
    private readonly resolve: (exit: AgentProcessExit) => void,
  ) {}

  start(): void {
    const { child, request } = this;
    request.signal?.addEventListener("abort", this.onAbort, { once: true });
    if (request.timeoutMs !== undefined && Number.isFinite(request.timeoutMs) && request.timeoutMs > 0) {
      this.later(request.timeoutMs, () => this.stop("timeout"));
    }
    this.armIdle();
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => this.onStdout(chunk));
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => this.onStderr(chunk));
    if (request.stdin !== null) {
      // The child may exit before reading its prompt; EPIPE here is not our failure.
      child.stdin!.on("error", () => undefined);
      child.stdin!.end(request.stdin, "utf8");
    }
    child.on("error", (error) => this.onError(error));
    child.on("exit", (code, signal) => this.onExit(code, signal));
    child.on("close", (code, signal) => this.onClose(code, signal));
  }

  stop(reason: StopReason): void {
    this.stopReason ??= reason;
    if (this.exited || this.terminated) return;
    this.terminated = true;
    this.child.kill("SIGTERM");
    this.later(KILL_GRACE_MS, () => {
      if (!this.exited) this.child.kill("SIGKILL");
    });
  }

  finished(): void {
    if (this.finishing) return;
    this.finishing = true;
    this.later(this.request.exitAfterFinishMs, () => this.stop("after_result"));
  }

  private later(ms: number, action: () => void): void {
    this.timers.push(afterDelay(ms, action));
  }

  private armIdle(): void {
    const idle = this.request.idleTimeoutMs;
    if (idle === undefined || !(idle > 0) || !Number.isFinite(idle)) return;
    this.cancelIdle?.();
    this.cancelIdle = afterDelay(idle, () => this.stop("idle"));
  }

  private onStdout(chunk: string): void {
    if (this.settled) return;
    this.stdout.push(chunk);
    for (let line = this.stdout.next(); line !== null; line = this.settled ? null : this.stdout.next()) {
      if (!this.request.isWaitingNotice?.(line)) this.armIdle();
      this.onLine(line, this);
    }
  }

  private onStderr(chunk: string): void {
    if (this.stderrHead.length < STDERR_HEAD_LIMIT) this.stderrHead += chunk;
    try {
      this.request.onStderr?.(chunk);
    } catch {
      // A stderr observer must never break the run.
    }
  }

  private onError(error: Error): void {
    // Spawn failures (ENOENT, EACCES) arrive here; kill failures too, which we ignore.
    if (this.child.pid === undefined) {
      this.spawnError = error;
      this.finish();
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.settled) return;
    this.exited = true;
    this.exitCode = code;
    this.exitSignal = signal;
    // stdout normally closes right after; a grandchild holding it must not keep us waiting.
    this.later(STDIO_CLOSE_GRACE_MS, () => this.finish());
  }

  private onClose(code: number | null, signal: NodeJS.Signals | null): void {
    if (!this.exited) {
      this.exited = true;
      this.exitCode = code;
      this.exitSignal = signal;
    }
    this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    const rest = this.stdout.rest();
    if (rest.trim() !== "") this.onLine(rest, this);
    this.settled = true;
    for (const cancel of this.timers) cancel();
    this.cancelIdle?.();
    this.request.signal?.removeEventListener("abort", this.onAbort);
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    const { spawnError, stopReason, terminated: stoppedByUs, exitCode, exitSignal, stderrHead } = this;
    this.resolve({ spawnError, stopReason, stoppedByUs, exitCode, exitSignal, stderrHead });
  }
}

const VERSION_TIMEOUT_MS = 10_000;

/** What `<command> --version` says, as `x.y.z`; null when it says nothing readable. */
export async function readCliVersion(command: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const probe = await runCommand(command, ["--version"], { env, timeoutMs: VERSION_TIMEOUT_MS });
  const parsed = parseVersion(probe.stdout);
  return parsed ? formatVersion(parsed) : null;
}
