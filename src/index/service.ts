import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { ProductError } from "../core/errors.js";
import { indexPath, type StatePaths } from "../core/paths.js";
import { peekDatabase, storageProblem, type Db } from "../core/sqlite.js";
import type { Repository } from "../repositories/model.js";
import { almanacPathFor, containedAlmanacPath, isInitializedRoot } from "../repositories/identity.js";
import { IndexFile } from "./file.js";
import { readRegistration, recordRegistration, REGISTRATION_KEY, type IndexRegistration } from "./meta.js";
import { IndexWriter, type RefreshOutcome } from "./refresh.js";

export type { RefreshOutcome, RefreshResult } from "./refresh.js";
import { provenMiss } from "./miss.js";
import type { PageParser } from "./parse-file.js";
import { searchHits, searchPages, type SearchHit, type SearchRequest, type SearchResult } from "./views/search.js";
import { pageFiles, pageFingerprints, showPage, type PageView } from "./views/pages.js";
import { listTopics, requireTopics, showTopic, type TopicDetail, type TopicSummary } from "./views/topics.js";
import { healthReport, type HealthReport } from "./views/health.js";
import { evidenceDigests, pageEvidence, type PageEvidence } from "./views/evidence.js";
import { collectIssues, type ValidationIssue } from "./views/validate.js";
import type { PrivacyRules } from "../privacy/redact.js";
import { wikiSummary, type SummaryLimits, type WikiSummary } from "./views/summary.js";

export interface IndexServiceDeps {
  paths: StatePaths;
  now: () => number;
  /** The state database's id, recorded in each index beside its wiki; absent where there is none (tests). */
  ledgerId?: () => string | null;
}

const loadParser = async (): Promise<PageParser> => (await import("./parse-file.js")).createPageParser();

/** Opens per-repository indexes; every read refreshes incrementally first. */
export class IndexService {
  private readonly opened = new Set<WikiIndex>();

  constructor(private readonly deps: IndexServiceDeps) {}

  /**
   * `fromRegistry: false` for a repository pieced together from elsewhere (a run's record):
   * the index then keeps the registration it has instead of recording that one.
   */
  open(repository: Repository, options: { fromRegistry?: boolean } = {}): WikiIndex {
    const almanacPath = almanacPathFor(repository.rootPath);
    if (!isInitializedRoot(repository.rootPath)) {
      throw new ProductError("not_found", `Almanac root not found: ${almanacPath}`);
    }
    const wikiRoot = containedAlmanacPath(repository.rootPath);
    const file = new IndexFile(indexPath(this.deps.paths, repository.repositoryId));
    const registration = (): IndexRegistration | null =>
      options.fromRegistry === false
        ? null
        : {
            repositoryId: repository.repositoryId,
            name: repository.name,
            description: repository.description,
            rootPath: repository.rootPath,
            registeredAt: repository.registeredAt,
            ledgerId: this.deps.ledgerId?.() ?? null,
          };
    const index = new WikiIndex({ file, repository, almanacPath, wikiRoot, now: this.deps.now, registration });
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

  /** The repository ids that have an index folder under the state root's repos/. */
  recordedIds(): string[] {
    try {
      return readdirSync(this.deps.paths.repos, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  }

  /** The wiki an index folder records it belongs to; null when its index is missing, unreadable or silent. */
  recordedRegistration(repositoryId: string): IndexRegistration | null {
    return peekDatabase(indexPath(this.deps.paths, repositoryId), readRegistration);
  }
}

interface WikiIndexParts {
  file: IndexFile;
  repository: Repository;
  almanacPath: string;
  /** almanac/'s real path, checked at open to lie inside the repository; page reads never leave it. */
  wikiRoot: string;
  now: () => number;
  /** What the index records about its wiki (see meta.ts); null: keep what it has. */
  registration: () => IndexRegistration | null;
}

/**
 * One wiki's index, opened on first use. Every call runs through `guard`: the index is
 * derived data, so when SQLite reports its file damaged (at open, in a refresh or in a
 * query) it is built again from almanac/ into a new file and the call runs once more; a
 * second failure, and any other storage failure, is one line naming the file. `reindex`
 * (`refresh(true)`) always builds a new file rather than updating the old one.
 */
export class WikiIndex {
  readonly repository: Repository;
  readonly almanacPath: string;
  readonly wikiRoot: string;
  private connection: Db | null = null;
  private writer: IndexWriter | null = null;
  /** The file the connection reads (device and inode), to notice a rebuild by another process. */
  private identity: string | null = null;
  private connections = 0;
  private closed = false;
  private lastRefresh: RefreshOutcome | null = null;
  private rebuilding: Promise<RefreshOutcome> | null = null;

  constructor(private readonly parts: WikiIndexParts) {
    this.repository = parts.repository;
    this.almanacPath = parts.almanacPath;
    this.wikiRoot = parts.wikiRoot;
  }

  /** The open connection, for code already running inside `read` (organize). */
  get db(): Db {
    return this.current();
  }

  /** Runs a query of the index's tables (the viewer's and MCP's own views) under the guard. */
  async read<T>(query: (db: Db) => T): Promise<T> {
    return this.guard(() => query(this.current()));
  }

  async refresh(force = false): Promise<RefreshOutcome> {
    return this.guard(async () => (force ? this.rebuild() : (this.lastRefresh = await this.writerFor().refresh(false))));
  }

  private async fresh(): Promise<RefreshOutcome> {
    return this.lastRefresh ?? (this.lastRefresh = await this.writerFor().refresh(false));
  }

  async search(request: SearchRequest): Promise<SearchResult> {
    return this.guard(async () => {
      await this.fresh();
      return searchPages(this.searchContext(), request);
    });
  }

  /** `search` without its total, which a bounded broad query may then skip counting. */
  async searchHits(request: SearchRequest): Promise<SearchHit[]> {
    return this.guard(async () => {
      await this.fresh();
      return searchHits(this.searchContext(), request);
    });
  }

  private searchContext() {
    return { db: this.current(), almanacPath: this.almanacPath, wikiRoot: this.wikiRoot, repositoryRoot: this.repository.rootPath };
  }

  async show(slug: string): Promise<PageView> {
    return this.guard(async () => {
      // An unknown page is reported without a refresh when that provably changes nothing.
      if (this.lastRefresh === null) {
        const miss = provenMiss(this.current(), this.almanacPath, slug);
        if (miss) throw miss;
      }
      await this.fresh();
      return showPage(this.current(), this.almanacPath, this.wikiRoot, slug);
    });
  }

  async topics(): Promise<TopicSummary[]> {
    return this.guard(async () => {
      await this.fresh();
      return listTopics(this.current());
    });
  }

  /**
   * The slugs of these topics, each one the wiki has (declared, or used by a page); an
   * unknown one is a not-found error with close matches, `listedBy` saying where all are listed.
   */
  async knownTopics(inputs: readonly string[], listedBy: string): Promise<string[]> {
    if (inputs.length === 0) return [];
    return requireTopics((await this.topics()).map((topic) => topic.slug), inputs, listedBy);
  }

  async topic(slug: string, withDescendants: boolean): Promise<TopicDetail> {
    return this.guard(async () => {
      await this.fresh();
      return showTopic(this.current(), slug, withDescendants);
    });
  }

  /** Each page's file sources (every page, or the named slugs), after a refresh. */
  async evidence(slugs: readonly string[] = []): Promise<PageEvidence[]> {
    return this.guard(async () => {
      await this.fresh();
      return pageEvidence(this.current(), slugs);
    });
  }

  /** Each page's evidence digest, by slug (every page, or the named ones), after a refresh. */
  async evidenceDigests(slugs: readonly string[] = []): Promise<Map<string, string>> {
    return this.guard(async () => {
      await this.fresh();
      return evidenceDigests(this.current(), slugs);
    });
  }

  async health(): Promise<HealthReport> {
    return this.guard(async () => {
      await this.fresh();
      return healthReport(this.current(), this.repository.rootPath);
    });
  }

  /**
   * Content hashes of the pages as indexed now, without refreshing first: a run compares
   * the sets from before and after its agent, so a refresh by any other reader in between
   * (a search, the viewer) cannot hide what the run changed. A rebuild in between keeps
   * the hashes of unchanged pages.
   */
  async pageFingerprints(): Promise<Map<string, string>> {
    return this.guard(() => pageFingerprints(this.current()));
  }

  /** The file of each named page, relative to almanac/, by slug, as indexed now (without refreshing first); an unknown slug is absent. */
  async pageFiles(slugs: readonly string[]): Promise<Map<string, string>> {
    return this.guard(() => pageFiles(this.current(), slugs));
  }

  async summary(limits: Partial<SummaryLimits> = {}): Promise<WikiSummary> {
    return this.guard(async () => {
      await this.fresh();
      return wikiSummary(this.current(), limits);
    });
  }

  async issues(): Promise<ValidationIssue[]> {
    return this.guard(async () => {
      const outcome = await this.fresh();
      return collectIssues(this.current(), outcome.scan, this.repository.rootPath);
    });
  }

  /** Each secret in the wiki's files as a `secret_found` error (views/secrets.ts), after a refresh. */
  async secretIssues(rules: PrivacyRules): Promise<ValidationIssue[]> {
    return this.guard(async () => {
      await this.fresh();
      // The redactor's detectors load only for `validate`, never for a read.
      const { secretIssues } = await import("./views/secrets.js");
      return secretIssues(this.current(), { almanacPath: this.almanacPath, wikiRoot: this.wikiRoot }, rules);
    });
  }

  /**
   * Changes whenever what the index holds may have changed under this handle: a commit by
   * another connection (SQLite's data_version) or a new connection (after a rebuild).
   */
  changeStamp(): string {
    const version = this.current().pragma("data_version", { simple: true }) as number;
    return `${this.connections}:${version}`;
  }

  /**
   * A consistent copy of the index as it is now, at `file` (which must not exist yet): another
   * state root then starts warm, re-reading only what changed since, instead of every page. The
   * copy keeps no registration, so that state root registers the wiki as its own, quietly,
   * instead of reporting it as a wiki its registry lost.
   */
  copyTo(file: string): void {
    mkdirSync(dirname(file), { recursive: true });
    const db = this.current();
    db.prepare("VACUUM INTO ?").run(file);
    db.prepare("ATTACH DATABASE ? AS copied").run(file);
    try {
      db.prepare("DELETE FROM copied.meta WHERE key = ?").run(REGISTRATION_KEY);
    } finally {
      db.exec("DETACH DATABASE copied");
    }
  }

  /** Forget the cached refresh so the next read sees writes made through this handle. */
  invalidate(): void {
    this.lastRefresh = null;
  }

  close(): void {
    this.closed = true;
    this.closeConnection();
  }

  private async guard<T>(operation: () => T | Promise<T>): Promise<T> {
    this.followReplacement();
    try {
      return await operation();
    } catch (error) {
      if (storageProblem(error) !== "damaged") throw this.failure(error, false);
      try {
        // Calls of one handle that meet the damage together (the viewer's requests) share one build.
        await (this.rebuilding ??= this.rebuild(true).finally(() => (this.rebuilding = null)));
        return await operation();
      } catch (again) {
        throw this.failure(again, true);
      }
    }
  }

  /**
   * A full build into a new file, which then replaces the current one (see IndexFile.build).
   * The old file's write lock is held meanwhile, so processes that find the same damage
   * wait for this build instead of making their own, and refreshes by others wait too.
   * `unlessReplaced`: another process's build that replaced the file while we waited for
   * its lock is taken instead (a rebuild for damage; `reindex` always builds).
   */
  private async rebuild(unlessReplaced = false): Promise<RefreshOutcome> {
    const locked = this.lockCurrent();
    const opened = this.identity;
    if (unlessReplaced && locked && this.parts.file.identity() !== opened) {
      this.closeConnection();
      return (this.lastRefresh = await this.writerFor().refresh(false));
    }
    const { almanacPath, wikiRoot, now } = this.parts;
    const registration = this.parts.registration() ?? this.storedRegistration();
    const before = this.indexedSlugs();
    try {
      const built = await this.parts.file.build(async (db) => {
        if (registration) recordRegistration(db, registration);
        return new IndexWriter({ db, almanacPath, wikiRoot, now, loadParser }).refresh(true);
      });
      this.closeConnection();
      return (this.lastRefresh = before ? comparedWith(built, before) : built);
    } finally {
      if (this.connection?.inTransaction) this.connection.exec("ROLLBACK");
    }
  }

  /** The pages the current file holds, if it can still be read. */
  private indexedSlugs(): Set<string> | null {
    try {
      return new Set(this.current().prepare("SELECT slug FROM pages").pluck().all() as string[]);
    } catch {
      return null;
    }
  }

  /** The registration the current file holds, if it can still be read. */
  private storedRegistration(): IndexRegistration | null {
    try {
      return readRegistration(this.current());
    } catch {
      return null;
    }
  }

  /** Takes the current file's write lock; false when the file is too damaged to take it. */
  private lockCurrent(): boolean {
    try {
      this.current().exec("BEGIN IMMEDIATE");
      return true;
    } catch {
      return false;
    }
  }

  private failure(error: unknown, rebuilt: boolean): unknown {
    // A write that ran out of space leaves its frames in the log: give the space back.
    if (storageProblem(error) === "full") this.releaseLog();
    return this.parts.file.failure(error, rebuilt);
  }

  private releaseLog(): void {
    try {
      this.connection?.pragma("wal_checkpoint(TRUNCATE)");
    } catch {
      // The log holds commits the full disk cannot take in: the index is derived, so it goes.
      this.closeConnection();
      this.parts.file.discard();
    }
  }

  /** Another process rebuilt the index (a new file at the path): read that one from now on. */
  private followReplacement(): void {
    if (this.connection && this.parts.file.identity() !== this.identity) this.closeConnection();
  }

  private current(): Db {
    if (this.connection) return this.connection;
    if (this.closed) throw new Error(`the index of ${this.repository.name} was closed`);
    const before = this.parts.file.identity();
    let db = this.parts.file.open();
    this.identity = this.parts.file.identity();
    // Replaced while it was being opened (a rebuild elsewhere): which file the connection
    // reads is then unknown, so open the one at the path now.
    if (before !== null && before !== this.identity) {
      db.close();
      db = this.parts.file.open();
      this.identity = this.parts.file.identity();
    }
    this.connection = db;
    this.connections++;
    this.writer = new IndexWriter({ db, almanacPath: this.almanacPath, wikiRoot: this.wikiRoot, now: this.parts.now, loadParser });
    const registration = this.parts.registration();
    if (registration) recordRegistration(db, registration);
    return db;
  }

  private writerFor(): IndexWriter {
    this.current();
    return this.writer!;
  }

  private closeConnection(): void {
    if (this.connection?.open) this.connection.close();
    this.connection = null;
    this.writer = null;
    this.lastRefresh = null;
  }
}

/**
 * A build into a new file finds every page new; told against the pages the old file held,
 * it reports them as a forced refresh of that file would: updated, created and deleted.
 */
function comparedWith(built: RefreshOutcome, before: Set<string>): RefreshOutcome {
  const pages = [...built.created, ...built.updated];
  const after = new Set(pages);
  const deleted = [...before].filter((slug) => !after.has(slug)).sort();
  return {
    ...built,
    result: { ...built.result, removed: deleted.length },
    created: pages.filter((slug) => !before.has(slug)).sort(),
    updated: pages.filter((slug) => before.has(slug)).sort(),
    deleted,
  };
}
