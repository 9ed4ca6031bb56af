import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { indexContents } from "../support/index-contents.js";

/**
 * When the folder layout is unchanged, a refresh takes the changed files from the scan's
 * own comparison with its snapshot, plus the manifest rows whose stamp is racy, instead of
 * comparing every file with its row (src/index/changes.ts). After every kind of edit that
 * keeps the layout, the index must be exactly what a full rebuild of the same files gives,
 * and the refresh must have taken that path.
 */

let box: Sandbox;
let root: string;
let almanac: string;
/** Seconds in the past that every file's mtime is set to, so nothing is racy unless a step wants it. */
let clock = Math.floor(Date.now() / 1000) - 7200;

const PAGES = 40;

function pageFile(i: number, words: string): string {
  return page({ title: `Page ${i}`, summary: `Summary ${i}`, topics: ["concepts"], body: `# Page ${i}\n\n${words}\n\n## Part\n\nMore about item${i}.` });
}

/** Writes a file keeping its folder's listing (an existing file), with an mtime in the past, distinct each time. */
function rewrite(rel: string, content: string | Buffer, mtime = ++clock): void {
  const path = join(almanac, rel);
  writeFileSync(path, content);
  utimesSync(path, mtime, mtime);
}

function ageEverything(): void {
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      utimesSync(path, clock, clock);
    }
  };
  walk(almanac);
  utimesSync(almanac, clock, clock);
}

/** A read, which refreshes the index in the wiki's own state root; returns its trace. */
function read(): string {
  const result = box.run(["search", "item1", "--json"], { cwd: root, env: { CODEALMANAC_TRACE: "1" } });
  expect(result.code, result.stderr).toBe(0);
  return result.stderr;
}

function indexFile(state: string): string {
  const repo = readdirSync(join(state, "repos"))[0]!;
  return join(state, "repos", repo, "index.db");
}

/** The same files indexed from nothing, in a state root of their own. */
function rebuiltContents(name: string) {
  const state = join(box.dir, `state-rebuilt-${name}`);
  const result = box.run(["reindex", "--json"], { cwd: root, env: { CODEALMANAC_HOME: state } });
  expect(result.code, result.stderr).toBe(0);
  return indexContents(indexFile(state), { byRoute: true });
}

function expectSameAsRebuild(name: string): void {
  const incremental = indexContents(indexFile(box.state), { byRoute: true });
  const rebuilt = rebuiltContents(name);
  for (const table of Object.keys(rebuilt.tables)) {
    // The snapshot is written by each build from its own walk; everything else must agree.
    if (table === "meta") continue;
    expect(incremental.tables[table], `${name}: table ${table}`).toEqual(rebuilt.tables[table]);
  }
  expect(incremental.searchTerms, `${name}: search terms`).toEqual(rebuilt.searchTerms);
}

beforeAll(() => {
  box = sandbox();
  root = join(box.dir, "repo");
  const files: Record<string, string> = {};
  for (let i = 0; i < PAGES; i++) files[`area-${i % 4}/page-${i}.md`] = pageFile(i, `Words of page ${i}.`);
  // Two files on one route: the flat file keeps it while it is a page.
  files["clash.md"] = page({ title: "Flat clash", body: "The flat file owns the route." });
  files["clash/README.md"] = page({ title: "Landing clash", body: "The landing page waits." });
  files["odd/later.md"] = "---\ntitle: [unclosed\n---\n\n# Broken front matter\n";
  writeWiki(root, files);
  almanac = join(root, "almanac");
  ageEverything();
  read();
});

afterAll(() => box?.cleanup());

describe("a refresh that takes the changed files from the scan", () => {
  test("one page's new content is indexed, and only that file is compared", () => {
    rewrite("area-1/page-5.md", pageFile(5, "Entirely new words: zeppelin."));
    const trace = read();
    expect(trace).toMatch(/refresh: 1 changed of \d+ files \(listed by the scan\)/);
    expectSameAsRebuild("content");
  });

  test("a touch with the same content changes no page", () => {
    const path = join(almanac, "area-2/page-6.md");
    rewrite("area-2/page-6.md", readFileSync(path));
    const trace = read();
    expect(trace).toMatch(/refresh: 1 changed of \d+ files \(listed by the scan\)/);
    expectSameAsRebuild("touch");
  });

  test("the owner of a route stops being a page: the other file on the route takes it", () => {
    rewrite("clash.md", Buffer.from([0x23, 0x20, 0x00, 0x01]));
    expect(read()).toContain("(listed by the scan)");
    expectSameAsRebuild("route-loser");
    rewrite("clash.md", page({ title: "Flat clash", body: "The flat file owns the route again." }));
    expect(read()).toContain("(listed by the scan)");
    expectSameAsRebuild("route-owner");
  });

  test("a file that was not a page becomes one", () => {
    rewrite("odd/later.md", page({ title: "Now a page", topics: ["concepts"], body: "# Now a page\n\nFixed front matter." }));
    expect(read()).toContain("(listed by the scan)");
    expectSameAsRebuild("skipped-to-page");
  });

  test("an edit within the same size and mtime as a racy stamp is still found", () => {
    // Written and indexed within the racy window: the stamp cannot vouch for the content.
    const now = Math.floor(Date.now() / 1000);
    const first = pageFile(9, "Racy words, first: aaaa.");
    rewrite("area-1/page-9.md", first, now);
    expect(read()).toContain("(listed by the scan)");
    // The same size and the same mtime, other content: only the racy row can tell.
    const second = pageFile(9, "Racy words, again: bbbb.");
    expect(second.length).toBe(first.length);
    rewrite("area-1/page-9.md", second, now);
    expect(statSync(join(almanac, "area-1/page-9.md")).mtimeMs).toBe(now * 1000);
    expect(read()).toContain("(listed by the scan)");
    expectSameAsRebuild("racy");
  });
});
