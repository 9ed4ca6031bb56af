import { afterEach, describe, expect, test } from "vitest";
import { isMap, isNode, isSeq, LineCounter, parseDocument } from "yaml";
import { readSimpleYaml } from "../../src/wiki/simple-yaml.js";
import { parsePage } from "../../src/wiki/page.js";
import { FAST_PARSE_ENV } from "../../src/wiki/fast-parse.js";
import { seededRandom } from "../support/random.js";

/**
 * The simple front-matter reader (src/wiki/simple-yaml.ts) must give exactly what the yaml
 * library gives, values and the lines problems name, or step aside (null).
 */

type LibraryView = { value: unknown; valueLine: Map<string, number>; itemLines: Map<string, number[]> } | null;

/** What the library makes of a text the simple reader accepted: the plain value and the lines of each key's value and list items. */
function library(yaml: string): LibraryView {
  const counter = new LineCounter();
  const doc = parseDocument(yaml, { lineCounter: counter, prettyErrors: false, logLevel: "error" });
  if (doc.errors.length > 0 || doc.warnings.length > 0 || !isMap(doc.contents)) return null;
  const lineAt = (offset: number) => Math.max(1, counter.linePos(offset).line);
  const valueLine = new Map<string, number>();
  const itemLines = new Map<string, number[]>();
  for (const pair of doc.contents.items) {
    const key = String((pair.key as { value: unknown }).value);
    const node = pair.value;
    if (isNode(node) && node.range) valueLine.set(key, lineAt(node.range[0]));
    if (isSeq(node)) itemLines.set(key, node.items.map((item) => (isNode(item) && item.range ? lineAt(item.range[0]) : -1)));
  }
  return { value: doc.toJS({ maxAliasCount: 100 }), valueLine, itemLines };
}

function expectSame(yaml: string): boolean {
  const simple = readSimpleYaml(yaml);
  if (simple === null) return false;
  const lib = library(yaml);
  expect(lib, `the library rejects what the simple reader took:\n${yaml}`).not.toBeNull();
  // JSON also pins the key order; toStrictEqual the types (numbers stay numbers).
  expect(JSON.stringify(simple.value), yaml).toBe(JSON.stringify(lib!.value));
  expect(simple.value, yaml).toStrictEqual(lib!.value);
  for (const [key, line] of simple.valueLine) expect(line, `line of ${key}:\n${yaml}`).toBe(lib!.valueLine.get(key));
  for (const [key, lines] of simple.itemLines) expect(lines, `item lines of ${key}:\n${yaml}`).toEqual(lib!.itemLines.get(key));
  return true;
}

/** Tricky texts: `true` marks those the simple reader must take itself (the rest it may leave to the library). */
const TRICKY: [string, boolean][] = [
  ["title: Plain\nsummary: Words here.\n", true],
  ['title: "a: b"\n', true],
  ["title: 'it''s'\n", true],
  ["title: '  spaced  '\nsummary: \"  \"\n", true],
  ["url: https://example.org/a?b=c#d\n", true],
  ["title: C# guide\n", true],
  ["title: x#y\n", true],
  ["title: words # a comment\n", true],
  ['title: "quoted" # a comment\n', true],
  ["title: 'quoted' #c\n", true],
  ["title: a [b] c, d {e}\n", true],
  ["title: trailing spaces   \n", true],
  ["# leading comment\ntitle: A\n\n# middle comment\nsummary: B\n", true],
  ["title: A\r\nsummary: B\r\ntopics: [a, b]\r\n", true],
  ["summary:\ntitle: A\n", true],
  ["summary: # only a comment\ntitle: A\n", true],
  ["topics: []\n", true],
  ["topics: [a b, c-d, e.f]\n", true],
  ["topics: [a,b]\n", true],
  ["topics:\n  - a\n  - b\n", true],
  ["topics:\n- a\n- b\ntitle: T\n", true],
  ["topics:\n  - 'quoted'\n  - \"double\"\n", true],
  ["sources:\n  - id: a\n    type: file\n    path: src/a.ts\n    lines: 40-88\n  - id: b\n    type: web\n    url: https://x.y\n", true],
  ["sources:\n- id: a\n  type: file\n  path: src/a.ts\ntitle: after\n", true],
  ["sources:\n  -   id: a\n      type: file\n  - id: b\n    type: pr\n    pr: 42\n", true],
  ["sources:\n  - id: a\n    note:\n    type: file\n", true],
  ["sources:\n  - plain\n  - id: a\n    type: file\n", true],
  ["sources:\n\n  - id: a\n\n    type: file\n", true],
  ["sources:\n  # a comment\n  - id: a\n    # another\n    type: file\n", true],
  ["sources: not a list\n", true],
  ["sources: [a, b]\n", true],
  ["count: 42\nbig: 123456789012345\n", true],
  ["date: 2024-01-01\nversion: 1.2.3\nrange: 40-88\n", true],
  ["title: .hidden\nother: +x\n", true],
  ["title: A\nsummary: B\ntopics: [t]\nextra_key: z\nkebab-key: y\n_under: u\n", true],
  // The library's own.
  ["title: -x\n", false],
  ["title: :x\n", false],
  ["title: ?x\n", false],
  ["summary: ~\n", false],
  ["summary: null\n", false],
  ["flag: true\n", false],
  ["flag: False\n", false],
  ["n: 1.5\n", false],
  ["n: 0x1F\n", false],
  ["n: 0o17\n", false],
  ["n: -3\n", false],
  ["n: +3\n", false],
  ["n: 1e3\n", false],
  ["n: .inf\n", false],
  ["n: .NaN\n", false],
  ["n: 1234567890123456789\n", false],
  ["n: 007\n", false],
  ["summary: a long\n  continued line\n", false],
  ["summary: |\n  block\n", false],
  ["summary: >\n  folded\n", false],
  ['summary: "multi\n  line"\n', false],
  ["summary: 'multi\n  line'\n", false],
  ['title: "escaped \\" quote"\n', false],
  ['title: "tab\\t"\n', false],
  ['title: "unterminated\n', false],
  ['title: "a" trailing\n', false],
  ["base: &a x\ncopy: *a\n", false],
  ["title: !!str 42\n", false],
  ["meta:\n  nested: 1\n", false],
  ["sources:\n  - id: a\n    tags:\n      - x\n", false],
  ["sources:\n  - id: a\n    tags:\n    - x\n", false],
  ["sources:\n  - id: a\n    meta:\n      deep: 1\n", false],
  ["sources:\n  - - nested\n", false],
  ["sources:\n  -\n    id: a\n", false],
  ["sources:\n  - [a, b]\n", false],
  ["sources:\n  - {id: a}\n", false],
  ["m: {a: 1}\n", false],
  ['topics: ["a", b]\n', false],
  ["topics: [a, b, ]\n", false],
  ["topics: [a: b]\n", false],
  ["topics: [a\n  , b]\n", false],
  ["topics: [a] # comment\n", false],
  ["title: A\ntitle: B\n", false],
  ["sources:\n  - id: a\n    id: b\n", false],
  ["title:\tA\n", false],
  ["\ttitle: A\n", false],
  ["title:foo\n", false],
  ["title : foo\n", false],
  ["? complex\n: value\n", false],
  ["title: A\n...\n", false],
  ["%YAML 1.2\ntitle: A\n", false],
  ["title: a\u00a0b\n", false],
  ["__proto__: x\n", false],
  ["true: x\n", false],
  ["null: x\n", false],
  ["summary: a: b\n", false],
  ["summary: ends with colon:\n", false],
  ["- a\n- b\n", false],
  ["just a scalar\n", false],
  ["", false],
  ["# only comments\n", false],
  ["  title: indented\n", false],
  ["title: A\n  summary: B\n", false],
  ["title: A\n- b\n", false],
];

describe("the simple front-matter reader", () => {
  test.each(TRICKY.map(([text, simple]) => [JSON.stringify(text), text, simple] as const))("%s", (_, text, mustTake) => {
    const took = expectSame(text);
    if (mustTake) expect(took, "the simple reader left a simple text to the library").toBe(true);
  });

  test("gives the library's values and lines on generated front matter", () => {
    const random = seededRandom(19);
    let taken = 0;
    const CASES = 3000;
    for (let i = 0; i < CASES; i++) if (expectSame(generated(random))) taken++;
    // Most generated texts are simple; a reader that always stepped aside would pass the rest.
    expect(taken).toBeGreaterThan(CASES / 3);
    expect(taken).toBeLessThan(CASES);
  });
});

describe("parsePage with and without the simple reader", () => {
  afterEach(() => {
    delete process.env[FAST_PARSE_ENV];
  });

  const parseBoth = (text: string) => {
    const input = { slug: "guides/page", isLanding: false, text, fileStem: "page" };
    process.env[FAST_PARSE_ENV] = "0";
    const slow = parsePage(input);
    delete process.env[FAST_PARSE_ENV];
    return { fast: parsePage(input), slow };
  };

  test("gives the same page, problems included, on tricky and generated front matter", () => {
    const random = seededRandom(7);
    const texts = [...TRICKY.map(([text]) => text), ...Array.from({ length: 1500 }, () => generated(random))];
    let problems = 0;
    for (const yaml of texts) {
      const { fast, slow } = parseBoth(`---\n${yaml}---\n\n# Heading\n\nBody [@a].\n`);
      expect(fast, yaml).toStrictEqual(slow);
      problems += slow.problems.length;
    }
    // The comparison covers pages with problems (bad sources, bad YAML), not only clean ones.
    expect(problems).toBeGreaterThan(100);
  });
});

const WORDS = [
  "queue", "Auth Flow", "a: b", "it's", "C#", "x #y", "https://x.y/z", "40-88", "2024-01-01", "42", "1.5", "true",
  "null", "~", "-dash", "[brackets]", "{braces}", "a, b", "trailing ", " leading", "quote\"inside", "back\\slash",
  "&anchor", "*alias", "!tag", "|pipe", ">fold", "%pct", "@at", "`tick`", "ünïcödé", "", "0x1F", ".inf", "tab\there",
];
const KEYS = ["title", "summary", "topics", "sources", "note", "extra", "kebab-key"];
const SOURCE_KEYS = ["id", "type", "path", "url", "title", "note", "lines", "pr", "fingerprint", "verified_at"];
const TYPES = ["file", "web", "pr", "commit", "issue", "conversation", "wiki", "manual", "bogus"];

function generated(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const scalar = (): string => {
    const word = random() < 0.6 ? pick(["src/a.ts", "Plain words", "a-b", "x", "file", "web"]) : pick(WORDS);
    const form = random();
    if (form < 0.5) return word;
    if (form < 0.8) return `"${word}"`;
    return `'${word.replace(/'/g, "''")}'`;
  };
  const comment = () => (random() < 0.1 ? " # note" : "");
  const lines: string[] = [];
  const keys = [...KEYS].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * KEYS.length));
  if (random() < 0.03) keys.push(keys[0]!);
  for (const key of keys) {
    if (random() < 0.1) lines.push(pick(["", "# comment", "  # indented comment"]));
    if (key === "topics") {
      const items = Array.from({ length: Math.floor(random() * 4) }, scalar);
      if (random() < 0.5) lines.push(`topics: [${items.join(", ")}]${comment()}`);
      else lines.push("topics:", ...items.map((item) => `${random() < 0.2 ? "" : "  "}- ${item}`));
    } else if (key === "sources") {
      lines.push(random() < 0.1 ? `sources: ${scalar()}` : "sources:");
      const dash = random() < 0.2 ? "" : "  ";
      for (let s = Math.floor(random() * 4); s > 0; s--) {
        const fields = [...SOURCE_KEYS].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 5));
        if (random() < 0.7) fields.unshift("id", "type");
        const unique = random() < 0.05 ? fields : [...new Set(fields)];
        unique.forEach((field, f) => {
          const value = field === "type" ? pick(TYPES) : field === "pr" || field === "lines" ? pick(["42", "40-88", "7"]) : scalar();
          const empty = random() < 0.05;
          lines.push(`${f === 0 ? `${dash}- ` : `${dash}  `}${field}:${empty ? "" : ` ${value}`}${comment()}`);
        });
        if (random() < 0.05) lines.push(`${dash}    nested: deeper`);
      }
    } else {
      lines.push(`${key}: ${scalar()}${comment()}`);
      if (random() < 0.03) lines.push("  continued plain line");
    }
  }
  const text = `${lines.join("\n")}\n`;
  return random() < 0.1 ? text.replace(/\n/g, "\r\n") : text;
}
