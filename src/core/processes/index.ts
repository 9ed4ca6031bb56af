/**
 * Process identity, liveness, execution-tree discovery and verified
 * termination. See almanac/architecture/core.md.
 */
export {
  compareStartTimes,
  currentProcessIdentity,
  isProcessAlive,
  probeProcess,
  readProcessStartTime,
  waitForExit,
} from "./identity.js";
export type { ProcessIdentity } from "./identity.js";
export { listProcesses, readEnvironValue } from "./table.js";
export type { ProcessInfo } from "./table.js";
export { findExecutionProcesses } from "./tree.js";
export type { ExecutionTarget } from "./tree.js";
export { killExecutionLeftovers, signalVerified, stopExecution } from "./terminate.js";
export type { LeftoverOptions, StopOptions, StopResult } from "./terminate.js";
