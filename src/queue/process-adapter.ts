import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import { backendFor, processesOn } from "../core/processes/index.js";
import { encodeDispatch, type ExitInfo, type ProcessControl, type Spawner, type StandbyExecutor } from "./ports.js";

/** The operating system behind the queue's ProcessControl port: /proc on Linux, `ps` on macOS. */
export function createProcessControl(platform: NodeJS.Platform = process.platform): ProcessControl {
  const os = processesOn(backendFor(platform));
  return {
    self: () => os.currentProcessIdentity(),
    groupOf: (pid) => os.groupOf(pid),
    startTimeOf: (pid) => os.readProcessStartTime(pid),
    probe: (id) => os.probeProcess(id),
    stopExecution: (target, graceMs) => os.stopExecution(target, { graceMs }),
    killLeftovers: (target) => os.killExecutionLeftovers(target),
    waitForExit: (id, timeoutMs) => os.waitForExit(id, timeoutMs, 100),
  };
}

export interface SpawnerOptions {
  /** The CLI entry (dist/bin.js) that worker and executor processes run. */
  binPath: string;
  logsDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Detached children: each leads its own process group and session, so a worker or an
 * executor survives the command that started it, and an executor's group holds exactly
 * its own agent. Output goes to log files, never to /dev/null.
 */
export function createSpawner(options: SpawnerOptions): Spawner {
  const start = (args: string[], logFile: string, stdin: "ignore" | "pipe") => startDetached(options, args, logFile, stdin);
  const workerLog = join(options.logsDir, "worker.log");
  return {
    spawnWorker() {
      mkdirSync(options.cwd, { recursive: true });
      const child = start(["__run-worker"], workerLog, "ignore");
      child.unref();
      return child.pid ?? -1;
    },
    spawnExecutor(): StandbyExecutor {
      // Until it is dispatched, a standby's output (if any) lands in the worker log;
      // after that it writes to its run's log file itself.
      const child = start(["__run-executor", "--standby"], workerLog, "pipe");
      let gone = false;
      const exited = new Promise<ExitInfo>((resolve) => {
        child.once("exit", (code, signal) => {
          gone = true;
          resolve({ code, signal });
        });
        child.once("error", () => {
          gone = true;
          resolve({ code: null, signal: null });
        });
      });
      child.stdin?.on("error", () => undefined); // EPIPE from a standby that died is handled by `gone`
      return {
        pid: child.pid ?? -1,
        exited,
        dispatch(request) {
          if (gone || !child.stdin || child.stdin.destroyed) return false;
          child.stdin.end(encodeDispatch(request));
          return true;
        },
        dismiss() {
          child.stdin?.end();
        },
      };
    },
  };
}

/** A detached CLI command (the session-end hook's `sync --session`) with its output in `logFile`; returns its pid. */
export function spawnDetachedCommand(options: SpawnerOptions, args: string[], logFile: string): number {
  mkdirSync(options.cwd, { recursive: true });
  const child = startDetached(options, args, logFile, "ignore");
  child.unref();
  return child.pid ?? -1;
}

function startDetached(options: SpawnerOptions, args: string[], logFile: string, stdin: "ignore" | "pipe") {
  mkdirSync(dirname(logFile), { recursive: true });
  const fd = openSync(logFile, "a");
  try {
    return spawn(process.execPath, [options.binPath, ...args], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [stdin, fd, fd],
    });
  } finally {
    closeSync(fd);
  }
}
