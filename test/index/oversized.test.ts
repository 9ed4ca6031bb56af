import { closeSync, existsSync, openSync, readFileSync, realpathSync, truncateSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { MAX_INDEXED_BYTES } from "../../src/index/layout.js";
import { readPageHead } from "../../src/index/page-file.js";
import { openWiki, type OpenedWiki } from "../support/wiki-index.js";

/**
 * A page far over the 2 MB the index covers, written sparse: 3 MB of text, then zeros up
 * to 200 MB. Indexing it and every later read must stay within the first 2 MB, and say
 * the page was cut.
 */
const BIG = 200 * 1024 * 1024;

/** Bytes this process has read through read(2) so far (Linux), or null where that is not counted. */
function bytesRead(): number | null {
  if (!existsSync("/proc/self/io")) return null;
  const match = /^rchar: (\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"));
  return match ? Number(match[1]) : null;
}

/** Sections of two-byte letters, so the 2 MB cut falls inside a character unless it is cut back. */
function bigPageText(): string {
  const parts = ["---\ntitle: Big\ntopics: [concepts]\nsources: []\n---\n\n# Big\n\nZucchini opens the big page.\n\n"];
  let size = Buffer.byteLength(parts[0]!);
  for (let i = 0; size < 3 * 1024 * 1024; i++) {
    const section = `## Part ${i}\n\n${"é".repeat(4001)} filler words\n\n`;
    parts.push(section);
    size += Buffer.byteLength(section);
  }
  parts.push("## Late\n\nAubergine lies past the cut.\n");
  return parts.join("");
}

let wiki: OpenedWiki | undefined;
afterEach(() => {
  wiki?.close();
  wiki = undefined;
});

describe("an oversized page", () => {
  test("is indexed, shown, excerpted and read from its first 2 MB only, and says it was cut", async () => {
    wiki = openWiki({});
    const path = join(wiki.dir, "almanac", "big.md");
    writeFileSync(path, bigPageText());
    truncateSync(path, BIG);
    const start = bytesRead();
    const outcome = await wiki.index.refresh();
    expect(outcome.created).toContain("big");
    const before = bytesRead();
    // Reading the whole file (to parse or to hash it) costs 200 MB.
    if (start !== null && before !== null) expect(before - start).toBeLessThan(2 * MAX_INDEXED_BYTES);

    const view = await wiki.index.show("big");
    const { hits } = await wiki.index.search({ query: "zucchini" });
    const after = bytesRead();

    expect(view.truncated).toBe(true);
    expect(view.file_size).toBe(BIG);
    expect(Buffer.byteLength(view.body)).toBeLessThanOrEqual(MAX_INDEXED_BYTES);
    expect(view.body.startsWith("# Big\n\nZucchini opens the big page.")).toBe(true);
    expect(view.body).not.toContain("\uFFFD");
    expect(view.body).not.toContain("Aubergine");
    expect(hits.map((hit) => [hit.slug, hit.excerpt])).toEqual([["big", "Zucchini opens the big page."]]);
    expect((await wiki.index.search({ query: "aubergine" })).hits).toEqual([]);
    // Both reads together stay near the 2 MB cut.
    if (before !== null && after !== null) expect(after - before).toBeLessThan(2 * MAX_INDEXED_BYTES);

    const issues = await wiki.index.issues();
    expect(issues.find((issue) => issue.path === "big.md")).toMatchObject({
      category: "page_truncated",
      message: "page is 200.0 MB; only the first 2 MB are indexed",
    });
  });

  test("its first 2 MB are cut back to a whole character, and its hash changes with a change past the cut", () => {
    wiki = openWiki({});
    const path = join(wiki.dir, "almanac", "big.md");
    writeFileSync(path, bigPageText());
    truncateSync(path, 8 * 1024 * 1024);
    utimesSync(path, 1_700_000_000, 1_700_000_000);
    const root = realpathSync(join(wiki.dir, "almanac"));
    const head = readPageHead(path, root, { hash: true });
    expect(head.truncated).toBe(true);
    expect(head.size).toBe(8 * 1024 * 1024);
    // This text puts the first byte of an "é" last before the cut: it goes, the character is not split.
    expect(head.bytes.length).toBe(MAX_INDEXED_BYTES - 1);
    expect(new TextDecoder("utf-8", { fatal: true }).decode(head.bytes)).toMatch(/é$/);
    expect(readPageHead(path, root, { hash: true }).hash).toBe(head.hash);
    // One byte rewritten at 5 MB, the size kept: its new mtime changes the hash.
    const fd = openSync(path, "r+");
    writeSync(fd, "x", 5 * 1024 * 1024);
    closeSync(fd);
    utimesSync(path, 1_700_000_100, 1_700_000_100);
    expect(readPageHead(path, root, { hash: true }).hash).not.toBe(head.hash);
  });
});
