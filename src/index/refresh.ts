import { join } from "node:path";
import type { Statement } from "better-sqlite3";
import type { Db } from "../core/sqlite.js";
import { trace } from "../core/trace.js";
import { hashPageFile } from "./page-file.js";
import { comparePaths, isRacy, scanWiki, snapshotOf, type ScanSnapshot, type ScannedFile, type WikiScan } from "./scan.js";
import type { ParsedFile, PageParser } from "./parse-file.js";
import type { BatchParser, ParseJob } from "./parse-pool.js";
import { SECTION_SLOTS } from "./layout.js";
import { PostingsWriter } from "./postings.js";
import { readMeta, writeMeta } from "./meta.js";
import { createPageIndexes, recreatePageTables } from "./schema.js";
import { filesOfSlugs, listedChanges, SNAPSHOT_KEY, type ListedChanges } from "./changes.js";

export interface RefreshResult {
  changed: number;
  removed: number;
  pages_indexed: number;
  files_seen: number;
  files_skipped: number;
}

export interface RefreshOutcome {
  result: RefreshResult;
  created: string[];
  updated: string[];
  deleted: string[];
  scan: WikiScan;
}

interface ManifestRow {
  rel_path: string;
  size: number;
  mtime_ms: number;
  checked_at: number;
  content_hash: string;
  slug: string | null;
  state: FileState;
}

/** page: indexed; collision: lost its route; skipped: unreadable, undecodable or binary. */
type FileState = "page" | "collision" | "skipped";

interface TopicsStamp {
  size: number;
  mtimeMs: number;
  checkedAt: number;
  hash: string;
}

/** What a refresh found to do, computed inside its write transaction (see IndexWriter.plan). */
interface Plan {
  scan: WikiScan;
  /** The files routing may read (every scanned file, or those of the affected slugs when the scan listed its changes). */
  files: ReadonlyMap<string, ScannedFile>;
  now: number;
  force: boolean;
  /** Every page is written anew (forced, or the index was empty): page tables are recreated. */
  bulk: boolean;
  /** Manifest rows of changed and removed files and of every file on an affected route. */
  manifest: Map<string, ManifestRow>;
  /** Content hashes computed while planning (files that may only have been touched). */
  hashes: Map<string, string>;
  toParse: Set<string>;
  touchOnly: ScannedFile[];
  removedPaths: string[];
  /** Every slug's files, in component order (the order that decides ownership). */
  bySlug: Map<string, string[]>;
  /** Slugs whose owner must be decided again. */
  slugs: string[];
  /** Slug → the file that owned it before this refresh. */
  owners: Map<string, string>;
  /** Affected slugs that had a page before, with its topics (JSON). */
  previousTopics: Map<string, string>;
}

/** What the route and write steps did, for the outcome. */
interface Tally {
  created: string[];
  updated: string[];
  deleted: string[];
  /** Some page's topics changed, so the topic table is rebuilt. */
  topicsChanged: boolean;
  /** Files whose row routing rewrote; their manifest row is stale after that. */
  decided: Set<string>;
}

/** The previous owner keeps its route when it was not changed (and the rebuild is not forced). */
function ownerKeeps(plan: Plan, slug: string, rel: string): boolean {
  return !plan.force && plan.owners.get(slug) === rel && !plan.toParse.has(rel);
}

/** The parse jobs of some slugs: every file that routing may need to read, in route order. */
function jobsFor(plan: Plan, slugs: string[]): ParseJob[] {
  const jobs: ParseJob[] = [];
  for (const slug of slugs) {
    for (const rel of plan.bySlug.get(slug) ?? []) {
      if (ownerKeeps(plan, slug, rel)) break;
      const file = plan.files.get(rel)!;
      const hash = plan.hashes.get(rel);
      jobs.push(hash === undefined ? { file } : { file, hash });
    }
  }
  return jobs;
}

/**
 * Parse: the affected slugs in batches, yielded in order. Workers (big rebuilds) take the
 * next unstarted batches, up to PARSE_AHEAD beyond the one the writer needs; while that one
 * is still on a worker, the writer parses the next unstarted batch itself, so the writing
 * thread never idles while there is parsing left (and with no workers it parses every batch).
 */
async function* parseBatches(plan: Plan, parser: PageParser, wikiRoot: string): AsyncGenerator<[string[], Map<string, ParsedFile>]> {
  const { createBatchParser } = await import("./parse-pool.js");
  const pool: BatchParser = createBatchParser(parser, plan.slugs.length, wikiRoot);
  trace(`refresh: parsing ${pool.threads > 0 ? `on ${pool.threads} worker threads and the writing thread` : "inline"}`);
  const batches: string[][] = [];
  for (let i = 0; i < plan.slugs.length; i += SLUG_BATCH) batches.push(plan.slugs.slice(i, i + SLUG_BATCH));
  const byPath = (results: ParsedFile[]) => new Map(results.map((r) => [r.file.relPath, r]));
  const slots: BatchSlot[] = [];
  let next = 0;
  const parseHere = () => {
    slots[next] = { done: byPath(pool.parseHere(jobsFor(plan, batches[next]!))) };
    next++;
  };
  const startOnWorkers = (current: number) => {
    while (next < batches.length && next <= current + PARSE_AHEAD && pool.canTake()) {
      const slot: BatchSlot = {};
      slot.promise = pool.parse(jobsFor(plan, batches[next]!)).then((results) => {
        slot.done = byPath(results);
      });
      // A worker's failure surfaces where its batch is awaited; a batch never awaited must not crash the process.
      slot.promise.catch(() => undefined);
      slots[next++] = slot;
    }
  };
  try {
    for (let k = 0; k < batches.length; k++) {
      for (;;) {
        startOnWorkers(k);
        const slot = slots[k];
        if (slot?.done) break;
        if (!slot) {
          parseHere();
          continue;
        }
        // Take in what workers have sent back before deciding: parsing here blocks their messages.
        await new Promise(setImmediate);
        if (slot.done) continue;
        if (next < batches.length && next <= k + PARSE_AHEAD) parseHere();
        else await slot.promise;
      }
      const parsed = slots[k]!.done!;
      delete slots[k];
      yield [batches[k]!, parsed];
    }
  } finally {
    await pool.close();
  }
}

/** A batch's parse: on a worker (`promise`, then `done`) or done on the writing thread. */
interface BatchSlot {
  promise?: Promise<void>;
  done?: Map<string, ParsedFile>;
}

/** Free pages are handed back once they are more than 1 / FREE_PAGE_SHARE of the index file. */
const FREE_PAGE_SHARE = 16;

/**
 * Slugs decided per batch, and batches parsed ahead of the writer. Small enough that parsed
 * batches waiting for the writer stay few (each one waiting is memory the writer's heap
 * keeps: 100 and 2 took about 15 MB off the bench rebuild's peak against 200 and 4), large
 * enough that a batch costs far more than the message that carries it.
 */
const SLUG_BATCH = 100;
const PARSE_AHEAD = 2;

export interface IndexWriterOptions {
  db: Db;
  almanacPath: string;
  /** almanac/'s real path, checked to lie inside the repository: no page is read from outside it. */
  wikiRoot: string;
  now: () => number;
  loadParser: () => Promise<PageParser>;
}

/**
 * Keeps the index in step with almanac/. Freshness comes from stat data; content is
 * read and hashed only for files whose stat changed, and parsed only when the hash did.
 */
export class IndexWriter {
  constructor(private readonly options: IndexWriterOptions) {}

  async refresh(force = false): Promise<RefreshOutcome> {
    const { db } = this.options;
    trace("refresh: start");
    const previous = force ? null : readMeta<ScanSnapshot>(db, SNAPSHOT_KEY);
    trace("refresh: snapshot read");
    const scan = scanWiki(this.options.almanacPath, previous);
    trace(`refresh: scanned ${scan.fileCount} files`);
    // Unchanged since the last refresh, unless a file changed so recently that its mtime may not show the next edit.
    const fresh = previous !== null && scan.matchesSnapshot && !isRacy(scan.newestMtime, previous.checkedAt);
    trace(`refresh: ${fresh ? "fresh" : "stale"}`);
    if (fresh) {
      // Counting pages costs a query that reads (search, show) never need.
      const count = () => this.counts(scan, 0, 0);
      return {
        get result() {
          return count();
        },
        created: [],
        updated: [],
        deleted: [],
        scan,
      };
    }
    // The parser (markdown-it, YAML) loads only if something turns out to need parsing.
    let parser: PageParser | undefined;
    const getParser = async () => (parser ??= await this.options.loadParser());
    // A manual BEGIN IMMEDIATE (not db.transaction) because parsing awaits worker threads.
    db.exec("BEGIN IMMEDIATE");
    try {
      const outcome = await this.apply(scan, previous, getParser, force);
      db.exec("COMMIT");
      this.reclaimFreePages();
      return outcome;
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  }

  /**
   * Hands free pages back to the file system once they are more than a sixteenth of the
   * file: a refresh that rewrites many pages frees the pages of their old rows and search
   * segments, and without this the file kept them (editing 1,000 of the bench wiki's 10,000
   * pages grew its index from 77 MB to 112 MB, a third of it free). Index files are created
   * with auto_vacuum = INCREMENTAL (src/index/file.ts); in older files this does nothing.
   */
  private reclaimFreePages(): void {
    const { db } = this.options;
    const free = db.pragma("freelist_count", { simple: true }) as number;
    const total = db.pragma("page_count", { simple: true }) as number;
    if (free * FREE_PAGE_SHARE <= total) return;
    db.pragma("incremental_vacuum");
    trace(`refresh: ${free} free pages of ${total} handed back`);
  }

  private storeSnapshot(scan: WikiScan, now: number): void {
    writeMeta(this.options.db, SNAPSHOT_KEY, snapshotOf(scan, now));
  }

  /**
   * One refresh inside the write transaction, in four steps: plan (what changed and which
   * routes it touches), parse (in batches, on worker threads for big rebuilds), route (which
   * file owns each touched slug) and write (the rows of each decided file).
   */
  private async apply(scan: WikiScan, previous: ScanSnapshot | null, getParser: () => Promise<PageParser>, force: boolean): Promise<RefreshOutcome> {
    const { db } = this.options;
    const plan = this.plan(scan, force ? null : listedChanges(db, scan, previous), force);
    trace("refresh: planned");
    // A full build starts from empty page tables and indexes them once it has inserted.
    if (plan.bulk) recreatePageTables(db);
    const statements = prepareStatements(db, plan.bulk);
    const tally: Tally = { created: [], updated: [], deleted: [], topicsChanged: force, decided: new Set() };
    for (const rel of plan.removedPaths) {
      statements.deleteFile.run(rel);
      statements.deleteProblems.run(rel);
    }
    if (plan.slugs.length > 0) {
      const parser = await getParser();
      for await (const [batch, parsed] of parseBatches(plan, parser, this.options.wikiRoot)) {
        for (const slug of batch) this.route(plan, slug, parsed, parser, statements, tally);
      }
    }
    this.restamp(plan, statements, tally.decided);
    statements.postings.flush();
    if (plan.bulk) createPageIndexes(db);
    trace("refresh: pages written");
    const topicsChanged = this.refreshTopicsStamp(scan, plan.now, force);
    if (topicsChanged || tally.topicsChanged) rebuildTopics(db, await getParser(), this.options.almanacPath, this.options.wikiRoot);
    this.storeSnapshot(scan, plan.now);
    trace("refresh: snapshot stored");
    return {
      result: this.counts(scan, tally.created.length + tally.updated.length, tally.deleted.length),
      created: tally.created.sort(),
      updated: tally.updated.sort(),
      deleted: tally.deleted.sort(),
      scan,
    };
  }

  /**
   * Plan: the files whose stat changed, hashed to tell a touch from an edit (a file with no
   * manifest row, or any file in a forced rebuild, goes straight to parsing, which hashes it),
   * and every slug a change touches, with all the files that map to it.
   */
  private plan(scan: WikiScan, listed: ListedChanges | null, force: boolean): Plan {
    const now = this.options.now();
    // Re-read inside the write transaction: another process may have refreshed already.
    // Stat stamps of the files that may have changed (every file, unless the scan listed
    // its changes); full manifest rows only for the files that matter.
    const candidates = listed ? [...listed.present.values()] : [...scan.files.values()];
    const stamps = listed ? this.loadStamps([...listed.present.keys(), ...listed.gone]) : this.loadStamps();
    const suspects = candidates.filter((file) => {
      const stamp = stamps.get(file.relPath);
      return force || !stamp || stamp[0] !== file.size || stamp[1] !== file.mtimeMs || isRacy(stamp[1], stamp[2]);
    });
    const removedPaths = listed ? listed.gone.filter((rel) => stamps.has(rel)) : [...stamps.keys()].filter((rel) => !scan.files.has(rel));
    const manifest = this.loadRows([...suspects.map((f) => f.relPath), ...removedPaths], []);
    trace(`refresh: ${suspects.length} changed of ${listed ? `${scan.fileCount} files (listed by the scan)` : `${stamps.size} files`}`);
    const hashes = new Map<string, string>();
    const toParse = new Set<string>();
    const touchOnly: ScannedFile[] = [];
    for (const file of suspects) {
      const row = manifest.get(file.relPath);
      const hash = force || !row ? null : hashPageFile(file.absPath, this.options.wikiRoot);
      if (hash === null) {
        toParse.add(file.relPath); // new, forced, or unreadable now (parsing records the problem)
        continue;
      }
      hashes.set(file.relPath, hash);
      if (row!.content_hash === hash) touchOnly.push(file);
      else toParse.add(file.relPath);
    }

    // Route ownership: every slug touched by a change is re-decided over all its files,
    // which are tried in component order.
    const changedFiles = listed ? listed.present : scan.files;
    const affected = new Set<string>();
    for (const rel of toParse) affected.add(changedFiles.get(rel)!.slug);
    for (const rel of removedPaths) {
      const slug = manifest.get(rel)!.slug;
      if (slug) affected.add(slug);
    }
    const files = listed ? this.filesOfAffected(scan, listed, affected, removedPaths) : scan.files;
    const bySlug = new Map<string, string[]>();
    for (const file of files.values()) {
      if (listed && !affected.has(file.slug)) continue;
      const list = bySlug.get(file.slug);
      if (list) list.push(file.relPath);
      else bySlug.set(file.slug, [file.relPath]);
    }
    for (const list of bySlug.values()) if (list.length > 1) list.sort(comparePaths);
    if (force) for (const slug of bySlug.keys()) affected.add(slug);
    const slugs = [...affected];
    // Rows of every file on an affected route: owners and losers are decided again.
    for (const [rel, row] of this.loadRows([], slugs)) if (!manifest.has(rel)) manifest.set(rel, row);
    const owners = new Map<string, string>();
    for (const row of manifest.values()) if (row.state === "page" && row.slug !== null) owners.set(row.slug, row.rel_path);
    const bulk = force || (!listed && stamps.size === 0);
    const previousTopics = this.pageTopics(slugs);
    return { scan, files, now, force, bulk, manifest, hashes, toParse, touchOnly, removedPaths, bySlug, slugs, owners, previousTopics };
  }

  /**
   * With listed changes, the files routing may read: the changed ones and every file the
   * manifest has on an affected route (the layout is unchanged, so the manifest holds every
   * file there is, each with its current stat), less those that are gone.
   */
  private filesOfAffected(scan: WikiScan, listed: ListedChanges, affected: Set<string>, removed: string[]): Map<string, ScannedFile> {
    const files = new Map(listed.present);
    const gone = new Set([...listed.gone, ...removed]);
    for (const file of filesOfSlugs(this.options.db, scan.almanacPath, [...affected])) {
      if (!files.has(file.relPath) && !gone.has(file.relPath)) files.set(file.relPath, file);
    }
    return files;
  }

  /** What the affected pages looked like: which existed, and their topics (JSON). */
  private pageTopics(slugs: string[]): Map<string, string> {
    const rows = this.options.db
      .prepare("SELECT slug, topics_json FROM pages WHERE slug IN (SELECT value FROM json_each(?))")
      .raw()
      .all(JSON.stringify(slugs)) as [string, string][];
    return new Map(rows);
  }

  /**
   * Route: the first path in component order keeps the slug. A file that cannot be read as
   * a page yields to the next one, so one bad file never hides the route; the files after
   * the owner are recorded as collisions.
   */
  private route(plan: Plan, slug: string, parsed: Map<string, ParsedFile>, parser: PageParser, statements: Statements, tally: Tally): void {
    const candidates = plan.bySlug.get(slug) ?? [];
    const existed = plan.previousTopics.has(slug);
    let winner: string | null = null;
    for (const rel of candidates) {
      if (ownerKeeps(plan, slug, rel)) {
        winner = rel;
        break;
      }
      const result = parsed.get(rel) ?? parser.parseFile(plan.files.get(rel)!, this.options.wikiRoot, plan.hashes.get(rel));
      tally.decided.add(rel);
      if (result.state === "page") {
        // A forced rebuild has cleared every page already; a new slug has no row to replace.
        if (existed && !plan.force) deletePage(statements, slug);
        const topics = this.storeParsed(statements, result, plan.now);
        if (topics !== plan.previousTopics.get(slug)) tally.topicsChanged = true;
        (existed ? tally.updated : tally.created).push(slug);
        winner = rel;
        break;
      }
      this.storeParsed(statements, result, plan.now);
    }
    if (winner === null) {
      if (existed && !plan.force) deletePage(statements, slug);
      if (existed) tally.deleted.push(slug);
      if ((plan.previousTopics.get(slug) ?? "[]") !== "[]") tally.topicsChanged = true;
      return;
    }
    for (const rel of candidates.slice(candidates.indexOf(winner) + 1)) {
      const file = plan.files.get(rel)!;
      const hash =
        plan.hashes.get(rel) ?? parsed.get(rel)?.hash ?? plan.manifest.get(rel)?.content_hash ?? hashPageFile(file.absPath, this.options.wikiRoot) ?? "";
      statements.upsertFile.run(rel, file.size, file.mtimeMs, plan.now, hash, slug, "collision");
      tally.decided.add(rel);
      statements.deleteProblems.run(rel);
    }
  }

  /** Files touched but not changed: a new stamp (and page date), unless routing rewrote their row. */
  private restamp(plan: Plan, statements: Statements, decided: Set<string>): void {
    for (const file of plan.touchOnly) {
      if (decided.has(file.relPath)) continue;
      const row = plan.manifest.get(file.relPath)!;
      statements.upsertFile.run(file.relPath, file.size, file.mtimeMs, plan.now, row.content_hash, row.slug, row.state);
      if (row.state === "page" && row.slug) statements.touchPage.run(Math.floor(file.mtimeMs / 1000), row.slug);
    }
  }

  /** Write: one parsed file's rows; returns the page's topics as stored (JSON), or null when it is not a page. */
  private storeParsed(statements: Statements, parsed: ParsedFile, now: number): string | null {
    const { file } = parsed;
    statements.upsertFile.run(
      file.relPath,
      file.size,
      file.mtimeMs,
      now,
      parsed.hash,
      file.slug,
      parsed.state === "page" ? "page" : "skipped",
    );
    statements.deleteProblems.run(file.relPath);
    parsed.problems.forEach((p, i) => statements.insertProblem.run(file.relPath, i, p.category, p.message, p.line));
    if (parsed.state !== "page" || !parsed.page) return null;
    const page = parsed.page;
    const slug = file.slug;
    const topics = [...new Set(page.topics)].sort();
    const topicsJson = JSON.stringify(topics);
    const pageId = Number(
      statements.insertPage.run(
        slug,
        file.relPath,
        page.title,
        page.summary,
        Math.floor(file.mtimeMs / 1000),
        parsed.emptyBody ? 1 : 0,
        parsed.truncated ? 1 : 0,
        topicsJson,
        page.evidenceDigest,
      ).lastInsertRowid,
    );
    for (const topic of topics) statements.insertTopic.run(slug, topic);
    for (const ref of page.file_refs) statements.insertRef.run(slug, ref.path, ref.original_path, ref.is_dir ? 1 : 0);
    page.sources.forEach((s, i) =>
      statements.insertSource.run(slug, i, s.source_id, s.source_type, s.target, s.title, s.retrieved_at, s.note, s.lines, s.fingerprint, s.verified_at),
    );
    for (const id of new Set(page.citations)) statements.insertCitation.run(slug, id);
    for (const target of new Set(page.links)) statements.insertLink.run(slug, target);
    // Rowids encode the page; a page with more sections than slots keeps its first ones.
    // The terms go to the postings only; the section row keeps where its text lies in the file.
    const sections = page.sections.slice(0, SECTION_SLOTS);
    sections.forEach((section, ordinal) => {
      const id = pageId * SECTION_SLOTS + ordinal;
      statements.insertSection.run(id, pageId, section.heading, section.start, section.end, page.search.lengths[ordinal]);
      statements.postings.addSection(id, page.search, ordinal);
    });
    return topicsJson;
  }

  /** Path → [size, mtime, checked_at] for every file (or the files given): all a freshness comparison needs. */
  private loadStamps(rels?: string[]): Map<string, [number, number, number]> {
    const select = "SELECT rel_path, size, mtime_ms, checked_at FROM files";
    const statement = this.options.db.prepare(rels ? `${select} WHERE rel_path IN (SELECT value FROM json_each(?))` : select).raw();
    const rows = (rels ? statement.all(JSON.stringify(rels)) : statement.all()) as [string, number, number, number][];
    return new Map(rows.map(([rel, size, mtime, checked]) => [rel, [size, mtime, checked]]));
  }

  /** Full manifest rows for some paths and for every file on some routes. */
  private loadRows(rels: string[], slugs: string[]): Map<string, ManifestRow> {
    const rows = this.options.db
      .prepare(
        `SELECT rel_path, size, mtime_ms, checked_at, content_hash, slug, state FROM files
         WHERE rel_path IN (SELECT value FROM json_each(?)) OR slug IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify(rels), JSON.stringify(slugs)) as ManifestRow[];
    return new Map(rows.map((r) => [r.rel_path, r]));
  }

  private readTopicsStamp(): TopicsStamp | null {
    return readMeta<TopicsStamp>(this.options.db, "topics_stamp");
  }

  private topicsMayHaveChanged(scan: WikiScan): boolean {
    const stamp = this.readTopicsStamp();
    const stat = scan.topicsStat;
    if (!stamp) return true;
    if (!stat) return stamp.hash !== "";
    return stamp.size !== stat.size || stamp.mtimeMs !== stat.mtimeMs || isRacy(stamp.mtimeMs, stamp.checkedAt);
  }

  /** Records topics.yaml's stamp; returns whether its content changed. */
  private refreshTopicsStamp(scan: WikiScan, now: number, force: boolean): boolean {
    if (!force && !this.topicsMayHaveChanged(scan)) return false;
    const previous = this.readTopicsStamp();
    const stat = scan.topicsStat;
    const hash = stat ? (hashPageFile(join(this.options.almanacPath, "topics.yaml"), this.options.wikiRoot) ?? "") : "";
    const stamp: TopicsStamp = { size: stat?.size ?? 0, mtimeMs: stat?.mtimeMs ?? 0, checkedAt: now, hash };
    writeMeta(this.options.db, "topics_stamp", stamp);
    return force || previous?.hash !== hash;
  }

  private counts(scan: WikiScan, changed: number, removed: number): RefreshResult {
    const db = this.options.db;
    const pages = db.prepare("SELECT COUNT(*) FROM pages").pluck().get() as number;
    const skipped = db.prepare("SELECT COUNT(*) FROM files WHERE state != 'page'").pluck().get() as number;
    return { changed, removed, pages_indexed: pages, files_seen: scan.fileCount, files_skipped: skipped };
  }
}

interface Statements {
  upsertFile: Statement;
  deleteFile: Statement;
  deleteProblems: Statement;
  insertProblem: Statement;
  deletePage: Statement;
  touchPage: Statement;
  insertPage: Statement;
  insertTopic: Statement;
  insertRef: Statement;
  insertSource: Statement;
  insertCitation: Statement;
  insertLink: Statement;
  insertSection: Statement;
  pageId: Statement;
  postings: PostingsWriter;
}

/** A page's postings go with its rows (which its sections follow by cascade). */
function deletePage(statements: Statements, slug: string): void {
  const id = statements.pageId.get(slug) as number | undefined;
  if (id !== undefined) statements.postings.removePage(id);
  statements.deletePage.run(slug);
}

function prepareStatements(db: Db, bulk: boolean): Statements {
  return {
    postings: new PostingsWriter(db, bulk),
    upsertFile: db.prepare(
      `INSERT INTO files (rel_path, size, mtime_ms, checked_at, content_hash, slug, state) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(rel_path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, checked_at = excluded.checked_at,
         content_hash = excluded.content_hash, slug = excluded.slug, state = excluded.state`,
    ),
    deleteFile: db.prepare("DELETE FROM files WHERE rel_path = ?"),
    deleteProblems: db.prepare("DELETE FROM file_problems WHERE rel_path = ?"),
    insertProblem: db.prepare("INSERT INTO file_problems (rel_path, ordinal, category, message, line) VALUES (?, ?, ?, ?, ?)"),
    deletePage: db.prepare("DELETE FROM pages WHERE slug = ?"),
    touchPage: db.prepare("UPDATE pages SET updated_at = ? WHERE slug = ?"),
    insertPage: db.prepare(
      "INSERT INTO pages (slug, rel_path, title, summary, updated_at, empty_body, truncated, topics_json, evidence_digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    insertTopic: db.prepare("INSERT OR IGNORE INTO page_topics (page_slug, topic) VALUES (?, ?)"),
    insertRef: db.prepare("INSERT OR IGNORE INTO file_refs (page_slug, path, original_path, is_dir) VALUES (?, ?, ?, ?)"),
    insertSource: db.prepare(
      "INSERT INTO page_sources (page_slug, ordinal, source_id, source_type, target, title, retrieved_at, note, lines, fingerprint, verified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    insertCitation: db.prepare("INSERT OR IGNORE INTO page_citations (page_slug, source_id) VALUES (?, ?)"),
    insertLink: db.prepare("INSERT OR IGNORE INTO page_links (source_slug, target_slug) VALUES (?, ?)"),
    insertSection: db.prepare("INSERT INTO sections (id, page_id, heading, body_start, body_end, length) VALUES (?, ?, ?, ?, ?, ?)"),
    pageId: db.prepare("SELECT id FROM pages WHERE slug = ?").pluck(),
  };
}

function rebuildTopics(db: Db, parser: PageParser, almanacPath: string, wikiRoot: string): void {
  const parsed = parser.parseTopics(join(almanacPath, "topics.yaml"), wikiRoot);
  db.exec("DELETE FROM topics; DELETE FROM topic_parents;");
  db.prepare("DELETE FROM meta WHERE key IN ('topics_problems', 'topic_cycles')").run();
  if (parsed.problems.length > 0) {
    writeMeta(db, "topics_problems", parsed.problems);
  }
  const cycles = parser.findCycles(parsed.topics);
  if (cycles.length > 0) {
    writeMeta(db, "topic_cycles", cycles);
  }
  const insertTopic = db.prepare(
    `INSERT INTO topics (slug, title, description, declared) VALUES (?, ?, ?, ?)
     ON CONFLICT(slug) DO UPDATE SET title = excluded.title, description = excluded.description, declared = excluded.declared`,
  );
  const insertEdge = db.prepare("INSERT OR IGNORE INTO topic_parents (child, parent) VALUES (?, ?)");
  for (const topic of parsed.topics) {
    insertTopic.run(topic.slug, topic.title ?? parser.titleForSlug(topic.slug), topic.description, 1);
  }
  const declared = new Set(parsed.topics.map((t) => t.slug));
  const ensure = db.prepare("INSERT OR IGNORE INTO topics (slug, title, description, declared) VALUES (?, ?, NULL, 0)");
  for (const topic of parsed.topics) {
    for (const parent of topic.parents) {
      if (parent === topic.slug) continue;
      if (!declared.has(parent)) ensure.run(parent, parser.titleForSlug(parent));
      insertEdge.run(topic.slug, parent);
    }
  }
  const adHoc = db.prepare("SELECT DISTINCT topic FROM page_topics").pluck().all() as string[];
  for (const slug of adHoc) ensure.run(slug, parser.titleForSlug(slug));
}
