import { readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { openDatabase, storageFailure, storageProblem, type Db } from "../core/sqlite.js";
import { indexMigrations } from "./schema.js";

/** Files SQLite keeps beside a database; they belong to that one file and go with it. */
const SIDE_FILES = ["-wal", "-shm", "-journal"];
/** A full build of a big wiki holds the write lock for seconds; readers and writers wait. */
const BUSY_TIMEOUT_MS = 60_000;

let builds = 0;

/**
 * One wiki's index on disk. The index is derived from almanac/, so a file SQLite cannot
 * read is not repaired but replaced: a full build goes into a new file beside it, which is
 * renamed over the old one only once it is complete. A build that fails (a full disk)
 * leaves the old index as it was and nothing of its own behind.
 */
export class IndexFile {
  constructor(readonly path: string) {}

  /** Opens the index, creating it; a file that is not a database at all is discarded and created again. */
  open(): Db {
    try {
      return openIndexDatabase(this.path);
    } catch (error) {
      const problem = storageProblem(error);
      if (problem === "damaged") {
        this.discard();
        try {
          return openIndexDatabase(this.path);
        } catch (again) {
          throw this.failure(again, true);
        }
      }
      // A file created half-way must not keep a full disk full.
      if (problem === "full") this.discard();
      throw this.failure(error);
    }
  }

  /** Which file is at the path now (device and inode), so a handle can tell that it was replaced. */
  identity(): string | null {
    try {
      const stat = statSync(this.path);
      return `${stat.dev}:${stat.ino}`;
    } catch {
      return null;
    }
  }

  /**
   * Builds a complete index in a new file and puts it in place of the current one.
   * The old file's -wal and -shm go first, so no process that opens the path in between
   * can pair the new file with the old one's log. Connections other processes still hold
   * keep reading the file they opened: SQLite sees that it moved and leaves the new
   * file's logs alone when they close, and WikiIndex reopens the path on its next call.
   */
  async build<T>(fill: (db: Db) => Promise<T>): Promise<T> {
    this.removeAbandonedBuilds();
    const temp = `${this.path}.build-${process.pid}-${++builds}`;
    let db: Db | undefined;
    try {
      db = openIndexDatabase(temp);
      // Nobody else reads this file before it is complete: a write-ahead log would only
      // double the space a build needs, and a fresh file's rollback journal stays empty.
      db.pragma("journal_mode = MEMORY");
      // A full build writes each page's rows right after the page itself and deletes
      // nothing, so checking every row's parent (a lookup a row) finds nothing to refuse.
      db.pragma("foreign_keys = OFF");
      const result = await fill(db);
      // A file that is complete on its own; openDatabase switches it to WAL when it is opened.
      db.pragma("journal_mode = DELETE");
      db.close();
      for (const suffix of SIDE_FILES) rmSync(this.path + suffix, { force: true });
      renameSync(temp, this.path);
      return result;
    } catch (error) {
      if (db?.open) db.close();
      removeWithSideFiles(temp);
      throw error;
    }
  }

  /** Deletes the index with its side files; the next open starts an empty one. */
  discard(): void {
    removeWithSideFiles(this.path);
  }

  /** A storage failure of this file as one line naming it; anything else is returned as it is. */
  failure(error: unknown, rebuilt = false): unknown {
    return (
      storageFailure(error, this.path, "the wiki's index", {
        damaged: rebuilt
          ? "it was built again from almanac/ and is still damaged: check the disk that holds it, then run `ca reindex`"
          : "run `ca reindex` to build it again from almanac/",
        full: "free some space on its disk and try again (the index is derived from almanac/ and is built again then)",
      }) ?? error
    );
  }

  /** Builds of processes that died before renaming their file (a crash, SIGKILL). */
  private removeAbandonedBuilds(): void {
    const prefix = `${basename(this.path)}.build-`;
    let names: string[];
    try {
      names = readdirSync(dirname(this.path));
    } catch {
      return;
    }
    for (const name of names) {
      const pid = Number(/^(\d+)-\d+$/.exec(name.slice(prefix.length).replace(/-(wal|shm|journal)$/, ""))?.[1]);
      if (name.startsWith(prefix) && Number.isSafeInteger(pid) && !isRunning(pid)) rmSync(join(dirname(this.path), name), { force: true });
    }
  }
}

function openIndexDatabase(file: string): Db {
  return openDatabase(file, { migrations: indexMigrations, onNewerSchema: "recreate", busyTimeoutMs: BUSY_TIMEOUT_MS, autoVacuum: "incremental" });
}

function removeWithSideFiles(file: string): void {
  for (const suffix of ["", ...SIDE_FILES]) rmSync(file + suffix, { force: true });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
