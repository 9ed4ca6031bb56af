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
import type { CountedCommits } from "./json.js";

const VERSION = 5;
const TAB = 9;
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
 * The file is a JSON header line (this shape, without `pages`), then one line per page:
 * `slug JSON, digest, status, file numbers, verified_at, file JSON, sources JSON`, tab
 * separated (JSON text never holds a raw tab or newline). A lookup reads only the fields
 * up to the file numbers; the rest is parsed when the page is shown.
 */
interface CacheFile {
  version: number;
  key: CacheKey;
  commits: string[];
  /** Path → the commit numbers that changed it, newest first, as far back as a source needed them. */
  paths: Record<string, number[]>;
  /** Repository-relative paths the results read, and the state of each when it was read (null: it did not exist). */
  files: string[];
  states: (string | null)[];
  /** Slug → the page's line after its slug. */
  pages: Map<string, string>;
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
    this.file = { version: VERSION, key, commits: [], paths: {}, files: [], states: [], pages: new Map() };
    try {
      const cached = readCacheFile(path);
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
    const line = this.file.pages.get(slug);
    if (line === undefined || !line.startsWith(digest) || line.charCodeAt(digest.length) !== TAB) return null;
    const statusEnd = line.indexOf("\t", digest.length + 1);
    const filesEnd = line.indexOf("\t", statusEnd + 1);
    if (statusEnd < 0 || filesEnd < 0) return null;
    const unchanged = (this.unchanged ??= this.file.files.map((path, i) => this.file.states[i] === this.state(path)));
    for (let at = statusEnd + 1; at < filesEnd; ) {
      let comma = line.indexOf(",", at);
      if (comma < 0 || comma > filesEnd) comma = filesEnd;
      if (!unchanged[Number(line.slice(at, comma))]) return null;
      at = comma + 1;
    }
    const status = line.slice(digest.length + 1, statusEnd) as PageDrift["status"];
    return new CachedPage(slug, status, line, filesEnd + 1, (text) => (JSON.parse(text) as StoredSource[]).map((s) => this.decode(s)));
  }

  /** Remembers a page's result; the states of the files it read must have been taken (`state`) before they were read. */
  store(digest: string, drift: PageDrift): void {
    const files = new Set<number>();
    for (const source of drift.sources) {
      files.add(this.fileNumber(source.path));
      if (source.now) files.add(this.fileNumber(source.now.path));
    }
    const sources = JSON.stringify(drift.sources.map((s) => this.encode(s)));
    this.file.pages.set(drift.slug, [digest, drift.status, [...files].join(","), drift.verified_at ?? "", JSON.stringify(drift.file), sources].join("\t"));
  }

  /** Drops pages that no longer exist (after a full report), so the file does not grow without end. */
  keepOnly(slugs: ReadonlySet<string>): void {
    for (const slug of [...this.file.pages.keys()]) if (!slugs.has(slug)) this.file.pages.delete(slug);
  }

  /** Written whole to a temporary file and renamed, so a reader never sees half a cache; a failure only costs the next run. */
  save(): void {
    const temporary = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, cacheFileText(this.file));
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
    const shas = (limit: number) => {
      if (typeof commits !== "number") return commits.slice(0, limit).map((n) => this.file.commits[n]!);
      let all = this.pathShas.get(path);
      if (!all) this.pathShas.set(path, (all = (this.file.paths[path] ?? []).map((n) => this.file.commits[n]!)));
      return all.slice(0, Math.min(commits, limit));
    };
    const count = typeof commits === "number" ? commits : commits.length;
    return new CachedSource(id, path, lines, SOURCE_STATUSES[status]!, reason ?? UNCHANGED, nowPath !== undefined ? { path: nowPath, lines: nowLines ?? null } : undefined, count, shas);
  }
}

/** A source read back from the cache: its commit ids are listed when first asked for (most reads show only a few). */
class CachedSource implements SourceDrift, CountedCommits {
  private listed: string[] | null = null;

  constructor(
    readonly id: string,
    readonly path: string,
    readonly lines: string | null,
    readonly status: SourceDrift["status"],
    readonly reason: string,
    readonly now: SourceDrift["now"],
    readonly commitCount: number,
    private readonly list: (limit: number) => string[],
  ) {}

  get commits(): string[] {
    return (this.listed ??= this.commitCount === 0 ? [] : this.list(Infinity));
  }

  /** The newest `n` commits, without listing the rest. */
  newest(n: number): string[] {
    return this.listed ? this.listed.slice(0, n) : this.list(n);
  }

  toJSON(): SourceDrift {
    return { id: this.id, path: this.path, lines: this.lines, status: this.status, commits: this.commits, reason: this.reason, ...(this.now ? { now: this.now } : {}) };
  }
}

/** A page read back from the cache: the fields after its status are read when first asked for. */
class CachedPage implements PageDrift {
  private rest: { verified_at: string | null; file: string; sources: string } | null = null;
  private decoded: SourceDrift[] | null = null;

  constructor(
    readonly slug: string,
    readonly status: PageDrift["status"],
    private readonly line: string,
    private readonly restStart: number,
    private readonly decode: (text: string) => SourceDrift[],
  ) {}

  private fields() {
    if (this.rest) return this.rest;
    const verifiedEnd = this.line.indexOf("\t", this.restStart);
    const fileEnd = this.line.indexOf("\t", verifiedEnd + 1);
    const verified = this.line.slice(this.restStart, verifiedEnd);
    return (this.rest = {
      verified_at: verified === "" ? null : verified,
      file: JSON.parse(this.line.slice(verifiedEnd + 1, fileEnd)) as string,
      sources: this.line.slice(fileEnd + 1),
    });
  }

  get file(): string {
    return this.fields().file;
  }

  get verified_at(): string | null {
    return this.fields().verified_at;
  }

  get sources(): SourceDrift[] {
    return (this.decoded ??= this.decode(this.fields().sources));
  }

  toJSON(): PageDrift {
    return { slug: this.slug, file: this.file, status: this.status, verified_at: this.verified_at, sources: this.sources };
  }
}

function cacheFileText(file: CacheFile): string {
  const { pages, ...header } = file;
  const lines = [JSON.stringify(header)];
  for (const [slug, line] of pages) lines.push(`${JSON.stringify(slug)}\t${line}`);
  return lines.join("\n") + "\n";
}

/** The header parsed; each page kept as the text after its slug, split only when looked up. */
function readCacheFile(path: string): CacheFile {
  const text = readFileSync(path, "utf8");
  let newline = text.indexOf("\n");
  const header = JSON.parse(text.slice(0, newline)) as Omit<CacheFile, "pages">;
  const pages = new Map<string, string>();
  for (let start = newline + 1; start < text.length; start = newline + 1) {
    newline = text.indexOf("\n", start);
    if (newline < 0) newline = text.length;
    const tab = text.indexOf("\t", start);
    if (tab < 0 || tab > newline) continue;
    pages.set(JSON.parse(text.slice(start, tab)) as string, text.slice(tab + 1, newline));
  }
  return { ...header, pages };
}

