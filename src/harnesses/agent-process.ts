/**
 * Runs one agent CLI process for an adapter: spawns it in the caller's process group
 * (not detached, so a group kill of the executor reaches it), feeds or closes stdin,
 * splits stdout into lines, and stops it (SIGTERM, then SIGKILL) on timeout, abort, or
 * when the adapter asks. The adapter interprets the lines and the exit.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { runCommand } from "../core/exec.js";
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
  return new Promise<AgentProcessExit>((resolvePromise) => {
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
      resolvePromise({ spawnError: error, stopReason: null, stoppedByUs: false, exitCode: null, exitSignal: null, stderrHead: "" });
      return;
    }

    let settled = false;
    let spawnError: unknown = null;
    let stopReason: StopReason | null = null;
    let terminated = false;
    let exited = false;
    let finishing = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let stdoutBuffer = "";
    let stderrHead = "";
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, action: () => void) => timers.push(setTimeout(action, ms));

    const control: AgentProcessControl = {
      stop(reason) {
        stopReason ??= reason;
        if (exited || terminated) return;
        terminated = true;
        child.kill("SIGTERM");
        later(KILL_GRACE_MS, () => {
          if (!exited) child.kill("SIGKILL");
        });
      },
      finished() {
        if (finishing) return;
        finishing = true;
        later(request.exitAfterFinishMs, () => control.stop("after_result"));
      },
    };

    const onAbort = () => control.stop("cancelled");
    request.signal?.addEventListener("abort", onAbort, { once: true });
    if (request.timeoutMs !== undefined && Number.isFinite(request.timeoutMs) && request.timeoutMs > 0) {
      later(request.timeoutMs, () => control.stop("timeout"));
    }

    let idleTimer: NodeJS.Timeout | undefined;
    const idle = request.idleTimeoutMs;
    const armIdle = () => {
      if (idle === undefined || !(idle > 0) || !Number.isFinite(idle)) return;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => control.stop("idle"), idle);
    };
    armIdle();

    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      if (settled) return;
      armIdle();
      stdoutBuffer += chunk;
      let newline = stdoutBuffer.indexOf("\n");
      while (newline >= 0 && !settled) {
        const line = stdoutBuffer.slice(0, newline);
        stdoutBuffer = stdoutBuffer.slice(newline + 1);
        onLine(line, control);
        newline = stdoutBuffer.indexOf("\n");
      }
    });

    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      if (stderrHead.length < STDERR_HEAD_LIMIT) stderrHead += chunk;
      try {
        request.onStderr?.(chunk);
      } catch {
        // A stderr observer must never break the run.
      }
    });

    if (request.stdin !== null) {
      // The child may exit before reading its prompt; EPIPE here is not our failure.
      child.stdin!.on("error", () => undefined);
      child.stdin!.end(request.stdin, "utf8");
    }

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
      if (stdoutBuffer.trim() !== "") onLine(stdoutBuffer, control);
      stdoutBuffer = "";
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      if (idleTimer) clearTimeout(idleTimer);
      request.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolvePromise({ spawnError, stopReason, stoppedByUs: terminated, exitCode, exitSignal, stderrHead });
    }
  });
}

const VERSION_TIMEOUT_MS = 10_000;

/** What `<command> --version` says, as `x.y.z`; null when it says nothing readable. */
export async function readCliVersion(command: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const probe = await runCommand(command, ["--version"], { env, timeoutMs: VERSION_TIMEOUT_MS });
  const parsed = parseVersion(probe.stdout);
  return parsed ? formatVersion(parsed) : null;
}
