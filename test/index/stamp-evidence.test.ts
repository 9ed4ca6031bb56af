import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { stampEvidence } from "../../src/index/stamp-evidence.js";
import { fileFingerprint, fileLines, rangeFingerprint } from "../../src/wiki/evidence.js";
import { openWiki, type OpenedWiki } from "../support/wiki-index.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
let wiki: OpenedWiki | null = null;

afterEach(() => {
  wiki?.close();
  wiki = null;
});

function put(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

const pageWith = (sources: string[]) => `---\ntitle: P\ntopics: [concepts]\nsources:\n${sources.map((s) => `  - ${s}\n`).join("")}---\n# P\n\nBody.\n`;

describe("stampEvidence", () => {
  test("stamps what the working tree holds; never reads a file through a link out of the repository", async () => {
    const text = pageWith([
      "{id: a, type: file, path: src/a.ts, lines: 2}",
      "{id: whole, type: file, path: src/a.ts}",
      "{id: out, type: file, path: src/secret.ts}",
      "{id: gone, type: file, path: src/gone.ts, lines: 1-2}",
      "{id: bare-dir, type: file, path: src}",
      "{id: dir, type: file, path: src/}",
      "{id: web, type: web, url: 'https://example.com'}",
    ]);
    wiki = openWiki({ "p.md": text, "untouched.md": pageWith(["{id: a, type: file, path: src/a.ts}"]) });
    const root = wiki.dir;
    put(root, "src/a.ts", "one\ntwo\n");
    put(join(root, ".."), "outside/secret.ts", "a secret\n");
    symlinkSync(join(root, "..", "outside", "secret.ts"), join(root, "src", "secret.ts"));
    await wiki.index.refresh();

    const report = await stampEvidence(wiki.index, ["p", "no-such-page"], SHA);
    expect(report).toEqual({
      pages: 1,
      sources: 2,
      written: 1,
      unstamped: [
        { page: "p", source: "out", reason: "src/secret.ts leads outside the repository" },
        { page: "p", source: "gone", reason: "src/gone.ts does not exist" },
        { page: "p", source: "bare-dir", reason: "src is a folder" },
      ],
    });
    const a = rangeFingerprint(fileLines("one\ntwo\n"), { start: 2, end: 2 });
    const whole = fileFingerprint(Buffer.from("one\ntwo\n"));
    expect(readFileSync(join(root, "almanac", "p.md"), "utf8")).toBe(
      text
        .replace("lines: 2}", `lines: 2, fingerprint: ${a}, verified_at: ${SHA}}`)
        .replace("path: src/a.ts}", `path: src/a.ts, fingerprint: ${whole}, verified_at: ${SHA}}`),
    );
    expect(readFileSync(join(root, "almanac", "untouched.md"), "utf8")).toBe(pageWith(["{id: a, type: file, path: src/a.ts}"]));

    // Once stamped, the same stamp writes nothing; the index sees the stamps after its next refresh.
    expect(await stampEvidence(wiki.index, ["p"], SHA)).toMatchObject({ pages: 1, sources: 2, written: 0 });
    await wiki.index.refresh();
    const stored = await wiki.index.read((db) => db.prepare("SELECT fingerprint, verified_at FROM page_sources WHERE page_slug = 'p' AND source_id = 'a'").get());
    expect(stored).toEqual({ fingerprint: a, verified_at: SHA });
  });

  test("a page whose front matter cannot be read is reported by name, and the others are still stamped", async () => {
    wiki = openWiki({ "bad.md": "---\ntitle: [oops\n---\n# Bad\n", "good.md": pageWith(["{id: a, type: file, path: a.ts}"]) });
    put(wiki.dir, "a.ts", "x\n");
    await wiki.index.refresh();
    const report = await stampEvidence(wiki.index, ["bad", "good"], null);
    expect(report.unstamped).toEqual([{ page: "bad", source: null, reason: `invalid frontmatter: ${join(wiki.dir, "almanac", "bad.md")}` }]);
    expect(report).toMatchObject({ pages: 1, sources: 1, written: 1 });
    expect(readFileSync(join(wiki.dir, "almanac", "good.md"), "utf8")).toContain(`{id: a, type: file, path: a.ts, fingerprint: ${fileFingerprint(Buffer.from("x\n"))}}`);
  });
});
