import { afterEach, describe, expect, test } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openDatabase, type Db } from "../../src/core/sqlite.js";
import { indexMigrations } from "../../src/index/schema.js";
import { IndexWriter } from "../../src/index/refresh.js";
import { createPageParser } from "../../src/index/parse-file.js";
import { provenMiss } from "../../src/index/miss.js";
import { resolveSlug } from "../../src/index/views/pages.js";
import { page, sandbox, writeWiki } from "../support/cli.js";

/**
 * `show` of an unknown page answers from the index without a refresh only when the
 * answer (the miss and its suggestions) is provably what a refresh would give.
 */

const doc = (title: string) => page({ title, topics: ["concepts"], sources: [], body: `# ${title}\n\nText.` });
/** Well before the refresh's clock, so nothing is in the racy window. */
const PAST = new Date(Date.now() - 60_000);

let dir: string;
let db: Db;
let writer: IndexWriter;
let almanac: string;

afterEach(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A time after PAST, and a refresh clock that has it inside the racy window (isRacy in src/index/scan.ts: 2 s). */
const RECENT = new Date(PAST.getTime() + 30_000);
const RACY_CLOCK = RECENT.getTime() + 1_000;

/**
 * A wiki whose files and folders all date from PAST, indexed by a refresh whose clock is 10 s
 * ahead. With `recent`, those paths date from RECENT instead and every refresh's clock is
 * RACY_CLOCK, so they are in the racy window while everything else is well outside it.
 */
async function indexed(files: Record<string, string | Buffer>, recent: string[] = []): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), "ca-miss-"));
  const text = Object.fromEntries(Object.entries(files).filter(([, v]) => typeof v === "string")) as Record<string, string>;
  writeWiki(dir, text);
  almanac = join(dir, "almanac");
  for (const [rel, content] of Object.entries(files)) if (typeof content !== "string") put(rel, content);
  agePaths();
  for (const rel of recent) utimesSync(join(almanac, rel), RECENT, RECENT);
  const now = recent.length > 0 ? () => RACY_CLOCK : () => Date.now() + 10_000;
  db = openDatabase(join(dir, "state", "index.db"), { migrations: indexMigrations, onNewerSchema: "recreate" });
  writer = new IndexWriter({ db, almanacPath: almanac, wikiRoot: realpathSync(almanac), now, loadParser: async () => createPageParser() });
  await writer.refresh();
}

function put(rel: string, content: string | Buffer): void {
  const path = join(almanac, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** Moves every file and folder's mtime to PAST (a folder's mtime changing is what the check looks for). */
function agePaths(...rels: string[]): void {
  const all = rels.length > 0 ? rels : ["", "guides", "guides/setup.md", "guides/deploy.md", "notes", "notes/blob.md", "notes/Case.md", "notes/case.md", "reference", "reference/glossary.md"];
  for (const rel of all) {
    try {
      utimesSync(join(almanac, rel), PAST, PAST);
    } catch {
      // not in this wiki
    }
  }
}

/** The error a refresh and `show` would give, for comparison. */
async function refreshedAnswer(input: string): Promise<string> {
  await writer.refresh();
  try {
    return `found ${resolveSlug(db, input)}`;
  } catch (error) {
    return (error as Error).message;
  }
}

const WIKI = { "guides/setup.md": doc("Setup"), "guides/deploy.md": doc("Deploy"), "reference/glossary.md": doc("Glossary") };

describe("an unknown page answered without a refresh", () => {
  test("on an unchanged wiki: the same miss and suggestions a refresh gives", async () => {
    await indexed(WIKI);
    const miss = provenMiss(db, almanac, "guides/setpu");
    expect(miss?.message).toBe("page not found: guides/setpu (did you mean guides/setup, guides/deploy?)");
    expect(await refreshedAnswer("guides/setpu")).toBe(miss?.message);
  });

  test("a known page is never answered here", async () => {
    await indexed(WIKI);
    expect(provenMiss(db, almanac, "guides/setup")).toBeNull();
  });

  test("an edit to a page the answer does not involve changes nothing and is not looked at", async () => {
    await indexed(WIKI);
    put("reference/glossary.md", Buffer.from([0x23, 0x00, 0x01])); // not even a page any more
    agePaths("reference"); // the folder keeps its recorded mtime
    utimesSync(join(almanac, "reference/glossary.md"), new Date(PAST.getTime() + 5_000), new Date(PAST.getTime() + 5_000));
    const miss = provenMiss(db, almanac, "guides/setpu");
    expect(miss?.message).toBe("page not found: guides/setpu (did you mean guides/setup, guides/deploy?)");
    expect(await refreshedAnswer("guides/setpu")).toBe(miss?.message);
  });

  test("a page added since the refresh (its folder's mtime moved): refresh first", async () => {
    await indexed(WIKI);
    put("guides/setpu.md", doc("Typo page"));
    utimesSync(join(almanac, "guides"), new Date(PAST.getTime() + 1_000), new Date(PAST.getTime() + 1_000));
    expect(provenMiss(db, almanac, "guides/setpu")).toBeNull();
    expect(await refreshedAnswer("guides/setpu")).toBe("found guides/setpu");
  });

  test("a page added to a folder in the racy window, the folder's mtime unchanged: refresh first", async () => {
    await indexed(WIKI, ["guides"]);
    put("guides/setpu.md", doc("Typo page"));
    // The folder keeps exactly the mtime the snapshot recorded: only the racy window can tell.
    utimesSync(join(almanac, "guides"), RECENT, RECENT);
    expect(provenMiss(db, almanac, "guides/setpu")).toBeNull();
    expect(await refreshedAnswer("guides/setpu")).toBe("found guides/setpu");
  });

  test("a non-page file in the racy window made a page in place, same size and mtime: refresh first", async () => {
    const blob = Buffer.from(doc("Blob"));
    const binary = Buffer.from(blob);
    binary[1] = 0x00; // a NUL byte: not a page (src/index/parse-file.ts), and the same size as the page it becomes
    await indexed({ ...WIKI, "notes/blob.md": binary }, ["notes/blob.md"]);
    put("notes/blob.md", blob);
    // The file keeps exactly the size and mtime the manifest recorded, and its folder is untouched.
    utimesSync(join(almanac, "notes/blob.md"), RECENT, RECENT);
    agePaths("notes");
    expect(provenMiss(db, almanac, "notes/blob")).toBeNull();
    expect(await refreshedAnswer("notes/blob")).toBe("found notes/blob");
  });

  test("a binary file made a page in place (no folder change): refresh first", async () => {
    await indexed({ ...WIKI, "notes/blob.md": Buffer.from([0x23, 0x00, 0x01]) });
    expect(provenMiss(db, almanac, "notes/blob")?.message).toMatch(/^page not found: notes\/blob/);
    put("notes/blob.md", doc("Blob"));
    agePaths("notes"); // the folder keeps its recorded mtime; the file's is new
    utimesSync(join(almanac, "notes/blob.md"), new Date(PAST.getTime() + 5_000), new Date(PAST.getTime() + 5_000));
    expect(provenMiss(db, almanac, "notes/blob")).toBeNull();
    expect(await refreshedAnswer("notes/blob")).toBe("found notes/blob");
  });

  test("a suggested page made binary in place: refresh first, and the suggestion is gone", async () => {
    await indexed(WIKI);
    put("guides/setup.md", Buffer.from([0x23, 0x00, 0x01]));
    agePaths("guides");
    utimesSync(join(almanac, "guides/setup.md"), new Date(PAST.getTime() + 5_000), new Date(PAST.getTime() + 5_000));
    expect(provenMiss(db, almanac, "guides/setpu")).toBeNull();
    expect(await refreshedAnswer("guides/setpu")).toBe("page not found: guides/setpu (did you mean guides/deploy?)");
  });

  test("two pages differing in letter case, one made binary: refresh first, and the other is found", async () => {
    await indexed({ ...WIKI, "notes/Case.md": doc("Upper"), "notes/case.md": doc("Lower") });
    expect(provenMiss(db, almanac, "notes/CASE")?.message).toMatch(/^page not found: notes\/CASE/);
    put("notes/case.md", Buffer.from([0x23, 0x00, 0x01]));
    agePaths("notes");
    utimesSync(join(almanac, "notes/case.md"), new Date(PAST.getTime() + 5_000), new Date(PAST.getTime() + 5_000));
    expect(provenMiss(db, almanac, "notes/CASE")).toBeNull();
    expect(await refreshedAnswer("notes/CASE")).toBe("found notes/Case");
  });

  test("a folder holding symlinks is never trusted", async () => {
    await indexed(WIKI);
    symlinkSync(join(almanac, "guides"), join(almanac, "linked"));
    agePaths("");
    await writer.refresh();
    agePaths("");
    expect(provenMiss(db, almanac, "guides/setpu")).toBeNull();
  });

  test("an index never refreshed has nothing to prove with", async () => {
    dir = mkdtempSync(join(tmpdir(), "ca-miss-"));
    writeWiki(dir, WIKI);
    almanac = join(dir, "almanac");
    db = openDatabase(join(dir, "state", "index.db"), { migrations: indexMigrations, onNewerSchema: "recreate" });
    expect(provenMiss(db, almanac, "guides/setpu")).toBeNull();
  });
});

describe("ca show of an unknown page", () => {
  test("answers from the index without a refresh, and refreshes once the wiki changed", () => {
    const box = sandbox();
    try {
      const root = writeWiki(join(box.dir, "repo"), WIKI);
      const age = (dir: string): void => {
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          if (entry.isDirectory()) age(join(dir, entry.name));
          utimesSync(join(dir, entry.name), PAST, PAST);
        }
        utimesSync(dir, PAST, PAST);
      };
      age(join(root, "almanac"));
      expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
      const show = () => box.run(["show", "guides/setpu", "--json"], { cwd: root, env: { CODEALMANAC_TRACE: "1" } });
      const quick = show();
      expect(quick.code).toBe(1);
      expect(quick.stderr).toContain("did you mean guides/setup, guides/deploy?");
      expect(quick.stderr).toContain("show: miss proven without a refresh");
      expect(quick.stderr).not.toContain("refresh: start");

      writeFileSync(join(root, "almanac", "guides", "setpu.md"), doc("Typo page"));
      const found = show();
      expect(found.code, found.stderr).toBe(0);
      expect(found.stderr).toContain("refresh: start");
      expect(found.json<{ slug: string }>().slug).toBe("guides/setpu");
    } finally {
      box.cleanup();
    }
  });
});
