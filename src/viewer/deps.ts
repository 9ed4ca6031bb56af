import type { DriftService } from "../evidence/service.js";
import type { LiveIndexes } from "../index/freshness.js";
import type { CancelOutcome } from "../queue/cancel.js";
import type { Repository } from "../repositories/model.js";
import type { RepositoryListing } from "../repositories/service.js";
import type { RunRecord } from "../runs/model.js";
import type { RunReads } from "../runs/access.js";
import type { AssetTable } from "./static.js";
import type { StreamSlots } from "./stream-slots.js";

/** What the viewer's routes need; app.ts builds it (see `App.viewer`). */
export interface ViewerDeps {
  /** Where `ca serve` was started: without `?wiki=` the wiki is selected from here, as the CLI would. */
  startCwd: string;
  /** `--wiki`: every request reads this wiki, whatever it asks for. */
  scopedWiki: string | null;
  repositories: {
    list(): RepositoryListing[];
    select(cwd: string, wiki?: string): Repository;
    byName(name: string): Repository;
  };
  indexes: LiveIndexes;
  /** Drift (git, read in batches): the stale badges, a page's drifting sources, the overview's stale pages. */
  drift(): Promise<DriftService>;
  /** The ledger, read only: the viewer changes runs only through `cancelRun`. */
  runs: RunReads;
  /** The same cancellation as `jobs cancel`. */
  cancelRun(runId: string, repositoryId: string): Promise<CancelOutcome>;
  /** A follower's check, as `jobs attach` makes it: recovers a followed run nobody looks after; true when it did. */
  followed(): { check(record: RunRecord): Promise<boolean> };
  /** The open job streams, bounded per client and in all. */
  streams: StreamSlots;
  assets: AssetTable;
  access: Access;
  /** One line for the server's log (stderr): unexpected failures with their details. */
  log(line: string): void;
  timing: StreamTiming;
  /** Aborted when the server shuts down: open event streams end. */
  closing: AbortSignal;
  /** True once the state root's database is gone (`uninstall` under a running viewer): every API answer is then 410. */
  stateGone(): boolean;
}

export interface Access {
  /** The per-launch secret. */
  token: string;
  /** Bound to a loopback address: the token guards only the cancel request. */
  loopback: boolean;
}

export interface StreamTiming {
  /** How often an event stream reads the ledger. */
  pollMs: number;
  /** A comment line this often keeps idle connections open through proxies. */
  heartbeatMs: number;
}
