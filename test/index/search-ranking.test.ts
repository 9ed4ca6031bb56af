import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { searchHits, searchPages, type SearchContext } from "../../src/index/views/search.js";
import { queryTokens } from "../../src/index/views/query.js";
import { SECTION_SLOTS } from "../../src/index/layout.js";
import type { Db } from "../../src/core/sqlite.js";
import { sandbox, type Sandbox } from "../support/cli.js";
import { generateBenchWiki } from "../support/bench-wiki.js";

/**
 * A bounded query of several words may be answered from the sections holding all of them,
 * or its rarest word, when a BM25 bound proves no other section can reach the cut
 * (src/index/views/search.ts).
 * The answer must be exactly what ranking every matching section gives: this oracle is the
 * single statement search used before, which scores every match and keeps each page's best
 * section with a window.
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
  db = new Database(join(repos, repo!, "index.db"), { readonly: true });
  const almanac = join(root, "almanac");
  ctx = { db: db as unknown as Db, almanacPath: almanac, wikiRoot: almanac, repositoryRoot: root };
});

afterAll(() => {
  db?.close();
  box?.cleanup();
});

interface Ranked {
  slug: string;
  heading: string;
}

/** Every page matching any word, best first: the full ranking. */
function oracle(tokens: string[], limit: number): Ranked[] {
  const match = tokens.map((t) => `"${t.replace(/"/g, '""')}"*`).join(" OR ");
  return db
    .prepare(
      `WITH hits AS MATERIALIZED (
         SELECT rowid AS sid, bm25(sections_fts, 5.0, 3.0, 1.0) AS score FROM sections_fts WHERE sections_fts MATCH ?
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

/** The best pages among those with a section holding every word: what answering from those alone gives. */
function allWordsOnly(tokens: string[], limit: number): string[] {
  const match = tokens.map((t) => `"${t.replace(/"/g, '""')}"*`).join(" AND ");
  return (
    db
      .prepare(
        `WITH hits AS MATERIALIZED (
           SELECT rowid AS sid, bm25(sections_fts, 5.0, 3.0, 1.0) AS score FROM sections_fts WHERE sections_fts MATCH ?
         )
         SELECT p.slug FROM (SELECT sid / ${SECTION_SLOTS} AS page, min(score) AS score FROM hits GROUP BY 1) b
         JOIN pages p ON p.id = b.page ORDER BY b.score, p.updated_at DESC, p.slug LIMIT ?`,
      )
      .all(match, limit) as { slug: string }[]
  ).map((row) => row.slug);
}

/** The best pages among those with a section holding the query's rarest word (the fewest search rows). */
function rarestWordOnly(tokens: string[], limit: number): string[] {
  const phrases = tokens.map((t) => `"${t.replace(/"/g, '""')}"*`);
  const count = db.prepare("SELECT count(*) FROM sections_fts WHERE sections_fts MATCH ?").pluck();
  const counts = phrases.map((phrase) => count.get(phrase) as number);
  const rarest = phrases[counts.indexOf(Math.min(...counts))]!;
  return (
    db
      .prepare(
        `WITH hits AS MATERIALIZED (
           SELECT rowid AS sid, bm25(sections_fts, 5.0, 3.0, 1.0) AS score FROM sections_fts
           WHERE sections_fts MATCH ? AND rowid IN (SELECT rowid FROM sections_fts WHERE sections_fts MATCH ?)
         )
         SELECT p.slug FROM (SELECT sid / ${SECTION_SLOTS} AS page, min(score) AS score FROM hits GROUP BY 1) b
         JOIN pages p ON p.id = b.page ORDER BY b.score, p.updated_at DESC, p.slug LIMIT ?`,
      )
      .all(phrases.join(" OR "), rarest, limit) as { slug: string }[]
  ).map((row) => row.slug);
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

describe("ranking from the sections holding every word, or the rarest word", () => {
  test("gives exactly the full ranking's pages, order and best sections, at every limit", () => {
    let pruned = 0;
    let prunedDiffersFromAllWordsAlone = 0;
    let prunedByRarest = 0;
    let rarestAloneWouldBeWrong = 0;
    for (const query of queries()) {
      const tokens = queryTokens(query);
      for (const limit of [1, 7, 50]) {
        const result = searchPages(ctx, { query, limit });
        const expected = oracle(tokens, limit);
        expect(
          result.hits.map((hit) => ({ slug: hit.slug, heading: hit.matched_heading ?? "" })),
          `${query} (limit ${limit})`,
        ).toEqual(expected);
        if (result.ranking === "all-words") pruned++;
        else if (result.ranking === "rarest-word") prunedByRarest++;
        else {
          const slugs = expected.map((row) => row.slug).join();
          if (allWordsOnly(tokens, limit).join() !== slugs) prunedDiffersFromAllWordsAlone++;
          if (rarestWordOnly(tokens, limit).join() !== slugs) rarestAloneWouldBeWrong++;
        }
      }
    }
    // Every path was taken, and answering from the all-words or the rarest word's sections
    // without the bound would have been wrong somewhere: the bound is what keeps the answer exact.
    expect(pruned).toBeGreaterThan(0);
    expect(prunedByRarest).toBeGreaterThan(0);
    expect(prunedDiffersFromAllWordsAlone).toBeGreaterThan(0);
    expect(rarestAloneWouldBeWrong).toBeGreaterThan(0);
  });

  test("reports the same total as counting every page that matches any word", () => {
    for (const query of queries().slice(0, 12)) {
      const tokens = queryTokens(query);
      const all = oracle(tokens, -1);
      expect(searchPages(ctx, { query, limit: 50 }).total, query).toBe(all.length);
      expect(searchPages(ctx, { query }).hits.map((hit) => hit.slug), query).toEqual(all.map((row) => row.slug));
    }
  });

  test("the hits without a total are the same hits", () => {
    for (const query of queries().slice(0, 12)) {
      expect(searchHits(ctx, { query, limit: 50 }), query).toEqual(searchPages(ctx, { query, limit: 50 }).hits);
    }
  });
});
