import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sandbox, type Sandbox } from "../support/cli.js";
import { generateBenchWiki } from "../support/bench-wiki.js";

/**
 * Index hygiene: rebuilds and edits must not leave the index file growing with free pages.
 * Index files are created with auto_vacuum = INCREMENTAL, and a refresh that left more than
 * a sixteenth of the file free hands those pages back (src/index/refresh.ts).
 */

const PAGES = 400;
let box: Sandbox;
let root: string;

beforeAll(() => {
  box = sandbox();
  root = join(box.dir, "repo");
  generateBenchWiki(root, PAGES, 3);
});

afterAll(() => box?.cleanup());

type FileStats = { pages: number; free: number; autoVacuum: number };

function indexFile(): string {
  const repos = join(box.dir, "state", "repos");
  return join(repos, readdirSync(repos)[0]!, "index.db");
}

function stats(): FileStats {
  const db = new Database(indexFile(), { readonly: true });
  try {
    return {
      pages: db.pragma("page_count", { simple: true }) as number,
      free: db.pragma("freelist_count", { simple: true }) as number,
      autoVacuum: db.pragma("auto_vacuum", { simple: true }) as number,
    };
  } finally {
    db.close();
  }
}

function run(args: string[]): string {
  const result = box.run(args, { cwd: root, env: { CODEALMANAC_TRACE: "1" }, timeoutMs: 120_000 });
  expect(result.code, result.stderr).toBe(0);
  return result.stderr;
}

/** Rewrites every other page: its old rows and search segments become free pages. */
function editHalf(round: number): void {
  const pages = readdirSync(join(root, "almanac"), { recursive: true, encoding: "utf8" }).filter((rel) => rel.endsWith(".md") && !rel.endsWith("README.md"));
  pages.sort();
  pages.forEach((rel, i) => {
    if (i % 2 === round % 2) appendFileSync(join(root, "almanac", rel), `\n\n## Edited in round ${round}\n\nNew words for round ${round}: ${"edited ".repeat(200)}\n`);
  });
}

describe("free pages in the index file", () => {
  test("forced rebuilds and edit cycles leave the file with few free pages", () => {
    run(["reindex", "--json"]);
    const built = stats();
    // 2: INCREMENTAL, fixed when the file's first table was created.
    expect(built.autoVacuum).toBe(2);
    expect(built.free * 16).toBeLessThanOrEqual(built.pages);

    const traces: string[] = [];
    for (let round = 1; round <= 3; round++) {
      editHalf(round);
      traces.push(run(["search", "edited", "--json"]));
      const after = stats();
      expect(after.free * 16, `round ${round}: ${JSON.stringify(after)}`).toBeLessThanOrEqual(after.pages);
    }
    // The edits did free a large share of the file, which was handed back (else the check above proves nothing).
    expect(traces.join("\n")).toMatch(/refresh: \d+ free pages of \d+ handed back/);

    for (let rebuild = 1; rebuild <= 3; rebuild++) {
      run(["reindex", "--json"]);
      const after = stats();
      expect(after.autoVacuum).toBe(2);
      expect(after.free * 16, `rebuild ${rebuild}: ${JSON.stringify(after)}`).toBeLessThanOrEqual(after.pages);
    }
  });
});
