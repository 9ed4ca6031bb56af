import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { ROOT, page, sandbox, type Sandbox } from "../support/cli.js";

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
  const generated = spawnSync(
    process.execPath,
    [join(ROOT, "bench", "generate-wiki.mjs"), "--pages", String(PAGES), "--out", root, "--seed", "7"],
    { encoding: "utf8" },
  );
  expect(generated.status, generated.stderr).toBe(0);
  // The cases that take other paths through the parser and the router.
  const extra: Record<string, string | Buffer> = {
    "odd/crlf-bom.md": `\uFEFF${page({ title: "Windows page", topics: ["odd"], body: "Lead words.\n\n## Part one\n\nCarriage returns here.\n\n## Part two\n\nMore." }).replace(/\n/g, "\r\n")}`,
    "odd/binary.md": Buffer.from([0x23, 0x20, 0x00, 0x01, 0x02]),
    "odd/not-utf8.md": Buffer.from([0x23, 0x20, 0xc3, 0x28, 0x0a]),
    "odd/bad-front-matter.md": "---\ntitle: [unclosed\n---\n\n# Heading only\n",
    "odd/clash.md": page({ title: "Flat clash", body: "The flat file loses the route." }),
    "odd/clash/README.md": page({ title: "Landing clash", body: "The landing page keeps the route." }),
    "odd/no-headings.md": "Just words, no front matter and no headings.\n",
  };
  for (const [rel, content] of Object.entries(extra)) {
    const path = join(root, "almanac", rel);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, content);
  }
});

afterAll(() => box?.cleanup());

/** Builds the wiki's index into a state directory of its own; returns the index file and the trace. */
function build(name: string, workers: string): { file: string; trace: string } {
  const state = join(box.dir, `state-${name}`);
  const result = box.run(["reindex", "--json"], {
    cwd: root,
    env: { CODEALMANAC_HOME: state, CODEALMANAC_PARSE_WORKERS: workers, CODEALMANAC_TRACE: "1" },
    timeoutMs: 120_000,
  });
  expect(result.code, result.stderr).toBe(0);
  expect(result.json<{ pages_indexed: number }>().pages_indexed).toBeGreaterThanOrEqual(PAGES);
  const repo = readdirSync(join(state, "repos"))[0]!;
  return { file: join(state, "repos", repo, "index.db"), trace: result.stderr };
}

/** Times of the refresh itself, which differ between any two builds. */
const CLOCK_COLUMNS = new Set(["checked_at"]);

/** Every table's rows, sorted; the search table as its full term instance list (term, row, column, offset), hashed. */
function contents(file: string): { tables: Record<string, unknown[]>; searchTerms: { count: number; sha256: string } } {
  const db = new Database(file);
  try {
    const names = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sections_fts%' ORDER BY name")
      .pluck()
      .all() as string[];
    const tables: Record<string, unknown[]> = {};
    for (const name of names) {
      const rows = (db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]).map((row) => {
        for (const column of CLOCK_COLUMNS) delete row[column];
        // The snapshot and topics stamp carry the time of the refresh that wrote them; the
        // registration, when the wiki was registered and in which state database (each build has its own).
        if (name === "meta" && typeof row.value === "string") {
          row.value = row.value.replace(/"(checkedAt|registeredAt)":\d+(\.\d+)?/g, '"$1":0').replace(/"ledgerId":"[0-9a-f]+"/, '"ledgerId":""');
        }
        return JSON.stringify(row);
      });
      tables[name] = rows.sort();
    }
    // Contentless FTS5 keeps no text to compare; its vocabulary, instance by instance, is the index itself.
    db.exec("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, sections_fts, 'instance')");
    const hash = createHash("sha256");
    let count = 0;
    for (const row of db.prepare("SELECT term, doc, col, offset FROM temp.terms ORDER BY term, doc, col, offset").raw().iterate()) {
      hash.update(`${JSON.stringify(row)}\n`);
      count++;
    }
    tables.sections_fts_docsize = (db.prepare("SELECT id, sz FROM sections_fts_docsize").raw().all() as [number, Buffer][])
      .map(([id, sz]) => `${id}:${sz.toString("hex")}`)
      .sort();
    return { tables, searchTerms: { count, sha256: hash.digest("hex") } };
  } finally {
    db.close();
  }
}

describe("parsing on worker threads", () => {
  test(`gives the same index as parsing on one thread (${PAGES} pages)`, () => {
    const threaded = build("threaded", "2");
    const inline = build("inline", "0");
    // Each build took the path it was meant to.
    expect(threaded.trace).toContain("refresh: parsing on 2 worker threads");
    expect(inline.trace).toContain("refresh: parsing inline");

    const a = contents(threaded.file);
    const b = contents(inline.file);
    expect(a.tables.pages!.length).toBeGreaterThanOrEqual(PAGES);
    expect(a.tables.sections!.length).toBeGreaterThan(PAGES);
    expect(a.searchTerms.count).toBeGreaterThan(100_000);
    expect(Object.keys(a.tables)).toEqual(Object.keys(b.tables));
    for (const name of Object.keys(a.tables)) expect(a.tables[name], `table ${name}`).toEqual(b.tables[name]);
    expect(a.searchTerms).toEqual(b.searchTerms);
  });
});
