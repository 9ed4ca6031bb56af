import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { ProductError } from "../core/errors.js";
import { indexPath, type StatePaths } from "../core/paths.js";
import { openDatabase, type Db } from "../core/sqlite.js";
import type { Repository } from "../repositories/model.js";
import { almanacPathFor, containedAlmanacPath, isInitializedRoot } from "../repositories/identity.js";
import { indexMigrations } from "./schema.js";
import { IndexWriter, type RefreshOutcome } from "./refresh.js";
import { provenMiss } from "./miss.js";
import type { PageParser } from "./parse-file.js";
import { searchPages, type SearchRequest, type SearchResult } from "./views/search.js";
import { pageFingerprints, showPage, type PageView } from "./views/pages.js";
import { listTopics, showTopic, type TopicDetail, type TopicSummary } from "./views/topics.js";
import { healthReport, type HealthReport } from "./views/health.js";
import { collectIssues, type ValidationIssue } from "./views/validate.js";
import { wikiSummary, type SummaryLimits, type WikiSummary } from "./views/summary.js";

export interface IndexServiceDeps {
  paths: StatePaths;
  now: () => number;
}

const loadParser = async (): Promise<PageParser> => (await import("./parse-file.js")).createPageParser();

/** Opens per-repository indexes; every read refreshes incrementally first. */
export class IndexService {
  private readonly opened = new Set<WikiIndex>();

  constructor(private readonly deps: IndexServiceDeps) {}

  open(repository: Repository): WikiIndex {
    const almanacPath = almanacPathFor(repository.rootPath);
    if (!isInitializedRoot(repository.rootPath)) {
      throw new ProductError("not_found", `Almanac root not found: ${almanacPath}`);
    }
    const wikiRoot = containedAlmanacPath(repository.rootPath);
    const file = indexPath(this.deps.paths, repository.repositoryId);
    const open = () => openDatabase(file, { migrations: indexMigrations, onNewerSchema: "recreate", busyTimeoutMs: 60_000 });
    let db: Db;
    try {
      db = open();
    } catch (error) {
      // The index is derived from almanac/ and disposable: a damaged file is rebuilt, not reported.
      if (!isDamagedDatabase(error)) throw error;
      for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
      db = open();
    }
    const index = new WikiIndex(db, repository, almanacPath, this.deps.now, wikiRoot);
    this.opened.add(index);
    return index;
  }

  /** Closes every index opened here, so SQLite checkpoints and removes their write-ahead logs. */
  close(): void {
    for (const index of this.opened) index.close();
    this.opened.clear();
  }

  remove(repositoryId: string): void {
    rmSync(dirname(indexPath(this.deps.paths, repositoryId)), { recursive: true, force: true });
  }
}

function isDamagedDatabase(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT";
}

export class WikiIndex {
  private readonly writer: IndexWriter;
  private lastRefresh: RefreshOutcome | null = null;

  constructor(
    readonly db: Db,
    readonly repository: Repository,
    readonly almanacPath: string,
    now: () => number,
    /** almanac/'s real path, checked at open to lie inside the repository; page reads never leave it. */
    readonly wikiRoot: string,
  ) {
    this.writer = new IndexWriter({ db, almanacPath, wikiRoot, now, loadParser });
  }

  async refresh(force = false): Promise<RefreshOutcome> {
    this.lastRefresh = await this.writer.refresh(force);
    return this.lastRefresh;
  }

  private async fresh(): Promise<RefreshOutcome> {
    return this.lastRefresh ?? (await this.refresh());
  }

  async search(request: SearchRequest): Promise<SearchResult> {
    await this.fresh();
    return searchPages({ db: this.db, almanacPath: this.almanacPath, wikiRoot: this.wikiRoot, repositoryRoot: this.repository.rootPath }, request);
  }

  async show(slug: string): Promise<PageView> {
    // An unknown page is reported without a refresh when that provably changes nothing.
    if (this.lastRefresh === null) {
      const miss = provenMiss(this.db, this.almanacPath, slug);
      if (miss) throw miss;
    }
    await this.fresh();
    return showPage(this.db, this.almanacPath, this.wikiRoot, slug);
  }

  async topics(): Promise<TopicSummary[]> {
    await this.fresh();
    return listTopics(this.db);
  }

  async topic(slug: string, withDescendants: boolean): Promise<TopicDetail> {
    await this.fresh();
    return showTopic(this.db, slug, withDescendants);
  }

  async health(): Promise<HealthReport> {
    await this.fresh();
    return healthReport(this.db, this.repository.rootPath);
  }

  /**
   * Content hashes of the pages as indexed now, without refreshing first: a run compares
   * the sets from before and after its agent, so a refresh by any other reader in between
   * (a search, the viewer) cannot hide what the run changed.
   */
  pageFingerprints(): Map<string, string> {
    return pageFingerprints(this.db);
  }

  async summary(limits: Partial<SummaryLimits> = {}): Promise<WikiSummary> {
    await this.fresh();
    return wikiSummary(this.db, limits);
  }

  async issues(): Promise<ValidationIssue[]> {
    const outcome = await this.fresh();
    return collectIssues(this.db, outcome.scan, this.repository.rootPath);
  }

  /**
   * A consistent copy of the index as it is now, at `file` (which must not exist yet): another
   * state root then starts warm, re-reading only what changed since, instead of every page.
   */
  copyTo(file: string): void {
    mkdirSync(dirname(file), { recursive: true });
    this.db.prepare("VACUUM INTO ?").run(file);
  }

  /** Forget the cached refresh so the next read sees writes made through this handle. */
  invalidate(): void {
    this.lastRefresh = null;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
