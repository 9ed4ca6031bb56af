import { backend, isPlainPid } from "./platform.js";
import type { ProcessInfo } from "./platform.js";

export type { ProcessInfo } from "./platform.js";

/**
 * Every process we can see, zombies included (check `state`). On Linux this
 * scans /proc and skips processes that vanish mid-scan; on macOS it is one
 * `ps -A` call. Throws if the table cannot be read at all, so an unreadable
 * table is never mistaken for an empty one.
 */
export function listProcesses(): ProcessInfo[] {
  return backend.list();
}

/**
 * The value of `key` in a process's initial environment (Linux:
 * `/proc/<pid>/environ`). Null when the variable is absent, the process is
 * gone, we lack permission, or the platform does not expose it (macOS).
 */
export function readEnvironValue(pid: number, key: string): string | null {
  if (!isPlainPid(pid)) return null;
  return backend.readEnviron(pid, key);
}
