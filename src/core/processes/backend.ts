/**
 * One row of the process table. `startTime` is the raw, platform-specific value
 * (see ProcessIdentity); `state` is the state code the OS reports (`R`, `S`, `D`,
 * `T`, `Z`, `X`, … on Linux; `Ss`, `R+`, `I`, `Z`, … on macOS).
 */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  startTime: string;
  state: string;
}

/** The environment variable every process of one execution inherits. */
export interface ExecutionMarker {
  key: string;
  value: string;
}

/**
 * The primitives everything else is built on, one implementation per platform.
 * Each reports zombies like any other process; callers decide what a zombie means.
 */
export interface ProcessBackend {
  /** The row for one pid, or null if there is no such process at all. */
  readInfo(pid: number): ProcessInfo | null;
  /**
   * A way to read the rows of several pids. A backend whose reads are cheap reads
   * each pid when it is looked up (so a check stays right before the signal that
   * follows it); one that must start a program reads them all at once, up front.
   */
  lookup(pids: readonly number[]): (pid: number) => ProcessInfo | null;
  /** Every process visible to us. Throws if the table cannot be read at all. */
  list(): ProcessInfo[];
  /** One variable of a process's initial environment, or null if unknown/unreadable. */
  readEnviron(pid: number, key: string): string | null;
  /** Which of `pids` carry the marker in their initial environment, as far as this platform can tell. */
  carryingMarker(pids: readonly number[], marker: ExecutionMarker): Set<number>;
}

/** True for the states of a process that has exited but may still hold its pid. */
export function isDeadState(state: string): boolean {
  const first = state.charAt(0);
  return first === "Z" || first === "X";
}

/** Only positive safe integers name a single process; 0 and negatives name groups. */
export function isPlainPid(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid > 0;
}
