import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hooks, HookName } from "../../src/queue/hooks.js";
import type {
  Dispatch,
  ExecutionTarget,
  ExitInfo,
  ProcessControl,
  ProcessIdentity,
  Spawner,
  StandbyExecutor,
  StopResult,
} from "../../src/queue/ports.js";
import { RunEnvironments } from "../../src/queue/run-environment.js";

/**
 * The operating system as the queue sees it, in memory: a table of live pids with their
 * start times, and a record of every stop and cleanup the queue asked for. What a stop or
 * a cleanup reports can be scripted, one answer per call; by default everything it is
 * asked to stop dies.
 */
export class FakeProcesses implements ProcessControl {
  readonly live = new Map<number, string>();
  readonly calls: { verb: "stop" | "leftovers"; target: ExecutionTarget; graceMs?: number }[] = [];
  readonly stopAnswers: StopResult[] = [];
  readonly leftoverAnswers: StopResult[] = [];
  /** Runs during a stop, before it answers (the run finishing meanwhile, say). */
  duringStop: (() => void) | null = null;
  /** Runs during a leftover sweep, before it answers. */
  duringLeftovers: (() => void) | null = null;
  /** While set, a stop waits for it before it answers (a stop still inside its grace period). */
  stopGate: Promise<void> | null = null;
  private exitWaiters: (() => void)[] = [];
  /** Told when a pid dies, so a fake standby's exit follows a kill. */
  readonly onKill = new Map<number, () => void>();

  constructor(readonly selfIdentity: ProcessIdentity = { pid: 1000, startTime: "500" }) {
    this.live.set(selfIdentity.pid, selfIdentity.startTime);
  }

  self(): ProcessIdentity {
    return this.selfIdentity;
  }

  groupOf(pid: number): number | null {
    return this.live.has(pid) ? pid : null;
  }

  startTimeOf(pid: number): string | null {
    return this.live.get(pid) ?? null;
  }

  probe(id: ProcessIdentity): "alive" | "gone" | "reused" {
    const startTime = this.live.get(id.pid);
    if (startTime === undefined) return "gone";
    return startTime === id.startTime ? "alive" : "reused";
  }

  async stopExecution(target: ExecutionTarget, graceMs: number): Promise<StopResult> {
    this.calls.push({ verb: "stop", target, graceMs });
    this.duringStop?.();
    if (this.stopGate) await this.stopGate;
    const answer = this.stopAnswers.shift() ?? { confirmed: true, survivors: [] };
    if (answer.confirmed) this.kill(target.pid);
    return answer;
  }

  async killLeftovers(target: ExecutionTarget): Promise<StopResult> {
    this.calls.push({ verb: "leftovers", target });
    this.duringLeftovers?.();
    return this.leftoverAnswers.shift() ?? { confirmed: true, survivors: [] };
  }

  async waitForExit(id: ProcessIdentity): Promise<boolean> {
    if (this.probe(id) !== "alive") return true;
    await new Promise<void>((resolve) => this.exitWaiters.push(resolve));
    return this.probe(id) !== "alive";
  }

  /** The process ends (whoever ended it). */
  kill(pid: number): void {
    this.live.delete(pid);
    const listener = this.onKill.get(pid);
    this.onKill.delete(pid);
    listener?.();
    const waiters = this.exitWaiters;
    this.exitWaiters = [];
    for (const wake of waiters) wake();
  }

  verbs(): string[] {
    return this.calls.map((c) => c.verb);
  }
}

/** A standby executor the test drives: it records its dispatch, and exits when told. */
export class FakeStandby implements StandbyExecutor {
  dispatched: Dispatch | null = null;
  dismissed = false;
  readonly exited: Promise<ExitInfo>;
  private resolveExit!: (exit: ExitInfo) => void;

  constructor(
    readonly pid: number,
    private readonly processes: FakeProcesses,
    private readonly onDispatch: (standby: FakeStandby, dispatch: Dispatch) => void,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    processes.onKill.set(pid, () => this.resolveExit({ code: null, signal: "SIGKILL" }));
  }

  dispatch(request: Dispatch): boolean {
    if (this.processes.probe({ pid: this.pid, startTime: this.processes.startTimeOf(this.pid) ?? "" }) !== "alive") return false;
    this.dispatched = request;
    queueMicrotask(() => this.onDispatch(this, request));
    return true;
  }

  dismiss(): void {
    this.dismissed = true;
    if (!this.dispatched) this.exit({ code: 0, signal: null });
  }

  exit(exit: ExitInfo): void {
    this.resolveExit(exit);
    this.processes.kill(this.pid);
  }
}

/**
 * Starts fake standbys with pids from 2000 up, each alive with start time `st-<pid>`
 * unless `unreadable` names its pid (its start time cannot be read: it is not in the table).
 */
export class FakeSpawner implements Spawner {
  readonly standbys: FakeStandby[] = [];
  workers = 0;
  unreadable = new Set<number>();
  failNextSpawn: Error | null = null;
  /** Runs at the start of every executor spawn. */
  beforeSpawn: (() => void) | null = null;
  private nextPid = 2000;

  constructor(
    private readonly processes: FakeProcesses,
    public onDispatch: (standby: FakeStandby, dispatch: Dispatch) => void,
  ) {}

  spawnWorker(): number {
    this.workers++;
    return 9000 + this.workers;
  }

  spawnExecutor(): StandbyExecutor {
    this.beforeSpawn?.();
    if (this.failNextSpawn) {
      const error = this.failNextSpawn;
      this.failNextSpawn = null;
      throw error;
    }
    const pid = this.nextPid++;
    if (!this.unreadable.has(pid)) this.processes.live.set(pid, `st-${pid}`);
    const standby = new FakeStandby(pid, this.processes, (s, d) => this.onDispatch(s, d));
    this.standbys.push(standby);
    return standby;
  }
}

/** Hooks that call test functions in-process. */
export function hooksCalling(handlers: Partial<Record<HookName, () => void>>): Hooks {
  return { run: (name) => handlers[name]?.() };
}

/** A run environment folder in a temporary directory. */
export function tempEnvironments(): { environments: RunEnvironments; dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "ca-envs-"));
  return { environments: new RunEnvironments(dir), dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
