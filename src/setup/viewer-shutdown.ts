/**
 * Stopping the viewers (`ca serve`) before the state directory goes: a viewer left running
 * would go on showing deleted wikis, and its next request would open a new, empty state
 * database where the deleted one was. Each is asked to stop (SIGTERM, which it answers by
 * closing its server), then killed if it does not; only the recorded process is signalled.
 */
import type { ViewerRecord } from "../core/viewer-records.js";
import type { ProcessControl, ProcessIdentity } from "../queue/ports.js";

export interface ViewerShutdownDeps {
  /** The viewers recorded on this state root, live or not. */
  records(): ViewerRecord[];
  processes: Pick<ProcessControl, "probe" | "waitForExit"> & {
    /** Sends `signal` to that one process only if it is still the recorded one; false when nothing was sent. */
    signal(id: ProcessIdentity, signal: NodeJS.Signals): boolean;
  };
  /** How long a viewer gets to close before SIGKILL. */
  graceMs: number;
}

export interface ViewerShutdown {
  stopped: ViewerRecord[];
  /** Viewers that could not be stopped (another user's, or one that outlived SIGKILL). */
  survivors: ViewerRecord[];
}

/** The recorded viewers that are still running (a pid since reused by another process is not one). */
export function liveViewers(deps: ViewerShutdownDeps): ViewerRecord[] {
  return deps.records().filter((viewer) => viewer.pid !== process.pid && deps.processes.probe(identity(viewer)) === "alive");
}

export async function stopViewers(deps: ViewerShutdownDeps): Promise<ViewerShutdown> {
  const result: ViewerShutdown = { stopped: [], survivors: [] };
  for (const viewer of liveViewers(deps)) {
    (await stopViewer(deps, viewer) ? result.stopped : result.survivors).push(viewer);
  }
  return result;
}

async function stopViewer(deps: ViewerShutdownDeps, viewer: ViewerRecord): Promise<boolean> {
  const id = identity(viewer);
  if (!deps.processes.signal(id, "SIGTERM")) return deps.processes.probe(id) !== "alive";
  if (await deps.processes.waitForExit(id, deps.graceMs)) return true;
  deps.processes.signal(id, "SIGKILL");
  return deps.processes.waitForExit(id, deps.graceMs);
}

function identity(viewer: ViewerRecord) {
  return { pid: viewer.pid, startTime: viewer.startTime };
}
