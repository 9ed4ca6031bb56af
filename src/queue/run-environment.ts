import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "../core/crypto.js";
import { EXECUTION_ENV } from "./ports.js";

/** The file a queued run's environment waits in, inside its run folder. */
const FILE = "environment.json";

/** How old an environment of a run the ledger does not know must be before a sweep removes it. */
const ORPHAN_AGE_MS = 10 * 60_000;

/**
 * The environment of the command that queued a run (PATH, HOME, agent config folders, API
 * keys, proxies, certificates), kept for its executor. It holds secrets, so it never enters
 * the ledger or a log: it waits in a 0600 file in the run's folder under the state root, the
 * executor takes it (reads and deletes it) right after its claim, and whoever ends a run
 * without an executor discards it.
 */
export class RunEnvironments {
  constructor(
    private readonly runsDir: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Written before the run is committed, so an executor never claims a run whose environment is still being written. */
  save(runId: string, env: NodeJS.ProcessEnv): void {
    const folder = join(this.runsDir, runId);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const kept: Record<string, string> = {};
    for (const [key, value] of Object.entries(env)) {
      // A command run inside another run's agent carries that run's marker; the executor sets its own.
      if (value !== undefined && key !== EXECUTION_ENV) kept[key] = value;
    }
    const temporary = join(folder, `.${FILE}.${randomHex(4)}`);
    writeFileSync(temporary, JSON.stringify(kept), { mode: 0o600, flag: "wx" });
    renameSync(temporary, join(folder, FILE));
  }

  /** The saved environment, removed from disk as it is read; null when there is none (or it is unreadable). */
  take(runId: string): NodeJS.ProcessEnv | null {
    const file = join(this.runsDir, runId, FILE);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      return null;
    } finally {
      rmSync(file, { force: true });
    }
    return parseEnvironment(text);
  }

  discard(runId: string): void {
    rmSync(join(this.runsDir, runId, FILE), { force: true });
  }

  /**
   * Removes what crashes left behind: the environments of runs that have ended, and of runs the
   * ledger does not know once they are old (a producer that died between writing the file and
   * committing its run). A young unknown one may belong to a run being committed right now.
   */
  sweep(statusOf: (runIds: string[]) => Map<string, string>): number {
    let runIds: string[];
    try {
      runIds = readdirSync(this.runsDir);
    } catch {
      return 0;
    }
    const statuses = statusOf(runIds);
    let removed = 0;
    for (const runId of runIds) {
      const status = statuses.get(runId);
      if (status === "queued" || status === "running") continue;
      const file = join(this.runsDir, runId, FILE);
      try {
        if (status === undefined && this.now() - statSync(file).mtimeMs < ORPHAN_AGE_MS) continue;
        unlinkSync(file);
        removed++;
      } catch {
        // no environment in this folder
      }
    }
    return removed;
  }
}

function parseEnvironment(text: string): NodeJS.ProcessEnv | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, entry] of Object.entries(value)) if (typeof entry === "string") env[key] = entry;
  return env;
}
