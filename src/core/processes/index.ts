/**
 * Process identity, liveness, execution-tree discovery and verified
 * termination. See almanac/architecture/core.md.
 *
 * `processesOn(backend)` binds them to a backend; the functions exported by
 * name are bound to this machine's (`backendFor(process.platform)`).
 */
import { processesOn } from "./control.js";
import { backend } from "./platform.js";

export { compareStartTimes } from "./identity.js";
export type { ProcessIdentity } from "./identity.js";
export type { ExecutionMarker, ProcessBackend, ProcessInfo } from "./backend.js";
export { backendFor } from "./platform.js";
export { processesOn } from "./control.js";
export type { Processes } from "./control.js";
export type { ExecutionTarget } from "./tree.js";
export type { LeftoverOptions, StopOptions, StopResult } from "./terminate.js";

const here = processesOn(backend);

export const {
  readProcessStartTime,
  currentProcessIdentity,
  isProcessAlive,
  probeProcess,
  waitForExit,
  listProcesses,
  readEnvironValue,
  signalVerified,
  findExecutionProcesses,
  stopExecution,
  killExecutionLeftovers,
} = here;
