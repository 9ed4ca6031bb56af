import { isProcessAlive, pollUntil, readProcessStartTime } from "./identity.js";
import type { ProcessIdentity } from "./identity.js";
import { backend, isDeadState, isPlainPid } from "./platform.js";
import { findExecutionProcesses, findExecutionProcessesIn } from "./tree.js";
import type { ExecutionTarget } from "./tree.js";

/**
 * Sends `signal` only if `id.pid` still holds the recorded process: the start
 * time is re-read immediately before the signal. False, with nothing sent, if
 * the process is gone, a zombie, or a different process; false on ESRCH/EPERM.
 * pid 0, 1 and negative pids (process groups) are always refused.
 */
export function signalVerified(id: ProcessIdentity, signal: NodeJS.Signals): boolean {
  if (!isPlainPid(id.pid) || id.pid === 1) return false;
  if (readProcessStartTime(id.pid) !== id.startTime) return false;
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
export async function stopExecution(target: ExecutionTarget, options: StopOptions = {}): Promise<StopResult> {
  const graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
  const killWaitMs = options.killWaitMs ?? DEFAULT_KILL_WAIT_MS;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const signals = new SignalLog(options.onSignal);

  const initial = findExecutionProcesses(target);
  for (const id of initial) {
    signals.track(id);
    if (signals.send(id, "SIGTERM")) resumeIfStopped(id, signals);
  }
  await pollUntil(() => initial.every((id) => !isProcessAlive(id)), graceMs, pollMs);

  return killUntilGone(target, signals, killWaitMs, pollMs);
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
  target: ExecutionTarget,
  options: LeftoverOptions = {},
): Promise<{ confirmed: boolean; survivors: number[] }> {
  const signals = new SignalLog(options.onSignal);
  const result = await killUntilGone(
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
    for (const id of findExecutionProcessesIn(table, target)) signals.track(id);
    const live = new Map<number, string>();
    for (const row of table) if (!isDeadState(row.state)) live.set(row.pid, row.startTime);
    alive = signals.tracked().filter((id) => live.get(id.pid) === id.startTime);
    for (const id of alive) {
      const key = identityKey(id);
      if (killed.has(key)) continue;
      killed.add(key);
      signals.send(id, "SIGKILL");
    }
    return alive.length === 0;
  };
  await pollUntil(sweep, killWaitMs, pollMs);
  return { confirmed: alive.length === 0, signalled: signals.pids(), survivors: alive.map((id) => id.pid) };
}

/** SIGTERM stays pending on a stopped process; let it run so it can act on it. */
function resumeIfStopped(id: ProcessIdentity, signals: SignalLog): void {
  const info = backend.readInfo(id.pid);
  if (info !== null && info.startTime === id.startTime && info.state.startsWith("T")) {
    signals.send(id, "SIGCONT");
  }
}

function identityKey(id: ProcessIdentity): string {
  return `${id.pid}:${id.startTime}`;
}

/** The identities a stop has seen, and the pids it actually signalled. */
class SignalLog {
  private readonly seen = new Map<string, ProcessIdentity>();
  private readonly signalled = new Set<number>();

  constructor(private readonly onSignal?: (pid: number, signal: string) => void) {}

  track(id: ProcessIdentity): void {
    const key = identityKey(id);
    if (!this.seen.has(key)) this.seen.set(key, { pid: id.pid, startTime: id.startTime });
  }

  tracked(): ProcessIdentity[] {
    return [...this.seen.values()];
  }

  send(id: ProcessIdentity, signal: NodeJS.Signals): boolean {
    if (!signalVerified(id, signal)) return false;
    this.signalled.add(id.pid);
    try {
      this.onSignal?.(id.pid, signal);
    } catch {
      // An observer's failure must not leave the rest of the tree running.
    }
    return true;
  }

  pids(): number[] {
    return [...this.signalled];
  }
}
