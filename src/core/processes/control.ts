import type { ProcessBackend, ProcessInfo } from "./backend.js";
import { isAlive, probe, readStartTime, selfIdentity, waitForExit } from "./identity.js";
import type { ProcessIdentity } from "./identity.js";
import { killExecutionLeftovers, signalVerified, stopExecution } from "./terminate.js";
import type { LeftoverOptions, StopOptions, StopResult } from "./terminate.js";
import { findExecutionProcesses } from "./tree.js";
import type { ExecutionTarget } from "./tree.js";

/** Identity, liveness, tree discovery and verified termination, all on one backend. */
export interface Processes {
  readonly backend: ProcessBackend;
  readProcessStartTime(pid: number): string | null;
  currentProcessIdentity(): ProcessIdentity;
  isProcessAlive(id: ProcessIdentity): boolean;
  probeProcess(id: ProcessIdentity): "alive" | "gone" | "reused";
  waitForExit(id: ProcessIdentity, timeoutMs: number, pollMs?: number): Promise<boolean>;
  /** The process group of a live or zombie pid, or null. */
  groupOf(pid: number): number | null;
  listProcesses(): ProcessInfo[];
  readEnvironValue(pid: number, key: string): string | null;
  signalVerified(id: ProcessIdentity, signal: NodeJS.Signals): boolean;
  findExecutionProcesses(target: ExecutionTarget): ProcessIdentity[];
  stopExecution(target: ExecutionTarget, options?: StopOptions): Promise<StopResult>;
  killExecutionLeftovers(target: ExecutionTarget, options?: LeftoverOptions): Promise<{ confirmed: boolean; survivors: number[] }>;
}

/** Binds every process operation to `backend` (the platform's, or a test's). */
export function processesOn(backend: ProcessBackend): Processes {
  return {
    backend,
    readProcessStartTime: (pid) => readStartTime(backend, pid),
    currentProcessIdentity: () => selfIdentity(backend),
    isProcessAlive: (id) => isAlive(backend, id),
    probeProcess: (id) => probe(backend, id),
    waitForExit: (id, timeoutMs, pollMs) => waitForExit(backend, id, timeoutMs, pollMs),
    groupOf: (pid) => backend.readInfo(pid)?.pgid ?? null,
    // Throws if the table cannot be read at all, so an unreadable table is never mistaken for an empty one.
    listProcesses: () => backend.list(),
    readEnvironValue: (pid, key) => backend.readEnviron(pid, key),
    signalVerified: (id, signal) => signalVerified(backend, id, signal),
    findExecutionProcesses: (target) => findExecutionProcesses(backend, target),
    stopExecution: (target, options) => stopExecution(backend, target, options),
    killExecutionLeftovers: (target, options) => killExecutionLeftovers(backend, target, options),
  };
}
