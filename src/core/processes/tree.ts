import { isDeadState, type ExecutionMarker, type ProcessBackend, type ProcessInfo } from "./backend.js";
import { compareStartTimes } from "./identity.js";
import type { ProcessIdentity } from "./identity.js";

/**
 * What a run's executor recorded about itself: its identity, its process group
 * (its own pid, since the worker spawns it detached) and, optionally, the
 * environment marker every descendant inherits.
 */
export interface ExecutionTarget {
  pid: number;
  startTime: string;
  pgid: number;
  marker?: ExecutionMarker;
}

/**
 * Every live process that belongs to the execution, deduplicated by pid, the
 * executor first. The union of:
 * - the executor itself, if the pid still holds the recorded process;
 * - members of its process group that started no earlier than the executor;
 * - processes whose initial environment carries `marker` exactly, as far as
 *   the platform can tell (always on Linux; on macOS only our own user's
 *   processes that the system does not shield), and that started no earlier
 *   than the executor;
 * - all descendants (by parent pid) of anything above.
 *
 * Never returned: zombies, pid 0/1, the calling process and its ancestors.
 *
 * The group is skipped when the executor's pid is now held by a different
 * process: a pid cannot be reused while a process group of that id still has
 * members (POSIX), so a reused leader pid means any group with that id belongs
 * to a stranger.
 */
export function findExecutionProcesses(backend: ProcessBackend, target: ExecutionTarget): ProcessIdentity[] {
  return findExecutionProcessesIn(backend, backend.list(), target);
}

/** findExecutionProcesses over a process table already read. */
export function findExecutionProcessesIn(
  backend: ProcessBackend,
  table: readonly ProcessInfo[],
  target: ExecutionTarget,
): ProcessIdentity[] {
  return selectExecutionProcesses(table, target, {
    excluded: callerAndAncestors(table),
    carryingMarker: (pids, marker) => backend.carryingMarker(pids, marker),
  });
}

/**
 * The selection behind findExecutionProcesses, over a given process table.
 * `excluded` pids are never returned nor walked through.
 */
export function selectExecutionProcesses(
  table: readonly ProcessInfo[],
  target: ExecutionTarget,
  context: { excluded: ReadonlySet<number>; carryingMarker: (pids: readonly number[], marker: ExecutionMarker) => ReadonlySet<number> },
): ProcessIdentity[] {
  const byPid = new Map<number, ProcessInfo>();
  for (const row of table) byPid.set(row.pid, row);
  const excluded = context.excluded;
  const notOlder = (row: ProcessInfo): boolean => startedAtOrAfter(row.startTime, target.startTime);
  const candidate = (row: ProcessInfo): boolean => row.pid > 1 && !excluded.has(row.pid) && notOlder(row);

  // Members may include zombies: they are never returned, but the walk passes
  // through them, because a dying multi-threaded parent can show as a zombie
  // before its children have been re-parented.
  const members = new Map<number, ProcessInfo>();
  const add = (row: ProcessInfo): void => {
    if (!members.has(row.pid) && candidate(row)) members.set(row.pid, row);
  };

  // 1. The executor itself, if it is still the same process.
  const executor = byPid.get(target.pid);
  if (executor !== undefined && executor.startTime === target.startTime) add(executor);

  // 2. Its process group, unless the group id now belongs to someone else.
  const leader = byPid.get(target.pgid);
  const groupReused =
    target.pgid === target.pid && leader !== undefined && leader.startTime !== target.startTime;
  if (target.pgid > 1 && !groupReused) {
    for (const row of table) if (row.pgid === target.pgid) add(row);
  }

  // 3. The environment marker, asked of every remaining candidate at once (one
  //    `ps` call on macOS, however many candidates there are).
  const marker = target.marker;
  if (marker !== undefined && marker.key !== "") {
    const unexplained = table.filter((row) => !members.has(row.pid) && !isDeadState(row.state) && candidate(row));
    if (unexplained.length > 0) {
      const marked = context.carryingMarker(
        unexplained.map((row) => row.pid),
        marker,
      );
      for (const row of unexplained) if (marked.has(row.pid)) add(row);
    }
  }

  // 4. Descendants of everything found so far, by parent links.
  const children = new Map<number, ProcessInfo[]>();
  for (const row of table) {
    const siblings = children.get(row.ppid);
    if (siblings === undefined) children.set(row.ppid, [row]);
    else siblings.push(row);
  }
  const queue = [...members.values()];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next.pid) ?? []) {
      if (members.has(child.pid) || !candidate(child)) continue;
      members.set(child.pid, child);
      queue.push(child);
    }
  }

  return [...members.values()]
    .filter((row) => !isDeadState(row.state))
    .map((row) => ({ pid: row.pid, startTime: row.startTime }));
}

/** This process, its parent and every ancestor up to init. */
function callerAndAncestors(table: readonly ProcessInfo[]): Set<number> {
  const byPid = new Map<number, ProcessInfo>();
  for (const row of table) byPid.set(row.pid, row);
  const chain = new Set<number>([process.pid, process.ppid]);
  const visited = new Set<number>();
  for (let pid = process.pid; pid > 1 && !visited.has(pid); ) {
    visited.add(pid);
    const row = byPid.get(pid);
    if (row === undefined) break;
    chain.add(row.ppid);
    pid = row.ppid;
  }
  return chain;
}

/** A start time we cannot compare is never treated as "started after the executor". */
function startedAtOrAfter(startTime: string, reference: string): boolean {
  try {
    return compareStartTimes(startTime, reference) >= 0;
  } catch {
    return false;
  }
}
