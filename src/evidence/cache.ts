/**
 * Drift results kept beside the wiki's index, page by page, and reused while nothing a page's
 * result was computed from has changed: the same HEAD, the same git index file (staging or a
 * checkout rewrites it), the same file sources on the page (the index's evidence digest), and
 * each file it read with the same size, mtime and inode (an uncommitted edit changes those).
 * A page whose inputs changed is judged again; the others are read back. The file is compact
 * (shared tables of commits and file states) because it is read on every `ca drift`.
 */
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SOURCE_STATUSES, type PageDrift, type SourceDrift } from "./types.js";

const VERSION = 3;
const UNCHANGED = "unchanged";

export interface CacheKey {
  head: string;
  /** Size, mtime and inode of the git index file. */
  gitIndex: string | null;
}

/**
 * `[id, path, lines, status, commits, reason (absent: unchanged), now path, now lines]`. The
 * commits are a count when they are the newest ones of the path's shared list (in a linear
 * history the commits since any commit are), else the commit numbers themselves.
 */
type StoredSource = [string, string, string | null, number, number | number[], string?, string?, (string | null)?];
/**
 * `[evidence digest, file, verified_at, page status, numbers of the files read (in `files`),
 * sources as JSON text]`: the sources stay text until a page is shown, since most reads print
 * only the drifting pages.
 */
type StoredPage = [string, string, string | null, PageDrift["status"], number[], string];

interface CacheFile {
  version: number;
  key: CacheKey;
  commits: string[];
  /** Path → the commit numbers that changed it, newest first, as far back as a source needed them. */
  paths: Record<string, number[]>;
  /** Repository-relative paths the results read, and the state of each when it was read (null: it did not exist). */
  files: string[];
  states: (string | null)[];
  pages: Record<string, StoredPage>;
}

/** Size, mtime (ns) and inode; null when the path does not exist. */
export function fileState(path: string): string | null {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.size}:${stat.mtimeNs}:${stat.ino}`;
  } catch {
    return null;
  }
}

export class DriftCache {
  private file: CacheFile;
  private readonly now = new Map<string, string | null>();
  private readonly commitNumbers = new Map<string, number>();

  constructor(
    private readonly path: string,
    private readonly root: string,
    key: CacheKey,
  ) {
    this.file = { version: VERSION, key, commits: [], paths: {}, files: [], states: [], pages: {} };
    try {
      const cached = JSON.parse(readFileSync(path, "utf8")) as CacheFile;
      if (cached.version === VERSION && cached.key.head === key.head && cached.key.gitIndex === key.gitIndex) this.file = cached;
    } catch {
      // No cache yet, or one that cannot be read: every page is judged.
    }
    this.file.commits.forEach((sha, i) => this.commitNumbers.set(sha, i));
    this.file.files.forEach((path, i) => this.fileNumbers.set(path, i));
  }

  private readonly fileNumbers = new Map<string, number>();
  /** Per file number: is it as it was when read? Checked once per report. */
  private unchanged: boolean[] | null = null;

  private fileNumber(path: string): number {
    let n = this.fileNumbers.get(path);
    if (n === undefined) {
      n = this.file.files.push(path) - 1;
      this.file.states.push(null);
      this.fileNumbers.set(path, n);
    }
    this.file.states[n] = this.state(path);
    return n;
  }

  /** The state of a file now, taken once per report (before the file is read). */
  state(path: string): string | null {
    let state = this.now.get(path);
    if (state === undefined) this.now.set(path, (state = fileState(join(this.root, path))));
    return state;
  }

  /** The page's cached result, if its evidence digest matches and every file it read is as it was. */
  lookup(slug: string, digest: string): PageDrift | null {
    const stored = this.file.pages[slug];
    if (!stored || stored[0] !== digest) return null;
    const unchanged = (this.unchanged ??= this.file.files.map((path, i) => this.file.states[i] === this.state(path)));
    if (!stored[4].every((n) => unchanged[n])) return null;
    return new CachedPage(slug, stored, (text) => (JSON.parse(text) as StoredSource[]).map((s) => this.decode(s)));
  }

  /** Remembers a page's result; the states of the files it read must have been taken (`state`) before they were read. */
  store(digest: string, drift: PageDrift): void {
    const files = new Set<number>();
    for (const source of drift.sources) {
      files.add(this.fileNumber(source.path));
      if (source.now) files.add(this.fileNumber(source.now.path));
    }
    this.file.pages[drift.slug] = [digest, drift.file, drift.verified_at, drift.status, [...files], JSON.stringify(drift.sources.map((s) => this.encode(s)))];
  }

  /** Drops pages that no longer exist (after a full report), so the file does not grow without end. */
  keepOnly(slugs: ReadonlySet<string>): void {
    for (const slug of Object.keys(this.file.pages)) if (!slugs.has(slug)) delete this.file.pages[slug];
  }

  /** Written whole to a temporary file and renamed, so a reader never sees half a cache; a failure only costs the next run. */
  save(): void {
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, JSON.stringify(this.file));
      renameSync(temporary, this.path);
    } catch {
      // A read-only or full state folder: drift still answers, only slower next time.
    }
  }

  private encode(source: SourceDrift): StoredSource {
    const numbers = source.commits.map((sha) => {
      let n = this.commitNumbers.get(sha);
      if (n === undefined) {
        n = this.file.commits.push(sha) - 1;
        this.commitNumbers.set(sha, n);
      }
      return n;
    });
    const stored: StoredSource = [source.id, source.path, source.lines, SOURCE_STATUSES.indexOf(source.status), this.shared(source.path, numbers)];
    if (source.reason !== UNCHANGED || source.now) stored.push(source.reason);
    if (source.now) stored.push(source.now.path, source.now.lines);
    return stored;
  }

  /** The count, when `numbers` start the path's shared list (which grows to hold them); else `numbers`. */
  private shared(path: string, numbers: number[]): number | number[] {
    if (numbers.length === 0) return 0;
    const list = (this.file.paths[path] ??= []);
    const common = Math.min(list.length, numbers.length);
    for (let i = 0; i < common; i++) if (list[i] !== numbers[i]) return numbers;
    if (numbers.length > list.length) list.push(...numbers.slice(list.length));
    return numbers.length;
  }

  /** A path's shared commit list as ids, made once per report. */
  private readonly pathShas = new Map<string, string[]>();

  private decode(stored: StoredSource): SourceDrift {
    const [id, path, lines, status, commits, reason, nowPath, nowLines] = stored;
    let shas: string[];
    if (typeof commits === "number") {
      let all = this.pathShas.get(path);
      if (!all) this.pathShas.set(path, (all = (this.file.paths[path] ?? []).map((n) => this.file.commits[n]!)));
      shas = all.slice(0, commits);
    } else {
      shas = commits.map((n) => this.file.commits[n]!);
    }
    return {
      id,
      path,
      lines,
      status: SOURCE_STATUSES[status]!,
      commits: shas,
      reason: reason ?? UNCHANGED,
      ...(nowPath !== undefined ? { now: { path: nowPath, lines: nowLines ?? null } } : {}),
    };
  }
}

/** A page read back from the cache: its sources are decoded when first asked for. */
class CachedPage implements PageDrift {
  readonly file: string;
  readonly verified_at: string | null;
  readonly status: PageDrift["status"];
  private decoded: SourceDrift[] | null = null;

  constructor(
    readonly slug: string,
    private readonly stored: StoredPage,
    private readonly decode: (text: string) => SourceDrift[],
  ) {
    this.file = stored[1];
    this.verified_at = stored[2];
    this.status = stored[3];
  }

  get sources(): SourceDrift[] {
    return (this.decoded ??= this.decode(this.stored[5]));
  }

  toJSON(): PageDrift {
    return { slug: this.slug, file: this.file, status: this.status, verified_at: this.verified_at, sources: this.sources };
  }
}
