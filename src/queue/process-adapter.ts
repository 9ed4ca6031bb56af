import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  currentProcessIdentity,
  killExecutionLeftovers,
  probeProcess,
  readProcessStartTime,
  stopExecution,
  waitForExit,
} from "../core/processes/index.js";
import { backend } from "../core/processes/platform.js";
import type { ExitInfo, ProcessControl, Spawner } from "./ports.js";

/** The operating system behind the queue's ProcessControl port. */
export function createProcessControl(): ProcessControl {
  return {
    self: () => currentProcessIdentity(),
    groupOf: (pid) => backend.readInfo(pid)?.pgid ?? null,
    startTimeOf: (pid) => readProcessStartTime(pid),
    probe: (id) => probeProcess(id),
    stopExecution: (target, graceMs) => stopExecution(target, { graceMs }),
    killLeftovers: (target) => killExecutionLeftovers(target),
    waitForExit: (id, timeoutMs) => waitForExit(id, timeoutMs, 100),
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
  const start = (args: string[], logFile: string) => {
    mkdirSync(dirname(logFile), { recursive: true });
    const fd = openSync(logFile, "a");
    try {
      return spawn(process.execPath, [options.binPath, ...args], {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["ignore", fd, fd],
      });
    } finally {
      closeSync(fd);
    }
  };
  return {
    spawnWorker() {
      mkdirSync(options.cwd, { recursive: true });
      const child = start(["__run-worker"], join(options.logsDir, "worker.log"));
      child.unref();
      return child.pid ?? -1;
    },
    spawnExecutor({ runId, executionId, workerToken, logPath }) {
      const child = start(["__run-executor", runId, "--execution", executionId, "--worker-token", workerToken], logPath);
      const exited = new Promise<ExitInfo>((resolve) => {
        child.once("exit", (code, signal) => resolve({ code, signal }));
        child.once("error", () => resolve({ code: null, signal: null }));
      });
      return { pid: child.pid ?? -1, exited };
    },
  };
}
