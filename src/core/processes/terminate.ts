import { isPlainPid, type ProcessBackend, type ProcessInfo } from "./backend.js";
import { isSameLiveProcess, noneAlive, pollUntil } from "./identity.js";
import type { ProcessIdentity } from "./identity.js";
import { findExecutionProcesses, findExecutionProcessesIn } from "./tree.js";
import type { ExecutionTarget } from "./tree.js";

/**
 * Sends `signal` only if `id.pid` still holds the recorded process: the start
 * time is re-read immediately before the signal. False, with nothing sent, if
 * the process is gone, a zombie, or a different process; false on ESRCH/EPERM.
 * pid 0, 1 and negative pids (process groups) are always refused.
 */
export function signalVerified(backend: ProcessBackend, id: ProcessIdentity, signal: NodeJS.Signals): boolean {
  return signalIfSame((pid) => backend.readInfo(pid), id, signal);
}

/** signalVerified with the row read through `read`, which the caller calls just before. */
function signalIfSame(read: (pid: number) => ProcessInfo | null, id: ProcessIdentity, signal: NodeJS.Signals): boolean {
  if (!isPlainPid(id.pid) || id.pid === 1) return false;
  if (!isSameLiveProcess(read(id.pid), id)) return false;
  try {
    process.kill(id.pid, signal);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ESRCH" || code === "EPERM") return false;
    throw error;
  }
}

export interface StopOptions {
  /** How long SIGTERM gets before SIGKILL. Default 3000 ms. */
  graceMs?: number;
  /** How long to wait for SIGKILLed processes to disappear. Default 3000 ms. */
  killWaitMs?: number;
  /** Poll interval for both waits. Default 25 ms. */
  pollMs?: number;
  /** Called after each signal actually sent; anything it throws is ignored. */
  onSignal?: (pid: number, signal: string) => void;
}

export interface StopResult {
  /** True when nothing belonging to the execution is alive any more. */
  confirmed: boolean;
  /** Every pid that was sent at least one signal, in the order first signalled. */
  signalled: number[];
  /** Pids still alive when we gave up (empty when confirmed). */
  survivors: number[];
}

const DEFAULT_GRACE_MS = 3000;
const DEFAULT_KILL_WAIT_MS = 3000;
const DEFAULT_POLL_MS = 25;

/**
 * Stops everything that belongs to an execution: SIGTERM, a grace period,
 * then SIGKILL. Processes are re-enumerated after the grace period and on
 * every poll of the kill phase, so children forked late (for instance by a
 * SIGTERM handler) are caught. Nothing is ever suspended: a process found
 * already stopped (state `T`) is sent SIGCONT after its SIGTERM so the
 * SIGTERM can act.
 */
export async function stopExecution(backend: ProcessBackend, target: ExecutionTarget, options: StopOptions = {}): Promise<StopResult> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const killWaitMs = options.killWaitMs ?? DEFAULT_KILL_WAIT_MS;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const signals = new SignalLog(backend, options.onSignal);

  const initial = findExecutionProcesses(backend, target);
  for (const id of initial) signals.track(id);
  resumeStopped(backend, signals.sendAll(initial, "SIGTERM"), signals);
  await pollUntil(() => noneAlive(backend, initial), graceMs, pollMs);

  return killUntilGone(backend, target, signals, killWaitMs, pollMs);
}

export interface LeftoverOptions {
  /** How long to wait for SIGKILLed processes to disappear. Default 3000 ms. */
  killWaitMs?: number;
  /** Default 25 ms. */
  pollMs?: number;
  onSignal?: (pid: number, signal: string) => void;
}

/**
 * After the executor has exited: SIGKILL whatever is left of its group, tree
 * and marker (re-enumerating on every poll), and wait, bounded, for it to go.
 */
export async function killExecutionLeftovers(
  backend: ProcessBackend,
  target: ExecutionTarget,
  options: LeftoverOptions = {},
): Promise<{ confirmed: boolean; survivors: number[] }> {
  const signals = new SignalLog(backend, options.onSignal);
  const result = await killUntilGone(
    backend,
    target,
    signals,
    options.killWaitMs ?? DEFAULT_KILL_WAIT_MS,
    options.pollMs ?? DEFAULT_POLL_MS,
  );
  return { confirmed: result.confirmed, survivors: result.survivors };
}

/**
 * The SIGKILL phase. Each sweep re-enumerates the execution, adds newcomers to
 * the tracked set, and SIGKILLs every tracked process that is alive and has not
 * been SIGKILLed yet. Ends when a sweep finds nothing alive, or at the deadline.
 */
async function killUntilGone(
  backend: ProcessBackend,
  target: ExecutionTarget,
  signals: SignalLog,
  killWaitMs: number,
  pollMs: number,
): Promise<StopResult> {
  const killed = new Set<string>();
  let alive: ProcessIdentity[] = [];
  const sweep = (): boolean => {
    // One snapshot per sweep serves both the re-enumeration and the liveness check.
    const table = backend.list();
    for (const id of findExecutionProcessesIn(backend, table, target)) signals.track(id);
    const rows = new Map(table.map((row) => [row.pid, row]));
    alive = signals.tracked().filter((id) => isSameLiveProcess(rows.get(id.pid) ?? null, id));
    const fresh = alive.filter((id) => !killed.has(identityKey(id)));
    for (const id of fresh) killed.add(identityKey(id));
    signals.sendAll(fresh, "SIGKILL");
    return alive.length === 0;
  };
  await pollUntil(sweep, killWaitMs, pollMs);
  return { confirmed: alive.length === 0, signalled: signals.pids(), survivors: alive.map((id) => id.pid) };
}

/** SIGTERM stays pending on a stopped process (state `T`); let it run so it can act on it. */
function resumeStopped(backend: ProcessBackend, termed: readonly ProcessIdentity[], signals: SignalLog): void {
  if (termed.length === 0) return;
  const read = backend.lookup(termed.map((id) => id.pid));
  const stopped = termed.filter((id) => {
    const info = read(id.pid);
    return info !== null && info.startTime === id.startTime && info.state.startsWith("T");
  });
  signals.sendAll(stopped, "SIGCONT");
}

function identityKey(id: ProcessIdentity): string {
  return `${id.pid}:${id.startTime}`;
}

/** The identities a stop has seen, and the pids it actually signalled. */
class SignalLog {
  private readonly seen = new Map<string, ProcessIdentity>();
  private readonly signalled = new Set<number>();

  constructor(
    private readonly backend: ProcessBackend,
    private readonly onSignal?: (pid: number, signal: string) => void,
  ) {}

  track(id: ProcessIdentity): void {
    const key = identityKey(id);
    if (!this.seen.has(key)) this.seen.set(key, { pid: id.pid, startTime: id.startTime });
  }

  tracked(): ProcessIdentity[] {
    return [...this.seen.values()];
  }

  /**
   * Signals each of `ids` that still holds its recorded process; returns those
   * signalled. Each is verified just before its signal: on Linux by reading its
   * row right then, on macOS by one `ps` call for all of them just before the
   * signals go out (one call per pid would cost a program start each).
   */
  sendAll(ids: readonly ProcessIdentity[], signal: NodeJS.Signals): ProcessIdentity[] {
    if (ids.length === 0) return [];
    const read = this.backend.lookup(ids.map((id) => id.pid));
    const sent: ProcessIdentity[] = [];
    for (const id of ids) {
      if (!signalIfSame(read, id, signal)) continue;
      sent.push(id);
      this.signalled.add(id.pid);
      try {
        this.onSignal?.(id.pid, signal);
      } catch {
        // An observer's failure must not leave the rest of the tree running.
      }
    }
    return sent;
  }

  pids(): number[] {
    return [...this.signalled];
  }
}
