import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, sandbox, type Sandbox } from "../support/cli.js";
import { indexContents } from "../support/index-contents.js";
import { generateBenchWiki } from "../support/bench-wiki.js";

/**
 * Big rebuilds parse on worker threads (src/index/parse-pool.ts) while the main thread
 * writes; CODEALMANAC_PARSE_WORKERS=0 keeps parsing on the writing thread. Both must give
 * the same index, row for row.
 */

const PAGES = 1000;
let box: Sandbox;
let root: string;

beforeAll(() => {
  box = sandbox();
  root = join(box.dir, "repo");
  generateBenchWiki(root, PAGES, 7);
  // The cases that take other paths through the parser and the router.
  const extra: Record<string, string | Buffer> = {
    "odd/crlf-bom.md": `\uFEFF${page({ title: "Windows page", topics: ["odd"], body: "Lead words.\n\n## Part one\n\nCarriage returns here.\n\n## Part two\n\nMore." }).replace(/\n/g, "\r\n")}`,
    "odd/binary.md": Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]),
    "odd/not-utf8.md": Buffer.from([0x23, 0x20, 0xc3, 0x28, 0x0a]),
    "odd/bad-front-matter.md": "---\ntitle: [unclosed\n---\n\n# Heading only\n",
    "odd/clash.md": page({ title: "Flat clash", body: "The flat file loses the route." }),
    "odd/clash/README.md": page({ title: "Landing clash", body: "The landing page keeps the route." }),
    "odd/no-headings.md": "Just words, no front matter and no headings.\n",
    // Front matter the simple reader leaves to the yaml library, and inline runs it skips or parses.
    "odd/yaml-library.md": "---\ntitle: &t Anchored\nsummary: |\n  A block\n  scalar.\ntopics:\n  - odd\nsources:\n  - id: a\n    type: file\n    path: src/a.ts\n    lines: 3\n---\n\nCites [@a] and &#91;@a].\n",
    "odd/yaml-problems.md": "---\ntitle: \"Quoted: with colon\"\nsources:\n  - id: bad\n    type: bogus\n  - plain\n---\n\nAn entity citation &#91;@bad] and <https://example.com>.\n",
    "odd/yaml-invalid.md": "---\ntitle: A\ntitle: B\n---\n\nDuplicate keys.\n",
  };
  for (const [rel, content] of Object.entries(extra)) {
    const path = join(root, "almanac", rel);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
  }
});

afterAll(() => box?.cleanup());

/** Builds the wiki's index into a state directory of its own; returns the index file and the trace. */
function build(name: string, workers: string, fastParse = "1"): { file: string; trace: string } {
  const state = join(box.dir, `state-${name}`);
  const result = box.run(["reindex", "--json"], {
    cwd: root,
    env: { CODEALMANAC_HOME: state, CODEALMANAC_PARSE_WORKERS: workers, CODEALMANAC_TRACE: "1", CODEALMANAC_FAST_PARSE: fastParse },
    timeoutMs: 120_000,
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.json<{ pages_indexed: number }>().pages_indexed).toBeGreaterThanOrEqual(PAGES);
  const repo = readdirSync(join(state, "repos"))[0]!;
  return { file: join(state, "repos", repo, "index.db"), trace: result.stderr };
}

describe("parsing on worker threads", () => {
  test(`gives the same index as parsing on one thread (${PAGES} pages)`, () => {
    const threaded = build("threaded", "2");
    const inline = build("inline", "0");
    // Each build took the path it was meant to.
    expect(threaded.trace).toContain("refresh: parsing on 2 worker threads");
    expect(inline.trace).toContain("refresh: parsing inline");

    const a = indexContents(threaded.file);
    const b = indexContents(inline.file);
    expect(a.tables.pages!.length).toBeGreaterThanOrEqual(PAGES);
    expect(a.tables.sections!.length).toBeGreaterThan(PAGES);
    expect(a.searchTerms.count).toBeGreaterThan(100_000);
    expect(Object.keys(a.tables)).toEqual(Object.keys(b.tables));
    for (const name of Object.keys(a.tables)) expect(a.tables[name], `table ${name}`).toEqual(b.tables[name]);
    expect(a.searchTerms).toEqual(b.searchTerms);
  });

  test("the parser's shortcuts (simple front matter, inline runs skipped) give the full parse's index", () => {
    const fast = build("fast", "0");
    const full = build("full", "0", "0");
    const a = indexContents(fast.file);
    const b = indexContents(full.file);
    expect(a.tables.file_problems!.length).toBeGreaterThan(0);
    expect(a.tables.page_citations!.length).toBeGreaterThan(PAGES);
    expect(Object.keys(a.tables)).toEqual(Object.keys(b.tables));
    for (const name of Object.keys(a.tables)) expect(a.tables[name], `table ${name}`).toEqual(b.tables[name]);
    expect(a.searchTerms).toEqual(b.searchTerms);
  });
});
