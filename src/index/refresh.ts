import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Statement } from "better-sqlite3";
import type { Db } from "../core/sqlite.js";
import { trace } from "../core/trace.js";
import { sha256Hex } from "../core/crypto.js";
import { comparePaths, isRacy, scanWiki, snapshotOf, type ScanSnapshot, type ScannedFile, type WikiScan } from "./scan.js";
import type { ParsedFile, PageParser } from "./parse-file.js";
import type { BatchParser, ParseJob } from "./parse-pool.js";
import { SECTION_SLOTS } from "./layout.js";
import { readMeta, writeMeta } from "./meta.js";

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

/** The meta row holding the last refresh's ScanSnapshot. */
const SNAPSHOT_KEY = "scan_snapshot";
/** Slugs decided per batch, and batches parsed ahead of the writer. */
const SLUG_BATCH = 200;
const PARSE_AHEAD = 4;

export interface IndexWriterOptions {
  db: Db;
  almanacPath: string;
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
      const outcome = await this.apply(scan, getParser, force);
      db.exec("COMMIT");
      return outcome;
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  }

  private storeSnapshot(scan: WikiScan, now: number): void {
    writeMeta(this.options.db, SNAPSHOT_KEY, snapshotOf(scan, now));
  }

  private async apply(scan: WikiScan, getParser: () => Promise<PageParser>, force: boolean): Promise<RefreshOutcome> {
    const { db } = this.options;
    const now = this.options.now();
    // Re-read inside the write transaction: another process may have refreshed already.
    // Stat stamps of every file first; full manifest rows only for the files that matter.
    const stamps = this.loadStamps();
    const suspects = [...scan.files.values()].filter((file) => {
      const stamp = stamps.get(file.relPath);
      return force || !stamp || stamp[0] !== file.size || stamp[1] !== file.mtimeMs || isRacy(stamp[1], stamp[2]);
    });
    const removedPaths = [...stamps.keys()].filter((rel) => !scan.files.has(rel));
    const manifest = this.loadRows([...suspects.map((f) => f.relPath), ...removedPaths], []);
    trace(`refresh: ${suspects.length} changed of ${stamps.size} files`);
    const hashes = new Map<string, string>();
    const toParse = new Set<string>();
    const touchOnly: ScannedFile[] = [];

    for (const file of suspects) {
      const row = manifest.get(file.relPath);
      const hash = hashFile(file.absPath);
      if (hash === null) {
        toParse.add(file.relPath); // unreadable now; parsing records the problem
        continue;
      }
      hashes.set(file.relPath, hash);
      if (!force && row && row.content_hash === hash) touchOnly.push(file);
      else toParse.add(file.relPath);
    }

    // Route ownership: every slug touched by a change is re-decided over all files.
    const bySlug = new Map<string, string[]>();
    for (const file of scan.files.values()) {
      const list = bySlug.get(file.slug);
      if (list) list.push(file.relPath);
      else bySlug.set(file.slug, [file.relPath]);
    }
    const affectedSlugs = new Set<string>();
    for (const rel of toParse) affectedSlugs.add(scan.files.get(rel)!.slug);
    for (const rel of removedPaths) {
      const slug = manifest.get(rel)!.slug;
      if (slug) affectedSlugs.add(slug);
    }
    if (force) for (const slug of bySlug.keys()) affectedSlugs.add(slug);
    // Rows of every file on an affected route: owners and losers are decided again below.
    for (const [rel, row] of this.loadRows([], [...affectedSlugs])) if (!manifest.has(rel)) manifest.set(rel, row);

    // What the affected pages looked like: whether they existed, and their topics.
    const previousTopics = new Map(
      (
        db
          .prepare("SELECT slug, topics_json FROM pages WHERE slug IN (SELECT value FROM json_each(?))")
          .raw()
          .all(JSON.stringify([...affectedSlugs])) as [string, string][]
      ).map(([slug, topics]) => [slug, topics]),
    );
    const before = new Set(previousTopics.keys());
    const created: string[] = [];
    const updated: string[] = [];
    const deleted: string[] = [];
    const statements = prepareStatements(db);
    let pageTopicsChanged = force;
    // Files whose row the route decisions below rewrite; their manifest row is stale after that.
    const decided = new Set<string>();

    for (const rel of removedPaths) {
      statements.deleteFile.run(rel);
      statements.deleteProblems.run(rel);
    }

    if (force) clearPages(db);

    const owners = new Map<string, ManifestRow>();
    for (const row of manifest.values()) if (row.state === "page" && row.slug !== null) owners.set(row.slug, row);
    const ownerKeeps = (slug: string, rel: string) => !force && owners.get(slug)?.rel_path === rel && !toParse.has(rel);

    // Files are parsed in batches (on worker threads for big rebuilds) ahead of the
    // sequential route decisions below, which only look the results up.
    const slugs = [...affectedSlugs];
    const batches: string[][] = [];
    for (let i = 0; i < slugs.length; i += SLUG_BATCH) batches.push(slugs.slice(i, i + SLUG_BATCH));
    const jobsFor = (batch: string[]): ParseJob[] =>
      batch.flatMap((slug) => {
        const jobs: ParseJob[] = [];
        for (const rel of (bySlug.get(slug) ?? []).slice().sort(comparePaths)) {
          if (ownerKeeps(slug, rel)) break;
          const hash = hashes.get(rel);
          jobs.push(hash === undefined ? { file: scan.files.get(rel)! } : { file: scan.files.get(rel)!, hash });
        }
        return jobs;
      });
    trace("refresh: planned");
    const { createBatchParser } = await import("./parse-pool.js");
    const parser = slugs.length > 0 ? await getParser() : null;
    const pool: BatchParser | null = parser ? createBatchParser(parser, slugs.length) : null;
    const parseBatch = async (batch: string[]) => {
      const results = await pool!.parse(jobsFor(batch));
      return new Map(results.map((r) => [r.file.relPath, r]));
    };
    try {
      const inFlight: Promise<Map<string, ParsedFile>>[] = [];
      let next = 0;
      const fill = () => {
        while (next < batches.length && inFlight.length < PARSE_AHEAD) inFlight.push(parseBatch(batches[next++]!));
      };
      fill();
      for (const batch of batches) {
        const parsedByRel = await inFlight.shift()!;
        fill();
        for (const slug of batch) {
          const candidates = (bySlug.get(slug) ?? []).slice().sort(comparePaths);
          // The first path in component order keeps the route. A file that cannot be read
          // as a page yields to the next one, so one bad file never hides the route.
          let winner: string | null = null;
          for (const rel of candidates) {
            if (ownerKeeps(slug, rel)) {
              winner = rel;
              break;
            }
            const parsed = parsedByRel.get(rel) ?? parser!.parseFile(scan.files.get(rel)!, hashes.get(rel));
            decided.add(rel);
            if (parsed.state === "page") {
              statements.deletePage.run(slug);
              const topics = this.storeParsed(statements, parsed, now);
              if (topics !== previousTopics.get(slug)) pageTopicsChanged = true;
              winner = rel;
              if (before.has(slug)) updated.push(slug);
              else created.push(slug);
              break;
            }
            this.storeParsed(statements, parsed, now);
          }
          if (winner === null) {
            statements.deletePage.run(slug);
            if (before.has(slug)) deleted.push(slug);
            if ((previousTopics.get(slug) ?? "[]") !== "[]") pageTopicsChanged = true;
          }
          const losers = winner === null ? [] : candidates.slice(candidates.indexOf(winner) + 1);
          for (const rel of losers) {
            const file = scan.files.get(rel)!;
            const hash = hashes.get(rel) ?? manifest.get(rel)?.content_hash ?? hashFile(file.absPath) ?? "";
            statements.upsertFile.run(rel, file.size, file.mtimeMs, now, hash, slug, "collision");
            decided.add(rel);
            statements.deleteProblems.run(rel);
          }
        }
      }
    } finally {
      await pool?.close();
    }

    for (const file of touchOnly) {
      if (decided.has(file.relPath)) continue;
      const row = manifest.get(file.relPath)!;
      statements.upsertFile.run(file.relPath, file.size, file.mtimeMs, now, row.content_hash, row.slug, row.state);
      if (row.state === "page" && row.slug) statements.touchPage.run(Math.floor(file.mtimeMs / 1000), row.slug);
    }

    trace("refresh: pages written");
    const topicsChanged = this.refreshTopicsStamp(scan, now, force);
    if (topicsChanged || pageTopicsChanged) rebuildTopics(db, await getParser(), this.options.almanacPath);
    this.storeSnapshot(scan, now);
    trace("refresh: snapshot stored");

    return {
      result: this.counts(scan, created.length + updated.length, deleted.length),
      created: created.sort(),
      updated: updated.sort(),
      deleted: deleted.sort(),
      scan,
    };
  }

  /** Stores one parsed file; returns the page's topics as stored (JSON), or null when it is not a page. */
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
      ).lastInsertRowid,
    );
    for (const topic of topics) statements.insertTopic.run(slug, topic);
    for (const ref of page.file_refs) statements.insertRef.run(slug, ref.path, ref.original_path, ref.is_dir ? 1 : 0);
    page.sources.forEach((s, i) =>
      statements.insertSource.run(slug, i, s.source_id, s.source_type, s.target, s.title, s.retrieved_at, s.note),
    );
    for (const id of new Set(page.citations)) statements.insertCitation.run(slug, id);
    for (const target of new Set(page.links)) statements.insertLink.run(slug, target);
    // Rowids encode the page; a page with more sections than slots keeps its first ones.
    for (const section of page.sections) {
      if (section.ordinal >= SECTION_SLOTS) break;
      statements.insertSection.run(pageId * SECTION_SLOTS + section.ordinal, pageId, section.ordinal, page.title, section.heading, section.body);
    }
    return topicsJson;
  }

  /** Path → [size, mtime, checked_at] for every file: all a freshness comparison needs. */
  private loadStamps(): Map<string, [number, number, number]> {
    const rows = this.options.db
      .prepare("SELECT rel_path, size, mtime_ms, checked_at FROM files")
      .raw()
      .all() as [string, number, number, number][];
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
    const hash = stat ? (hashFile(join(this.options.almanacPath, "topics.yaml")) ?? "") : "";
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
}

function prepareStatements(db: Db): Statements {
  return {
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
      "INSERT INTO pages (slug, rel_path, title, summary, updated_at, empty_body, truncated, topics_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    insertTopic: db.prepare("INSERT OR IGNORE INTO page_topics (page_slug, topic) VALUES (?, ?)"),
    insertRef: db.prepare("INSERT OR IGNORE INTO file_refs (page_slug, path, original_path, is_dir) VALUES (?, ?, ?, ?)"),
    insertSource: db.prepare(
      "INSERT INTO page_sources (page_slug, ordinal, source_id, source_type, target, title, retrieved_at, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    insertCitation: db.prepare("INSERT OR IGNORE INTO page_citations (page_slug, source_id) VALUES (?, ?)"),
    insertLink: db.prepare("INSERT OR IGNORE INTO page_links (source_slug, target_slug) VALUES (?, ?)"),
    insertSection: db.prepare(
      "INSERT INTO sections (id, page_id, ordinal, page_title, heading, body) VALUES (?, ?, ?, ?, ?, ?)",
    ),
  };
}

/** A full rebuild clears the search table in one step instead of row-by-row trigger deletes. */
function clearPages(db: Db): void {
  db.exec(`
    DROP TRIGGER sections_ad;
    INSERT INTO sections_fts(sections_fts) VALUES ('delete-all');
    DELETE FROM sections;
    DELETE FROM page_topics; DELETE FROM file_refs; DELETE FROM page_sources;
    DELETE FROM page_citations; DELETE FROM page_links; DELETE FROM pages;
    CREATE TRIGGER sections_ad AFTER DELETE ON sections BEGIN
      INSERT INTO sections_fts(sections_fts, rowid, page_title, heading, body)
      VALUES ('delete', old.id, old.page_title, old.heading, old.body);
    END;
  `);
}

function rebuildTopics(db: Db, parser: PageParser, almanacPath: string): void {
  const parsed = parser.parseTopics(join(almanacPath, "topics.yaml"));
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

export function hashFile(path: string): string | null {
  try {
    return sha256Hex(readFileSync(path));
  } catch {
    return null;
  }
}
