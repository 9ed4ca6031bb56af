import { ProductError } from "./errors.js";

/**
 * Which platforms can run the queue. Its process control reads /proc (Linux) or
 * `ps` (macOS and the other Unixes); Windows has neither, so there every worker
 * would fail. Reads (search, show, topics, health, the viewer, MCP's read tools)
 * need no process control and work everywhere.
 */
export function queueSupported(platform: NodeJS.Platform): boolean {
  return platform !== "win32";
}

export const QUEUE_UNSUPPORTED_MESSAGE =
  "the run queue is not supported on Windows yet (Linux and macOS are); reads such as search and show work";

/**
 * The one check every entry into the queue makes before it writes anything:
 * queueing, listing or following jobs, cancelling, the worker and the executor.
 * Throws an `unavailable` ProductError (one line, exit 3) where the queue cannot run.
 */
export function requireQueueSupport(platform: NodeJS.Platform): void {
  if (!queueSupported(platform)) throw new ProductError("unavailable", QUEUE_UNSUPPORTED_MESSAGE);
}
