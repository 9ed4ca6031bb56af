import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import Database from "better-sqlite3";
import { searchHits, searchPages, type SearchContext } from "../../src/index/views/search.js";
import { queryTokens } from "../../src/index/views/query.js";
import { SECTION_SLOTS } from "../../src/index/layout.js";
import type { Db } from "../../src/core/sqlite.js";
import { sandbox, type Sandbox } from "../support/cli.js";
import { generateBenchWiki } from "../support/bench-wiki.js";
import { parsePage } from "../../src/wiki/page.js";
import { isLandingPath } from "../../src/wiki/slug.js";
import { TermVocabulary, termNumbers, termsOf, vocabulary } from "../../src/index/search-terms.js";

/**
 * Search scores its own postings (src/index/postings.ts) with FTS5's BM25, computed the same
 * way (src/index/views/search.ts). The oracle is what search did before: an FTS5 table of
 * the same sections (unicode61, remove_diacritics 2; title 5, heading 3, body 1), every
 * match scored by bm25() and each page's best section kept with a window. Pages, order,
 * best sections and totals must be exactly the same.
 */

let box: Sandbox;
let root: string;
let db: Database.Database;
let ctx: SearchContext;

beforeAll(() => {
  box = sandbox();
  root = join(box.dir, "repo");
  generateBenchWiki(root, 600, 11);
  spawnSync("git", ["init", "-q"], { cwd: root });
  const built = box.run(["reindex", "--json"], { cwd: root });
  expect(built.code, built.stderr).toBe(0);
  const repos = join(box.state, "repos");
  const [repo] = readdirSync(repos);
  db = new Database(join(repos, repo!, "index.db"));
  const almanac = join(root, "almanac");
  ctx = { db: db as unknown as Db, almanacPath: almanac, wikiRoot: almanac, repositoryRoot: root };
  // The reference: the index's pages parsed again, their sections in an FTS5 table.
  db.exec(`CREATE VIRTUAL TABLE temp.reference USING fts5(page_title, heading, body, content='', tokenize='unicode61 remove_diacritics 2')`);
  const insert = db.prepare("INSERT INTO temp.reference (rowid, page_title, heading, body) VALUES (?, ?, ?, ?)");
  for (const { id, slug, rel_path } of db.prepare("SELECT id, slug, rel_path FROM pages").all() as { id: number; slug: string; rel_path: string }[]) {
    const text = readFileSync(join(almanac, rel_path), "utf8");
    const page = parsePage({ slug, isLanding: isLandingPath(rel_path), text, fileStem: basename(rel_path, ".md") });
    page.sections.forEach((section, ordinal) => insert.run(id * SECTION_SLOTS + ordinal, page.title, section.heading, section.body));
  }
});

afterAll(() => {
  db?.close();
  box?.cleanup();
});

interface Ranked {
  slug: string;
  heading: string;
}

/** Every page matching any word, best first, by FTS5. */
function oracle(tokens: string[], limit: number): Ranked[] {
  const match = tokens.map((t) => `"${t.replace(/"/g, '""')}"*`).join(" OR ");
  return db
    .prepare(
      `WITH hits AS MATERIALIZED (
         SELECT rowid AS sid, bm25(reference, 5.0, 3.0, 1.0) AS score FROM temp.reference WHERE reference MATCH ?
       ),
       best AS MATERIALIZED (
         SELECT page, sid, score FROM (
           SELECT sid / ${SECTION_SLOTS} AS page, sid, score,
                  row_number() OVER (PARTITION BY sid / ${SECTION_SLOTS} ORDER BY score, sid) AS rn
           FROM hits
         ) WHERE rn = 1
       )
       SELECT p.slug, coalesce(s.heading, '') AS heading
       FROM best b JOIN pages p ON p.id = b.page LEFT JOIN sections s ON s.id = b.sid
       ORDER BY b.score, p.updated_at DESC, p.slug LIMIT ?`,
    )
    .all(match, limit) as Ranked[];
}

/** Two- and three-word queries from the wiki's own words, common and rare. */
function queries(): string[] {
  const words = (db.prepare("SELECT title FROM pages ORDER BY id").all() as { title: string }[])
    .flatMap((row) => row.title.toLowerCase().split(/\s+/))
    .filter((w) => w.length > 3);
  const common = ["default", "failure", "version", "cache", "queue", "worker", "retry", "budget", "index", "lock"];
  const out: string[] = [];
  for (let i = 0; i < common.length; i++) out.push(`${common[i]} ${common[(i + 3) % common.length]}`);
  for (let i = 0; i < 30; i++) out.push(`${words[(i * 37) % words.length]} ${common[i % common.length]}`);
  for (let i = 0; i < 10; i++) out.push(`${words[(i * 53) % words.length]} ${words[(i * 71 + 5) % words.length]}`);
  for (let i = 0; i < 6; i++) out.push(`${common[i]} ${common[i + 2]} ${words[(i * 13) % words.length]}`);
  return [...new Set(out)];
}

describe("search's own BM25 over its postings", () => {
  test("gives exactly FTS5's pages, order and best sections, at every limit", () => {
    for (const query of [...queries(), "e", "default", "x y z", "zzzz"]) {
      const tokens = queryTokens(query);
      for (const limit of [1, 7, 50, -1]) {
        const result = searchPages(ctx, { query, limit: limit < 0 ? undefined : limit });
        const expected = oracle(tokens, limit);
        expect(
          result.hits.map((hit) => ({ slug: hit.slug, heading: hit.matched_heading ?? "" })),
          `${query} (limit ${limit})`,
        ).toEqual(expected);
      }
    }
  });

  test("a query's words are cut into terms as the index cuts text", () => {
    expect(queryTokens("How does the Retry_Budget work?")).toEqual(["retry", "budget", "work"]);
    expect(queryTokens("Café naïve")).toEqual(["cafe", "naive"]);
    expect(termsOf("Café_Budget über-fast")).toEqual(["cafe", "budget", "uber", "fast"]);
    // Non-ASCII text goes through the same vocabulary as ASCII text: one number a term.
    expect(Array.from(termNumbers("Café cafe CAFE"), (n) => vocabulary.names[n])).toEqual(["cafe", "cafe", "cafe"]);
  });

  test("numbers text beyond ASCII into exactly the terms termsOf finds", () => {
    const texts = [
      "Queue › Claims — the “worker’s” lease… ok",
      "a\u00a0b • c → d ¨ e",
      "Café_Budget naïve e\u0301x",
      "ﬁle ™ x² ①",
      "ΟΔΟΣ. Σa İstanbul",
      "emoji 😀z and 𝐀bold",
      "mixed — then Ünïcode",
    ];
    for (const text of texts) {
      expect(Array.from(termNumbers(text), (n) => vocabulary.names[n]), text).toEqual(termsOf(text));
    }
    // A word cut short by a letter beyond ASCII leaves no fragment in the vocabulary.
    const fresh = new TermVocabulary();
    fresh.numberTerms("plain naïve");
    expect(fresh.names).toEqual(["plain", "naive"]);
  });

  test("tells apart terms that share their first characters, however long, and across rehashes", () => {
    const words: string[] = [];
    for (const stem of ["abcdefg", "abcd", "x", "retrybu", "9z"]) {
      for (let extra = 0; extra < 400; extra++) words.push(stem + extra.toString(36));
    }
    words.push("abcdefg", "abcdefgh", "abcdefgi", "abc", "abcdef0", "a1", "1a");
    const fresh = new TermVocabulary();
    const text = words.join(" ");
    const count = fresh.numberTerms(text.toUpperCase());
    const numbers = Array.from(fresh.numbers.subarray(0, count));
    expect(numbers.map((n) => fresh.names[n])).toEqual(words);
    expect(new Set(numbers).size).toBe(new Set(words).size);
    // The slow way (text beyond ASCII) finds the same numbers.
    expect(words.map((word) => fresh.number(word))).toEqual(numbers);
    expect(Array.from(fresh.numbers.subarray(0, fresh.numberTerms(`é ${text}`)).subarray(1))).toEqual(numbers);
    // Two long terms with the same first four characters and the same FNV-1a hash.
    const colliding = ["collkvlfaa", "coll3pdhaa"];
    expect(Array.from(fresh.numbers.subarray(0, fresh.numberTerms(colliding.join(" "))), (n) => fresh.names[n])).toEqual(colliding);
  });

  test("finds the terms FTS5's unicode61 tokenizer finds in ASCII text", () => {
    const texts = ["Retry_budget: the WORKER's 2nd try (e2e) -- x86-64, v1.2.3; naïve-free ASCII", "a\tb\nc  d-e/f.g@h#i", "__init__ CamelCase snake_case 0x1F"];
    db.exec("CREATE VIRTUAL TABLE temp.words USING fts5(text, tokenize='unicode61 remove_diacritics 2')");
    db.exec("CREATE VIRTUAL TABLE temp.word_list USING fts5vocab(temp, words, 'instance')");
    for (const [i, text] of texts.entries()) {
      const ascii = text.replace(/[\u0080-\uffff]/g, " ");
      db.prepare("INSERT INTO temp.words (rowid, text) VALUES (?, ?)").run(i + 1, ascii);
      const fts = db.prepare("SELECT term FROM temp.word_list WHERE doc = ? ORDER BY offset").pluck().all(i + 1);
      expect(termsOf(ascii), ascii).toEqual(fts);
      expect(Array.from(termNumbers(ascii), (n) => vocabulary.names[n]), ascii).toEqual(fts);
    }
  });

  test("reports the same total as counting every page that matches any word", () => {
    for (const query of queries().slice(0, 12)) {
      const all = oracle(queryTokens(query), -1);
      expect(searchPages(ctx, { query, limit: 50 }).total, query).toBe(all.length);
    }
  });

  test("the hits without a total are the same hits", () => {
    for (const query of queries().slice(0, 12)) {
      expect(searchHits(ctx, { query, limit: 50 }), query).toEqual(searchPages(ctx, { query, limit: 50 }).hits);
    }
  });
});
