import { afterEach, describe, expect, test } from "vitest";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Db } from "../../src/core/sqlite.js";
import { indexMigrations } from "../../src/index/schema.js";
import { IndexWriter } from "../../src/index/refresh.js";
import { createPageParser, type PageParser } from "../../src/index/parse-file.js";
import { searchPages } from "../../src/index/views/search.js";
import { readSearchTotals } from "../../src/index/postings.js";
import { page, writeWiki } from "../support/cli.js";

interface Harness {
  dir: string;
  almanac: string;
  db: Db;
  writer: IndexWriter;
  parsed: string[];
  loads: number;
  clock: { now: number };
  close(): void;
}

function harness(files: Record<string, string>): Harness {
  const dir = mkdtempSync(join(tmpdir(), "ca-refresh-"));
  writeWiki(dir, files);
  const db = openDatabase(join(dir, "state", "index.db"), { migrations: indexMigrations, onNewerSchema: "recreate" });
  const h: Harness = {
    dir,
    almanac: join(dir, "almanac"),
    db,
    parsed: [],
    loads: 0,
    clock: { now: Date.now() + 10_000 },
    writer: undefined as unknown as IndexWriter,
    close: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  h.writer = new IndexWriter({
    db,
    almanacPath: h.almanac,
    wikiRoot: realpathSync(h.almanac),
    now: () => h.clock.now,
    loadParser: async (): Promise<PageParser> => {
      h.loads++;
      const real = createPageParser();
      return {
        ...real,
        parseFile: (file, root, hash) => {
          h.parsed.push(file.relPath);
          return real.parseFile(file, root, hash);
        },
      };
    },
  });
  return h;
}

/** Writes a file and moves its mtime into the past, so it is not "racily clean". */
function write(h: Harness, rel: string, content: string): void {
  const path = join(h.almanac, rel);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  const past = new Date(h.clock.now - 60_000);
  utimesSync(path, past, past);
}

const doc = (title: string, body = "Some text.") => page({ title, topics: ["concepts"], sources: [], body: `# ${title}\n\n${body}` });

let h: Harness;
afterEach(() => h?.close());

describe("incremental refresh", () => {
  test("a read on an unchanged wiki parses nothing and loads no parser", async () => {
    h = harness({ "a.md": doc("A"), "b.md": doc("B") });
    const first = await h.writer.refresh();
    expect(first.result).toMatchObject({ changed: 3, removed: 0, pages_indexed: 3, files_seen: 3 });
    h.clock.now += 5_000; // past the racy window
    await h.writer.refresh(); // re-checks the freshly written files once
    h.parsed.length = 0;
    h.loads = 0;
    const again = await h.writer.refresh();
    expect(again.result).toMatchObject({ changed: 0, removed: 0, pages_indexed: 3 });
    expect(h.parsed).toEqual([]);
    expect(h.loads).toBe(0);
  });

  test("one changed page is the only page parsed, and its rows are replaced", async () => {
    h = harness({ "a.md": doc("A", "alpha words"), "b.md": doc("B", "beta words") });
    await h.writer.refresh();
    h.clock.now += 5_000;
    await h.writer.refresh();
    h.parsed.length = 0;
    write(h, "a.md", doc("A", "gamma words now"));
    const outcome = await h.writer.refresh();
    expect(h.parsed).toEqual(["a.md"]);
    expect(outcome).toMatchObject({ created: [], updated: ["a"], deleted: [] });
    const ctx = { db: h.db, almanacPath: h.almanac, wikiRoot: realpathSync(h.almanac), repositoryRoot: h.dir };
    expect(searchPages(ctx, { query: "gamma" }).hits.map((p) => p.slug)).toEqual(["a"]);
    expect(searchPages(ctx, { query: "alpha" })).toMatchObject({ hits: [], total: 0 });
    expect(h.db.prepare("SELECT COUNT(*) FROM sections s JOIN pages p ON p.id = s.page_id WHERE p.slug = 'a'").pluck().get()).toBe(1);
  });

  test("a touched file with the same content is hashed, not parsed", async () => {
    h = harness({ "a.md": doc("A") });
    await h.writer.refresh();
    h.clock.now += 5_000;
    await h.writer.refresh();
    h.parsed.length = 0;
    const later = new Date(h.clock.now - 30_000);
    utimesSync(join(h.almanac, "a.md"), later, later);
    const outcome = await h.writer.refresh();
    expect(h.parsed).toEqual([]);
    expect(outcome.result.changed).toBe(0);
  });

  test("added and removed pages are indexed and dropped with their links", async () => {
    h = harness({ "a.md": doc("A", "See [b](b).") });
    await h.writer.refresh();
    write(h, "b.md", doc("B"));
    expect(await h.writer.refresh()).toMatchObject({ created: ["b"], deleted: [] });
    unlinkSync(join(h.almanac, "b.md"));
    const outcome = await h.writer.refresh();
    expect(outcome).toMatchObject({ deleted: ["b"], result: { removed: 1, pages_indexed: 2 } });
    expect(h.db.prepare("SELECT target_slug FROM page_links WHERE source_slug = 'a'").pluck().all()).toEqual(["b"]);
  });

  test("when two files claim a route the first path keeps it, and the other takes over when it goes", async () => {
    h = harness({ "guide/README.md": doc("Landing"), "guide.md": doc("Flat") });
    await h.writer.refresh();
    const title = () => h.db.prepare("SELECT title FROM pages WHERE slug = 'guide'").pluck().get();
    expect(title()).toBe("Landing");
    expect(h.db.prepare("SELECT state FROM files WHERE rel_path = 'guide.md'").pluck().get()).toBe("collision");
    unlinkSync(join(h.almanac, "guide", "README.md"));
    await h.writer.refresh();
    expect(title()).toBe("Flat");
  });

  test("topics.yaml changes rebuild the topic table without reparsing pages", async () => {
    h = harness({ "a.md": doc("A") });
    await h.writer.refresh();
    h.clock.now += 5_000;
    await h.writer.refresh();
    h.parsed.length = 0;
    write(h, "topics.yaml", "topics:\n  - slug: concepts\n    title: Core Ideas\n    parents: []\n");
    await h.writer.refresh();
    expect(h.parsed).toEqual([]);
    expect(h.db.prepare("SELECT title FROM topics WHERE slug = 'concepts'").pluck().get()).toBe("Core Ideas");
  });

  test("a forced rebuild reparses everything and reports real counters", async () => {
    h = harness({ "a.md": doc("A"), "b.md": doc("B") });
    await h.writer.refresh();
    h.parsed.length = 0;
    const outcome = await h.writer.refresh(true);
    expect(h.parsed.sort()).toEqual(["README.md", "a.md", "b.md"]);
    expect(outcome.result).toMatchObject({ changed: 3, removed: 0, pages_indexed: 3, files_seen: 3, files_skipped: 0 });
    expect(h.db.prepare("SELECT COUNT(*) FROM sections").pluck().get()).toBe(3);
    expect(readSearchTotals(h.db).sections).toBe(3);
  });
});

describe("index schema", () => {
  test("an index from before contentless search (v4, section text stored twice) is rebuilt, not broken", async () => {
    h = harness({ "a.md": doc("A", "alpha words") });
    const file = h.db.name;
    h.db.close();
    rmSync(file);
    // The v4 layout: section text in `sections`, an external-content FTS table over it.
    const old = new Database(file);
    old.exec(`
      CREATE TABLE pages (id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, rel_path TEXT NOT NULL, title TEXT NOT NULL);
      CREATE TABLE sections (id INTEGER PRIMARY KEY, page_id INTEGER NOT NULL, ordinal INTEGER NOT NULL, page_title TEXT NOT NULL, heading TEXT NOT NULL, body TEXT NOT NULL);
      CREATE VIRTUAL TABLE sections_fts USING fts5(page_title, heading, body, content='sections', content_rowid='id');
      CREATE TRIGGER sections_ai AFTER INSERT ON sections BEGIN
        INSERT INTO sections_fts(rowid, page_title, heading, body) VALUES (new.id, new.page_title, new.heading, new.body);
      END;
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO pages VALUES (1, 'a', 'a.md', 'A');
      INSERT INTO sections VALUES (4096, 1, 0, 'A', 'A', 'stale words');
      INSERT INTO meta VALUES ('scan_snapshot', '{}');
      PRAGMA user_version = 4;
    `);
    old.close();
    h.db = openDatabase(file, { migrations: indexMigrations, onNewerSchema: "recreate" });
    h.writer = new IndexWriter({ db: h.db, almanacPath: h.almanac, wikiRoot: realpathSync(h.almanac), now: () => h.clock.now, loadParser: async () => createPageParser() });
    const columns = h.db.prepare("SELECT name FROM pragma_table_info('sections')").pluck().all();
    expect(columns).toEqual(["id", "page_id", "heading", "body_start", "body_end", "length"]);
    expect(h.db.prepare("SELECT COUNT(*) FROM meta").pluck().get()).toBe(0);
    await h.writer.refresh();
    const ctx = { db: h.db, almanacPath: h.almanac, wikiRoot: realpathSync(h.almanac), repositoryRoot: h.dir };
    expect(searchPages(ctx, { query: "stale" }).total).toBe(0);
    expect(searchPages(ctx, { query: "alpha" }).hits).toMatchObject([{ slug: "a", matched_heading: "A", excerpt: "alpha words" }]);
  });
});
