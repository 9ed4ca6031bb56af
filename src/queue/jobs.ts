import { rmSync } from "node:fs";
import { join } from "node:path";
import { invalid, notFound } from "../core/errors.js";
import { LATEST, parseRunId } from "../runs/ids.js";
import { isTerminal, type RunEvent, type RunRecord } from "../runs/model.js";
import type { ListFilter, PrunedRun, RunStore } from "../runs/store.js";
import type { LockStore } from "../runs/lock-store.js";
import type { Hooks } from "./hooks.js";
import type { ProcessControl } from "./ports.js";
import { reapOrphanedRuns } from "./reaper.js";
import { wakeWorkerIfNeeded, type ProducerDeps } from "./producer.js";
import { cancelRun, type CancelOutcome } from "./cancel.js";
import { sleep } from "../core/sleep.js";
import { AbandonedRunWatch } from "./abandoned.js";
import type { RunEnvironments } from "./run-environment.js";

export interface JobsDeps {
  runs: RunStore;
  locks: LockStore;
  processes: ProcessControl;
  producer: ProducerDeps;
  hooks: Hooks;
  now: () => number;
  log: (line: string) => void;
  cancelGraceMs: number;
  /** Where each run's folder lives (material written for its prompt). */
  runsDir: string;
  environments: RunEnvironments;
  /**
   * Settles, inside the prune's transaction, what other domains keep pointing at the
   * runs about to be deleted (sync cursors waiting on them), so none is left pointing at nothing.
   */
  settlePruned: (runs: readonly PrunedRun[]) => void;
}

/** Shorter forms would match by accident: `b` is a prefix of every build. */
const MIN_SHORT_ID = 4;
/** How many candidates an ambiguous short form lists. */
const AMBIGUITY_SHOWN = 3;

/** One poll of a followed run: its record, the events new since the last poll (often none), and whether it ended. */
export interface AttachUpdate {
  record: RunRecord;
  events: RunEvent[];
  terminal: boolean;
  /** Queued: how many runs will run before it; 0 otherwise. */
  ahead: number;
}

/** `jobs`: every read first reaps crashed runs and wakes a worker for stranded queued work. */
export class JobsService {
  constructor(private readonly deps: JobsDeps) {}

  /** Reaps runs whose executor is gone, then wakes a worker for stranded queued work; returns that worker's pid. */
  async recover(): Promise<number | null> {
    await reapOrphanedRuns(this.deps);
    return wakeWorkerIfNeeded(this.deps.producer);
  }

  /** For a follower: recovers a followed run that nobody looks after any more (see AbandonedRunWatch). */
  abandonedWatch(): AbandonedRunWatch {
    return new AbandonedRunWatch({
      locks: this.deps.locks,
      processes: this.deps.processes,
      now: this.deps.now,
      staleAfterMs: this.deps.producer.staleAfterMs,
      recover: () => this.recover(),
    });
  }

  // The reads of the `jobs` command: each one recovers first.

  async listJobs(filter: ListFilter): Promise<RunRecord[]> {
    await this.recover();
    return this.list(filter);
  }

  async showJob(runId: string, repositoryId?: string): Promise<RunRecord> {
    await this.recover();
    return this.show(runId, repositoryId);
  }

  /** The run's events, once it is known to exist (in that repository, when given). */
  async jobEvents(runId: string, repositoryId?: string): Promise<RunEvent[]> {
    await this.recover();
    this.show(runId, repositoryId);
    return this.events(runId);
  }

  async pruneJobs(olderThanMs: number): Promise<number> {
    await this.recover();
    return this.prune(olderThanMs);
  }

  // Without recovery: for callers that recover themselves (`jobs attach`, the MCP server) or must
  // not wake a worker (uninstall).

  list(filter: ListFilter): RunRecord[] {
    return this.deps.runs.listRuns(filter);
  }

  /**
   * The full id a user's short form names: the id itself, `latest` (the newest run), or a
   * unique start of the id or of its trailing hex part. Several matches are refused with
   * the first few, so nobody cancels the wrong run.
   */
  resolveRunId(input: string, repositoryId?: string): string {
    const text = parseRunId(input);
    if (text === LATEST) {
      const newest = this.deps.runs.listRuns({ limit: 1, ...(repositoryId ? { repositoryId } : {}) })[0];
      if (!newest) throw notFound("run", "no runs yet");
      return newest.runId;
    }
    const exact = this.deps.runs.getRun(text);
    if (exact && (repositoryId === undefined || exact.repositoryId === repositoryId)) return exact.runId;
    if (text.length < MIN_SHORT_ID) throw notFound("run", text);
    const matches = this.deps.runs.runIdsStartingWith(text, repositoryId, AMBIGUITY_SHOWN + 1);
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) throw notFound("run", text);
    const more = matches.length > AMBIGUITY_SHOWN ? ", …" : "";
    throw invalid(`run id "${text}" is ambiguous: it matches ${matches.slice(0, AMBIGUITY_SHOWN).join(", ")}${more}; give more of it`);
  }

  show(runId: string, repositoryId?: string): RunRecord {
    const record = this.deps.runs.getRun(runId);
    if (!record || (repositoryId !== undefined && record.repositoryId !== repositoryId)) throw notFound("run", runId);
    return record;
  }

  events(runId: string, afterSeq = 0): RunEvent[] {
    return this.deps.runs.listEvents(runId, afterSeq);
  }

  async cancel(runId: string, repositoryId?: string): Promise<CancelOutcome> {
    this.show(runId, repositoryId);
    return cancelRun({ ...this.deps, graceMs: this.deps.cancelGraceMs }, runId);
  }

  /** Deletes old finished runs with their log files and run folders. */
  prune(olderThanMs: number): number {
    const pruned = this.deps.runs.pruneRuns(this.deps.now() - olderThanMs, this.deps.settlePruned);
    for (const run of pruned) {
      rmSync(run.logPath, { force: true });
      rmSync(join(this.deps.runsDir, run.runId), { recursive: true, force: true });
    }
    return pruned.length;
  }

  /**
   * Follows a run: only events after the last one seen are read, and every poll is
   * yielded, with or without new events, so a follower can tell how long the run has been
   * waiting. It ends with the poll that sees the run terminal. A run whose worker and
   * executor are gone is recovered, so the follow always ends.
   */
  async *attach(runId: string, options: { intervalMs: number; repositoryId?: string; signal?: AbortSignal }): AsyncGenerator<AttachUpdate> {
    this.show(runId, options.repositoryId);
    const watch = this.abandonedWatch();
    let last = 0;
    while (!options.signal?.aborted) {
      let record = this.deps.runs.requireRun(runId);
      if (await watch.check(record)) record = this.deps.runs.requireRun(runId);
      // Read after the row: a terminal row's status event commits with it, so it is in
      // this batch or an earlier one, and the follow can end here.
      const events = this.deps.runs.listEvents(runId, last);
      const terminal = isTerminal(record.status);
      if (events.length > 0) last = events[events.length - 1]!.seq;
      const ahead = record.status === "queued" ? this.deps.runs.unfinishedRunsAhead(record.seq) : 0;
      yield { record, events, terminal, ahead };
      if (terminal) return;
      await sleep(options.intervalMs, options.signal);
    }
  }

}

