import type { ProcessBackend } from "./backend.js";
import { procBackend } from "./proc.js";
import { macosBackend, psBackend } from "./ps.js";

export { isDeadState, isPlainPid } from "./backend.js";
export type { ExecutionMarker, ProcessBackend, ProcessInfo } from "./backend.js";
export { parseProcStat, procBackend } from "./proc.js";
export { createPsBackend, macosBackend, normalizeLstart, parseEnvironLine, parsePsLine, parsePsTable, psBackend } from "./ps.js";

/**
 * Stands in on a platform where processes cannot be controlled (Windows: no /proc
 * and no `ps`). The queue refuses to start there before it gets this far (see
 * src/core/platform.ts); this only makes a stray call fail with a clear message.
 */
function unsupportedBackend(platform: string): ProcessBackend {
  const fail = (): never => {
    throw new Error(`process control is not supported on ${platform}`);
  };
  return { readInfo: fail, lookup: fail, list: fail, readEnviron: fail, carryingMarker: fail };
}

/** The backend for a platform: /proc on Linux, /bin/ps on macOS, the `ps` on PATH on the other Unixes. */
export function backendFor(platform: NodeJS.Platform): ProcessBackend {
  if (platform === "linux") return procBackend;
  if (platform === "darwin") return macosBackend;
  if (platform === "win32") return unsupportedBackend(platform);
  return psBackend;
}

/** The backend for this machine. */
export const backend: ProcessBackend = backendFor(process.platform);
