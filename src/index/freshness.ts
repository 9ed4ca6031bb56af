import { watch, type FSWatcher } from "node:fs";
import { join } from "node:path";
import type { Repository } from "../repositories/model.js";
import type { FolderListing } from "./scan.js";
import type { WikiIndex } from "./service.js";

/**
 * What `ensureFresh` did: `skipped` (the folder watches saw no change since the last
 * refresh), `checked` (a stat scan found nothing new) or `refreshed` (something changed
 * and the index was brought up to date).
 */
export type Freshness = "skipped" | "checked" | "refreshed";

/** Beyond this many folders a wiki is not watched; each request then pays for the stat scan. */
const MAX_WATCHED_FOLDERS = 2_000;

export interface LiveIndexOptions {
  /** Watch almanac/'s folders so an unchanged wiki costs no scan at all. */
  watch: boolean;
}

/**
 * An index handle kept open for a long-lived process (the viewer). Before each use it is
 * refreshed at most once, and only when something may have changed: a folder watch
 * fired, or, without watches, the index's own stat scan says so (see
 * almanac/decisions/incremental-index-refresh.md).
 */
export class LiveIndex {
  private changes = 0;
  /** The index's change stamp (commits by other connections, new connections) as of the last refresh. */
  private stamp: string | null = null;
  private inFlight: Promise<Freshness> | null = null;
  private readonly folders: FolderWatch | null;

  constructor(
    readonly index: WikiIndex,
    options: LiveIndexOptions,
  ) {
    this.folders = options.watch ? new FolderWatch(index.almanacPath) : null;
  }

  /** Grows whenever a refresh found a change: whatever was computed at one generation stays true until it grows. */
  get generation(): number {
    return this.changes;
  }

  async ensureFresh(): Promise<Freshness> {
    // A change made just before a request can have its watch event queued in the same
    // event-loop turn as the request: let those callbacks run before trusting the watch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.inFlight) await this.inFlight.catch(() => undefined);
    if (this.folders?.clean) return "skipped";
    const refresh = this.refreshOnce();
    this.inFlight = refresh;
    try {
      return await refresh;
    } finally {
      this.inFlight = null;
    }
  }

  private async refreshOnce(): Promise<Freshness> {
    // Cleared before the scan: any event from here on means the scan may have missed it.
    this.folders?.markClean();
    let outcome;
    try {
      outcome = await this.index.refresh();
    } catch (error) {
      this.folders?.markDirty();
      throw error;
    }
    const changed =
      !outcome.scan.matchesSnapshot || outcome.created.length + outcome.updated.length + outcome.deleted.length > 0;
    // Another process (an agent run, a CLI read) may have brought the index up to date
    // first: then our scan matches its snapshot, but the rows did change under us.
    const stamp = this.index.changeStamp();
    const writtenElsewhere = this.stamp !== null && stamp !== this.stamp;
    this.stamp = stamp;
    if (changed || writtenElsewhere) this.changes++;
    this.folders?.follow(outcome.scan.listings);
    return changed ? "refreshed" : "checked";
  }

  close(): void {
    this.folders?.close();
    this.index.close();
  }
}

/** The live handles of a process, one per wiki, kept until `close`. */
export class LiveIndexes {
  private readonly live = new Map<string, LiveIndex>();

  constructor(
    private readonly deps: { open: (repository: Repository) => WikiIndex; watch: boolean },
  ) {}

  get(repository: Repository): LiveIndex {
    const known = this.live.get(repository.repositoryId);
    if (known && known.index.repository.rootPath === repository.rootPath) return known;
    known?.close();
    const created = new LiveIndex(this.deps.open(repository), { watch: this.deps.watch });
    this.live.set(repository.repositoryId, created);
    return created;
  }

  /** A wiki that went away: its watches point at folders that no longer exist. */
  drop(repositoryId: string): void {
    this.live.get(repositoryId)?.close();
    this.live.delete(repositoryId);
  }

  close(): void {
    for (const index of this.live.values()) index.close();
    this.live.clear();
  }
}

/**
 * One non-recursive watch per folder of almanac/ (a folder's watch reports its files'
 * edits, additions and removals). The folder list comes from each refresh's scan. A
 * folder holding symlinks, a watch that fails, or too many folders turns watching off
 * for the wiki, and every request falls back to the stat scan.
 */
class FolderWatch {
  private readonly watchers = new Map<string, FSWatcher>();
  private dirty = true;
  private disabled = false;

  constructor(private readonly root: string) {}

  get clean(): boolean {
    return !this.dirty && !this.disabled;
  }

  markClean(): void {
    this.dirty = false;
  }

  markDirty(): void {
    this.dirty = true;
  }

  follow(listings: Record<string, FolderListing>): void {
    if (this.disabled) return;
    const folders = Object.keys(listings);
    // A symlink's target can change without any event in the folder we watch.
    if (folders.length > MAX_WATCHED_FOLDERS || folders.some((rel) => listings[rel]!.reread)) return this.disable();
    let added = false;
    for (const rel of folders) {
      if (this.watchers.has(rel)) continue;
      if (!this.add(rel)) return this.disable();
      added = true;
    }
    for (const [rel, watcher] of this.watchers) {
      if (rel in listings) continue;
      watcher.close();
      this.watchers.delete(rel);
    }
    // A folder watched only now may have changed between the scan and its watch.
    if (added) this.dirty = true;
  }

  private add(rel: string): boolean {
    try {
      const watcher = watch(rel === "" ? this.root : join(this.root, rel), { persistent: false }, () => {
        this.dirty = true;
      });
      // A folder that went away: the next refresh's scan decides what to watch.
      watcher.on("error", () => {
        watcher.close();
        this.watchers.delete(rel);
        this.dirty = true;
      });
      this.watchers.set(rel, watcher);
      return true;
    } catch {
      return false;
    }
  }

  private disable(): void {
    this.disabled = true;
    this.close();
  }

  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
