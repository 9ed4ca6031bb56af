import { describe, expect, test } from "vitest";
import { fileFingerprint, fileLines, rangeFingerprint } from "../../src/wiki/evidence.js";
import { parsePage } from "../../src/wiki/page.js";
import { citedFingerprint, fileSourceEntries, stampPageSources, type SourceStamp } from "../../src/wiki/stamp-sources.js";

const P = "almanac/x.md";
const SHA = "0123456789abcdef0123456789abcdef01234567";
const OTHER = "fedcba9876543210fedcba9876543210fedcba98";
const stamp = (text: string, stamps: [number, SourceStamp][]) => stampPageSources(text, new Map(stamps), P);
const sourcesOf = (text: string) => parsePage({ slug: "x", isLanding: false, text, fileStem: "x" }).sources;

const FLOW = `---
# Written by the build agent.
title: "Queue"   # keep this spacing
topics: [queue]
sources:
  - {id: worker, type: file, path: src/queue/worker.ts, lines: 40-88}   # the claim loop
  - {id: pr, type: pr, pr: 12}
  -   { id: spec,type: file,  path: docs/spec.md }
---
# Queue

Body [@worker] [@pr] [@spec].
`;

const BLOCK = `---
title: Queue
sources:
  - id: worker   # first
    type: file
    path: src/queue/worker.ts
    lines: "40-88"
    note: |
      The claim loop,
      in two lines.

  # between entries
  - id: spec
    type: file
    path: docs/spec.md
topics:
  - queue
---
Body.
`;

describe("stampPageSources on flow entries", () => {
  test("appends the stamp inside the braces, before any comment; nothing else moves", () => {
    const out = stamp(FLOW, [
      [0, { fingerprint: "aaaaaaaaaaaaaaaa", verified_at: SHA }],
      [2, { fingerprint: "bbbbbbbbbbbbbbbb", verified_at: SHA }],
    ]);
    expect(out).toBe(
      FLOW.replace("lines: 40-88}", `lines: 40-88, fingerprint: aaaaaaaaaaaaaaaa, verified_at: ${SHA}}`).replace(
        "path: docs/spec.md }",
        `path: docs/spec.md, fingerprint: bbbbbbbbbbbbbbbb, verified_at: ${SHA} }`,
      ),
    );
    const sources = sourcesOf(out);
    expect(sources.map((s) => [s.source_id, s.fingerprint, s.verified_at, s.lines])).toEqual([
      ["worker", "aaaaaaaaaaaaaaaa", SHA, "40-88"],
      ["pr", null, null, null],
      ["spec", "bbbbbbbbbbbbbbbb", SHA, null],
    ]);
  });

  test("an existing stamp is replaced where it stands", () => {
    const stamped = FLOW.replace("lines: 40-88}", `fingerprint: "1111111111111111", lines: 40-88, verified_at: ${OTHER}}`);
    const out = stamp(stamped, [[0, { fingerprint: "cccccccccccccccc", verified_at: SHA }]]);
    expect(out).toBe(FLOW.replace("lines: 40-88}", `fingerprint: cccccccccccccccc, lines: 40-88, verified_at: ${SHA}}`));
  });

  test("a stamp equal to the one written returns the very same text", () => {
    const once = stamp(FLOW, [[0, { fingerprint: "aaaaaaaaaaaaaaaa", verified_at: SHA }]]);
    expect(stamp(once, [[0, { fingerprint: "aaaaaaaaaaaaaaaa", verified_at: SHA }]])).toBe(once);
    expect(stamp(FLOW, [])).toBe(FLOW);
    // Equal in value is equal: another quoting style is not rewritten.
    const quoted = FLOW.replace("lines: 40-88}", `lines: 40-88, fingerprint: 'aaaaaaaaaaaaaaaa', verified_at: "${SHA}"}`);
    expect(stamp(quoted, [[0, { fingerprint: "aaaaaaaaaaaaaaaa", verified_at: SHA }]])).toBe(quoted);
  });

  test("a fingerprint of digits only is quoted, so it stays a string", () => {
    const out = stamp(FLOW, [[0, { fingerprint: "1234567890123456", verified_at: SHA }]]);
    expect(out).toContain(`lines: 40-88, fingerprint: "1234567890123456", verified_at: ${SHA}}`);
    expect(sourcesOf(out)[0]!.fingerprint).toBe("1234567890123456");
    expect(stamp(out, [[0, { fingerprint: "1234567890123456", verified_at: SHA }]])).toBe(out);
  });

  test("entries inside a flow list are stamped too", () => {
    const text = "---\nsources: [{id: a, type: file, path: a.ts}, {id: b, type: file, path: b.ts}]\n---\n";
    const out = stamp(text, [[1, { fingerprint: "dddddddddddddddd", verified_at: null }]]);
    expect(out).toBe("---\nsources: [{id: a, type: file, path: a.ts}, {id: b, type: file, path: b.ts, fingerprint: dddddddddddddddd}]\n---\n");
  });
});

describe("stampPageSources on block entries", () => {
  test("adds the keys after the entry's last line, at its key column; comments and blank lines stay", () => {
    const out = stamp(BLOCK, [
      [0, { fingerprint: "aaaaaaaaaaaaaaaa", verified_at: SHA }],
      [1, { fingerprint: "bbbbbbbbbbbbbbbb", verified_at: SHA }],
    ]);
    expect(out).toBe(
      BLOCK.replace("      in two lines.\n", `      in two lines.\n    fingerprint: aaaaaaaaaaaaaaaa\n    verified_at: ${SHA}\n`).replace(
        "    path: docs/spec.md\n",
        `    path: docs/spec.md\n    fingerprint: bbbbbbbbbbbbbbbb\n    verified_at: ${SHA}\n`,
      ),
    );
    expect(sourcesOf(out)[0]).toMatchObject({ source_id: "worker", note: "The claim loop,\nin two lines.", fingerprint: "aaaaaaaaaaaaaaaa", verified_at: SHA });
  });

  test("an existing stamp is replaced in place, keeping its trailing comment", () => {
    const text = BLOCK.replace("    path: docs/spec.md\n", `    path: docs/spec.md\n    fingerprint: '2222222222222222' # product\n    verified_at: ${OTHER}\n`);
    const out = stamp(text, [[1, { fingerprint: "eeeeeeeeeeeeeeee", verified_at: SHA }]]);
    expect(out).toBe(text.replace("'2222222222222222' # product", "eeeeeeeeeeeeeeee # product").replace(OTHER, SHA));
  });

  test("a CRLF page keeps CRLF everywhere, the new lines included", () => {
    const crlf = BLOCK.replace(/\n/g, "\r\n");
    const out = stamp(crlf, [[1, { fingerprint: "ffffffffffffffff", verified_at: SHA }]]);
    expect(out).toBe(crlf.replace("    path: docs/spec.md\r\n", `    path: docs/spec.md\r\n    fingerprint: ffffffffffffffff\r\n    verified_at: ${SHA}\r\n`));
    expect(out.replace(/\r\n/g, "")).not.toContain("\n");
  });

  test("a page with a BOM and an entry that is the last line of the front matter", () => {
    const text = "\uFEFF---\ntitle: T\nsources:\n- id: a\n  type: file\n  path: a.ts\n---\nBody\n";
    const out = stamp(text, [[0, { fingerprint: "abababababababab", verified_at: null }]]);
    expect(out).toBe("\uFEFF---\ntitle: T\nsources:\n- id: a\n  type: file\n  path: a.ts\n  fingerprint: abababababababab\n---\nBody\n");
  });
});

describe("stampPageSources without git: verified_at is taken out", () => {
  test("from a flow entry, with the separator before it", () => {
    const text = FLOW.replace("lines: 40-88}", `lines: 40-88, fingerprint: aaaaaaaaaaaaaaaa, verified_at: ${SHA}}`);
    const out = stamp(text, [[0, { fingerprint: "9999999999999999".replace(/9/g, "c"), verified_at: null }]]);
    expect(out).toBe(FLOW.replace("lines: 40-88}", "lines: 40-88, fingerprint: cccccccccccccccc}"));
    const worker = sourcesOf(out)[0]!;
    expect([worker.fingerprint, worker.verified_at, worker.lines]).toEqual(["cccccccccccccccc", null, "40-88"]);
  });

  test("from a block entry, its whole line, even when it was the entry's last and the fingerprint is new", () => {
    const text = BLOCK.replace("    path: docs/spec.md\n", `    path: docs/spec.md\n    verified_at: ${OTHER}   # old\n`);
    const out = stamp(text, [[1, { fingerprint: "abababababababab", verified_at: null }]]);
    expect(out).toBe(BLOCK.replace("    path: docs/spec.md\n", "    path: docs/spec.md\n    fingerprint: abababababababab\n"));
  });
});

describe("stampPageSources through the document model", () => {
  const rest = (text: string) => [text.slice(0, text.indexOf("sources:")), text.slice(text.indexOf("\ntopics:"))];

  test("a layout the splice does not take (the key opens its entry) is rewritten in the sources pair only", () => {
    const text = BLOCK.replace("  - id: spec\n", `  - verified_at: ${OTHER}\n    id: spec\n`)
      .replace("title: Queue\n", "title:    Queue   # odd spacing the model would tidy\n")
      .replace("  - queue\n", "  -   queue\n");
    const out = stamp(text, [[1, { fingerprint: "abababababababab", verified_at: null }]]);
    expect(rest(out)).toEqual(rest(text));
    const spec = sourcesOf(out)[1]!;
    expect([spec.source_id, spec.fingerprint, spec.verified_at]).toEqual(["spec", "abababababababab", null]);
    expect(sourcesOf(out)[0]).toMatchObject({ source_id: "worker", note: "The claim loop,\nin two lines.", lines: "40-88" });
  });

  test("a value the splice cannot take (an empty key) is still stamped, and proved", () => {
    const text = "---\ntitle: T\nsources:\n  - id: a\n    type: file\n    path: a.ts\n    fingerprint:\n---\nBody\n";
    const out = stamp(text, [[0, { fingerprint: "abcdefabcdefabcd", verified_at: SHA }]]);
    expect(out).toBe(`---\ntitle: T\nsources:\n  - id: a\n    type: file\n    path: a.ts\n    fingerprint: abcdefabcdefabcd\n    verified_at: ${SHA}\n---\nBody\n`);
  });
});

describe("what is left alone", () => {
  test("pages without front matter or sources, and indexes naming no entry", () => {
    const s = { fingerprint: "aaaaaaaaaaaaaaaa", verified_at: SHA };
    for (const text of ["# No front matter\n", "---\ntitle: T\n---\n", "---\nsources: nope\n---\n"]) expect(stamp(text, [[0, s]])).toBe(text);
    expect(stamp(FLOW, [[7, s]])).toBe(FLOW);
    expect(stamp("---\nsources: [just-a-string]\n---\n", [[0, s]])).toBe("---\nsources: [just-a-string]\n---\n");
  });

  test("broken front matter is refused by name", () => {
    expect(() => stamp("---\nsources: [a\n---\n", [[0, { fingerprint: "a", verified_at: null }]])).toThrow(`invalid frontmatter: ${P}`);
  });
});

describe("fileSourceEntries", () => {
  test("lists the file sources that can be stamped, by their index in the list", () => {
    const text = `---
sources:
  - {id: worker, type: file, path: src/queue/worker.ts, lines: 40-88, fingerprint: aaaaaaaaaaaaaaaa, verified_at: ${SHA}}
  - {id: pr, type: pr, pr: 12}
  - {id: folder, type: file, path: src/queue/}
  - {id: one, type: file, path: a.ts, lines: 7}
  - {id: backwards, type: file, path: a.ts, lines: 9-3}
  - {type: file, path: no-id.ts}
  - {id: target, type: file, target: b.ts}
---
`;
    expect(fileSourceEntries(text, P)).toEqual([
      { index: 0, id: "worker", path: "src/queue/worker.ts", range: { start: 40, end: 88 }, fingerprint: "aaaaaaaaaaaaaaaa", verified_at: SHA },
      { index: 2, id: "folder", path: "src/queue/", range: null, fingerprint: null, verified_at: null },
      { index: 3, id: "one", path: "a.ts", range: { start: 7, end: 7 }, fingerprint: null, verified_at: null },
      { index: 6, id: "target", path: "b.ts", range: null, fingerprint: null, verified_at: null },
    ]);
  });
});

describe("citedFingerprint", () => {
  test("a range is the fingerprint of its normalized lines, a whole file its blob's", () => {
    const bytes = Buffer.from("one\r\ntwo  \nthree\n");
    expect(citedFingerprint(bytes, { start: 2, end: 3 })).toBe(rangeFingerprint(["one", "two", "three"], { start: 2, end: 3 }));
    expect(citedFingerprint(bytes, { start: 2, end: 3 })).toBe(rangeFingerprint(fileLines("one\ntwo\nthree"), { start: 2, end: 3 }));
    expect(citedFingerprint(bytes, null)).toBe(fileFingerprint(bytes));
    expect(citedFingerprint(bytes, { start: 3, end: 4 })).toBeNull();
  });
});
