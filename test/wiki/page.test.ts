import { describe, expect, test } from "vitest";
import { emptyBody, parsePage } from "../../src/wiki/page.js";
import type { ParsedPage } from "../../src/wiki/page.js";

function page(text: string, slug = "architecture/auth-flow", isLanding = false): ParsedPage {
  const stem = isLanding ? "README" : slug.slice(slug.lastIndexOf("/") + 1);
  return parsePage({ slug, isLanding, text, fileStem: stem });
}

const AUTH_FLOW = `---
title: Auth Flow
summary: How sign-in moves through the app.
topics: [auth, sessions]
sources:
  - id: session-code
    type: file
    path: src/auth/session.py
    note: Where sessions are minted.
---

# Auth Flow

Sign-in starts at the login form and ends with a session cookie [@session-code].
See [Session store](session-store).
`;

describe("parsePage: the spec's example page", () => {
  test("reads metadata, file refs, links and citations", () => {
    const parsed = page(AUTH_FLOW);
    expect(parsed.title).toBe("Auth Flow");
    expect(parsed.summary).toBe("How sign-in moves through the app.");
    expect(parsed.topics).toEqual(["auth", "sessions"]);
    expect(parsed.sources).toEqual([
      {
        source_id: "session-code",
        source_type: "file",
        target: "src/auth/session.py",
        title: null,
        retrieved_at: null,
        note: "Where sessions are minted.",
        lines: null,
        fingerprint: null,
        verified_at: null,
      },
    ]);
    expect(parsed.file_refs).toEqual([
      { path: "src/auth/session.py", original_path: "src/auth/session.py", is_dir: false },
    ]);
    expect(parsed.links).toEqual(["architecture/session-store"]);
    expect(parsed.citations).toEqual(["session-code"]);
    expect(parsed.problems).toEqual([]);
    expect(parsed.body.startsWith("# Auth Flow")).toBe(true);
    expect(parsed.body.endsWith("(session-store).")).toBe(true);
  });
});

describe("parsePage: title", () => {
  test("front matter title wins and is trimmed", () => {
    expect(page("---\ntitle: '  Given  '\n---\n# Heading\n").title).toBe("Given");
  });

  test("a blank or non-string title falls back to the first H1", () => {
    expect(page("---\ntitle: '   '\n---\n# From H1\n").title).toBe("From H1");
    expect(page("---\ntitle: 42\n---\n# From H1\n").title).toBe("From H1");
  });

  test("the first H1 anywhere in the body counts, not an H2 before it", () => {
    expect(page("intro\n\n## Two\n\n# One ##\n").title).toBe("One");
  });

  test("a setext H1 counts", () => {
    expect(page("Setext Title\n============\n\nText\n").title).toBe("Setext Title");
  });

  test("a # line inside a code fence is not a title", () => {
    expect(page("```sh\n# install\n```\n\n# Real\n").title).toBe("Real");
    expect(page("```sh\n# install\n```\n").title).toBe("auth-flow");
  });

  test("an ordinary page falls back to its file stem", () => {
    expect(parsePage({ slug: "notes/My Page", isLanding: false, text: "text", fileStem: "My Page" }).title).toBe(
      "My Page",
    );
  });

  test("a folder landing page falls back to its folder's derived title", () => {
    expect(page("Just text.", "architecture/run-queue", true).title).toBe("Run Queue");
  });

  test("the root README falls back to README", () => {
    expect(page("Just text.", "README", true).title).toBe("README");
  });
});

describe("parsePage: summary and topics", () => {
  test("summary is trimmed; blank or non-string summaries are absent", () => {
    expect(page("---\nsummary: '  One line. '\n---\n").summary).toBe("One line.");
    expect(page("---\nsummary: ''\n---\n").summary).toBeNull();
    expect(page("---\nsummary: [a]\n---\n").summary).toBeNull();
  });

  test("topics are kebab-cased, deduplicated and keep their order", () => {
    const text = "---\ntopics:\n  - Auth Flow\n  - HTTP_404\n  - auth-flow\n  - '  '\n  - 7\n  - Über\n  - 日本\n  - '!!!'\n---\n";
    expect(page(text).topics).toEqual(["auth-flow", "http-404", "uber", "日本"]);
  });

  test("a topics value that is not a list means no topics", () => {
    expect(page("---\ntopics: auth\n---\n").topics).toEqual([]);
  });

  test("unknown and legacy keys are ignored", () => {
    const parsed = page("---\nfiles: [src/a.ts]\nkind: concept\npage_id: 3\n---\nBody\n");
    expect(parsed.file_refs).toEqual([]);
    expect(parsed.problems).toEqual([]);
  });
});

describe("parsePage: broken front matter", () => {
  test("a YAML error is reported with line and column, and the body is still only the body", () => {
    const text = "---\ntitle: Fine\nsummary: [unclosed\n---\n# Heading\n\nBody text.\n";
    const parsed = page(text);
    expect(parsed.title).toBe("Heading");
    expect(parsed.summary).toBeNull();
    expect(parsed.body).toBe("# Heading\n\nBody text.");
    expect(parsed.problems).toHaveLength(1);
    const [problem] = parsed.problems;
    expect(problem?.category).toBe("frontmatter_invalid");
    expect(problem?.message).toMatch(/^front matter is not valid YAML \(line \d+, column \d+\): \S/);
    expect(problem?.line).toBeGreaterThanOrEqual(2);
    expect(problem?.line).toBeLessThanOrEqual(4);
  });

  test("a YAML error's line is counted in the file", () => {
    const parsed = page("---\na: 1\nb: 2\nc: d: e\n---\nx");
    expect(parsed.problems[0]?.message).toMatch(/\(line 4, column \d+\)/);
    expect(parsed.problems[0]?.line).toBe(4);
  });

  test("duplicate keys are a YAML error", () => {
    const parsed = page("---\ntitle: A\ntitle: B\n---\nx");
    expect(parsed.problems[0]?.category).toBe("frontmatter_invalid");
    expect(parsed.title).toBe("auth-flow");
  });

  test("non-mapping YAML is reported and carries no metadata", () => {
    for (const yaml of ["- a\n- b\n", "just text\n", "42\n"]) {
      const parsed = page(`---\n${yaml}---\n# T\n`);
      expect(parsed.problems).toEqual([{ category: "frontmatter_invalid", message: "front matter must be a YAML mapping", line: 2 }]);
      expect(parsed.title).toBe("T");
      expect(parsed.body).toBe("# T");
    }
  });

  test("an empty or comment-only block is simply no metadata", () => {
    expect(page("---\n---\n# T\n").problems).toEqual([]);
    expect(page("---\n# just a note\n---\n# T\n").problems).toEqual([]);
  });

  test("a leading BOM does not hide the front matter", () => {
    const parsed = page("\uFEFF---\ntitle: With BOM\ntopics: [a]\n---\nBody\n");
    expect(parsed.title).toBe("With BOM");
    expect(parsed.topics).toEqual(["a"]);
    expect(parsed.body).toBe("Body");
  });

  test("CRLF files parse like LF files", () => {
    const parsed = page("---\r\ntitle: T\r\ntopics: [a]\r\n---\r\n# H\r\n\r\nText [@x].\r\n");
    expect(parsed.title).toBe("T");
    expect(parsed.topics).toEqual(["a"]);
    expect(parsed.citations).toEqual(["x"]);
    expect(parsed.body).toBe("# H\r\n\r\nText [@x].");
  });

  test("without a closing delimiter the whole file is body", () => {
    const parsed = page("---\ntitle: Nope\n\n# Heading\n");
    expect(parsed.title).toBe("Heading");
    expect(parsed.body).toBe("---\ntitle: Nope\n\n# Heading");
  });
});

function sourcesOf(yaml: string): ParsedPage {
  return page(`---\nsources:\n${yaml}---\nBody\n`);
}

describe("parsePage: sources", () => {
  test("each type reads its own target fields in order, then target", () => {
    const parsed = sourcesOf(`  - {id: f, type: file, path: src/a.ts, target: ignored}
  - {id: w, type: web, target: https://t.example, url: https://u.example}
  - {id: c1, type: commit, sha: abc, ref: main}
  - {id: c2, type: commit, ref: main}
  - {id: p, type: pr, number: 12, url: https://x/pull/12}
  - {id: i, type: issue, url: https://x/issues/3}
  - {id: v, type: conversation, session_id: s-1, run_id: r-1}
  - {id: k, type: wiki, slug: other/page}
  - {id: m, type: manual, title: Evidence}
  - {id: g, type: web, target: https://generic.example}
`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.sources.map((s) => [s.source_id, s.source_type, s.target])).toEqual([
      ["f", "file", "src/a.ts"],
      ["w", "web", "https://u.example"],
      ["c1", "commit", "abc"],
      ["c2", "commit", "main"],
      ["p", "pr", "12"],
      ["i", "issue", "https://x/issues/3"],
      ["v", "conversation", "r-1"],
      ["k", "wiki", "other/page"],
      ["m", "manual", "Evidence"],
      ["g", "web", "https://generic.example"],
    ]);
  });

  test("blank target fields are skipped and numbers become text", () => {
    const parsed = sourcesOf(`  - {id: a, type: pr, pr: '', number: 4.5}\n  - {id: b, type: file, path: '  src/x.ts  '}\n`);
    expect(parsed.sources.map((s) => s.target)).toEqual(["4.5", "src/x.ts"]);
  });

  test("optional fields are read and retrieval dates become ISO text", () => {
    const parsed = sourcesOf(`  - id: a
    type: web
    url: https://example.com
    title: ' Example '
    note: Checked.
    retrieved_at: 2026-07-01
  - {id: b, type: web, url: https://b.example, retrieved_at: 2026-07-01 10:00:00}
  - {id: c, type: web, url: https://c.example, retrieved_at: 2026-07-01T10:00:00Z}
  - {id: d, type: web, url: https://d.example, retrieved_at: 20260701}
`);
    expect(parsed.sources[0]).toEqual({
      source_id: "a",
      source_type: "web",
      target: "https://example.com",
      title: "Example",
      retrieved_at: "2026-07-01",
      note: "Checked.",
      lines: null,
      fingerprint: null,
      verified_at: null,
    });
    expect(parsed.sources.map((s) => s.retrieved_at)).toEqual([
      "2026-07-01",
      "2026-07-01T10:00:00",
      "2026-07-01T10:00:00Z",
      "20260701",
    ]);
  });

  test("invalid entries are dropped and reported with their 1-based number and line", () => {
    const parsed = sourcesOf(`  - {id: ok, type: file, path: a.ts}
  - just a string
  - {id: 12, type: file, path: b.ts}
  - {type: file, path: c.ts}
  - {id: d, type: directory, path: src/}
  - {id: e, path: e.ts}
  - {id: '  ', type: web, url: https://x}
`);
    expect(parsed.sources.map((s) => s.source_id)).toEqual(["ok"]);
    expect(parsed.problems).toEqual(
      [2, 3, 4, 5, 6, 7].map((n) => ({
        category: "source_invalid",
        message: `source #${n} must include id, supported type, and target`,
        line: n + 2,
      })),
    );
  });

  test("an entry without a target is kept with a null target and reported", () => {
    const parsed = sourcesOf(`  - id: lonely\n    type: commit\n    note: forgot the sha\n`);
    expect(parsed.sources).toHaveLength(1);
    expect(parsed.sources[0]?.target).toBeNull();
    expect(parsed.problems).toEqual([
      { category: "source_invalid", message: "source lonely [commit] is missing a target", line: 3 },
    ]);
  });

  test("sources that are not a list are reported; absent or null sources are fine", () => {
    expect(page("---\nsources: src/a.ts\n---\n").problems).toEqual([
      { category: "source_invalid", message: "sources must be a list", line: 2 },
    ]);
    expect(page("---\nsources:\n---\n").problems).toEqual([]);
    expect(page("---\nsources: []\n---\n").problems).toEqual([]);
    expect(page("---\ntitle: x\n---\n").problems).toEqual([]);
  });

  test("duplicate ids are kept for health to report", () => {
    const parsed = sourcesOf(`  - {id: a, type: file, path: x.ts}\n  - {id: a, type: file, path: y.ts}\n`);
    expect(parsed.sources.map((s) => s.target)).toEqual(["x.ts", "y.ts"]);
    expect(parsed.file_refs.map((r) => r.path)).toEqual(["x.ts", "y.ts"]);
  });

  test("directory sources become directory references", () => {
    const parsed = sourcesOf(`  - {id: a, type: file, path: ./Src/Auth/}\n`);
    expect(parsed.file_refs).toEqual([{ path: "src/auth/", original_path: "Src/Auth/", is_dir: true }]);
  });
});

describe("parsePage: a file source's cited lines and stamp", () => {
  const SHA = "0123456789abcdef0123456789abcdef01234567";
  const evidenceOf = (sources: string) => {
    const parsed = page(`---\nsources:\n${sources}---\n# T\n`);
    return { sources: parsed.sources.map((s) => [s.source_id, s.lines, s.fingerprint, s.verified_at]), problems: parsed.problems };
  };

  test("lines read as a range or a single line, and the stamp as written", () => {
    const read = evidenceOf(
      [
        `  - {id: a, type: file, path: a.ts, lines: 40-88, fingerprint: aaaaaaaaaaaaaaaa, verified_at: ${SHA}}`,
        "  - {id: b, type: file, path: b.ts, lines: 7}",
        '  - {id: c, type: file, path: c.ts, lines: " 3 - 5 "}',
        "  - {id: d, type: file, path: d.ts}",
        "  - {id: e, type: web, url: 'https://x', lines: 1-2, fingerprint: bbbbbbbbbbbbbbbb}",
        "",
      ].join("\n"),
    );
    expect(read.sources).toEqual([
      ["a", "40-88", "aaaaaaaaaaaaaaaa", SHA],
      ["b", "7", null, null],
      ["c", "3-5", null, null],
      ["d", null, null, null],
      ["e", null, null, null],
    ]);
    expect(read.problems).toEqual([]);
  });

  test("a range that cannot be read, or one on a folder, is a source_invalid problem with its line, and is ignored", () => {
    const read = evidenceOf(
      [
        "  - {id: back, type: file, path: a.ts, lines: 9-3}",
        "  - {id: zero, type: file, path: a.ts, lines: 0}",
        "  - {id: words, type: file, path: a.ts, lines: top}",
        "  - {id: dir, type: file, path: src/queue/, lines: 1-4}",
        "",
      ].join("\n"),
    );
    expect(read.sources).toEqual([
      ["back", null, null, null],
      ["zero", null, null, null],
      ["words", null, null, null],
      ["dir", null, null, null],
    ]);
    expect(read.problems).toEqual([
      { category: "source_invalid", message: "source back: lines 9-3 run backwards", line: 3 },
      { category: "source_invalid", message: "source zero: lines start at 1, not 0", line: 4 },
      { category: "source_invalid", message: 'source words: lines must be a line number or a range like 40-88, not "top"', line: 5 },
      { category: "source_invalid", message: "source dir: lines 1-4 cite a folder (src/queue/); cite a file, or drop lines", line: 6 },
    ]);
  });
});

describe("parsePage: links", () => {
  test("inline and reference-style links count; code and bare URLs do not", () => {
    const text = [
      "[a](alpha) [b][ref] [c](https://example.com) <https://example.com/x> https://bare.example/y",
      "",
      "`[d](delta)` and [e](echo.md) and [f](../top/README.md) and ![img](image-page)",
      "",
      "```",
      "[g](golf)",
      "```",
      "",
      "    [h](hotel)",
      "",
      "[ref]: bravo",
    ].join("\n");
    expect(page(text, "guides/setup").links).toEqual(["guides/alpha", "guides/bravo", "guides/echo", "top"]);
  });

  test("links are deduplicated and sorted, self-links included", () => {
    expect(page("[z](zeta) [a](alpha) [z2](zeta.md#x) [me](setup)", "guides/setup").links).toEqual([
      "guides/alpha",
      "guides/setup",
      "guides/zeta",
    ]);
  });

  test("raw HTML links are text, not links", () => {
    expect(page('<a href="alpha">a</a>', "guides/setup").links).toEqual([]);
  });

  test("links with spaces written in angle brackets are not page links", () => {
    expect(page("[x](<my page>)", "guides/setup").links).toEqual([]);
  });

  test("non-ASCII link targets are decoded", () => {
    expect(page("[x](日本)", "README", true).links).toEqual(["日本"]);
  });
});

describe("parsePage: citations", () => {
  test("distinct ids in first-appearance order", () => {
    expect(page("B [@beta] then A [@alpha] and B again [@beta].").citations).toEqual(["beta", "alpha"]);
  });

  test("ids follow the strict grammar", () => {
    expect(page("[@a_b.c:d-e] [@9lives] [@-bad] [@.bad] [@] [@ spaced] [@x y]").citations).toEqual([
      "a_b.c:d-e",
      "9lives",
    ]);
  });

  test("grouped citations with ; or , are recognized", () => {
    expect(page("Claim [@a; @b]. Other [@c, @d,@e]. Spaced [@f ;  @g ].").citations).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
      "f",
      "g",
    ]);
  });

  test("a malformed group is not a citation", () => {
    expect(page("[@a; b] [@a @b] [@a;]").citations).toEqual([]);
  });

  test("code spans, fenced and indented code are not prose", () => {
    const text = [
      "Write citations like `[@source-id]` next to the claim.",
      "",
      "```md",
      "Claim [@fenced].",
      "```",
      "",
      "    Claim [@indented].",
      "",
      "Real claim [@real].",
    ].join("\n");
    expect(page(text).citations).toEqual(["real"]);
  });

  test("an escaped bracket is literal text, not a citation", () => {
    expect(page("Literal \\[@not-a-cite] and real [@cite].").citations).toEqual(["cite"]);
  });

  test("citations in headings, lists, quotes, tables and emphasis count", () => {
    const text = [
      "# Title [@h]",
      "",
      "- item [@l]",
      "",
      "> quoted [@q]",
      "",
      "| a | b |",
      "|---|---|",
      "| [@t] | x |",
      "",
      "*stress [@e]* and **[@s]**",
      "",
      "[link text [@k]](target)",
    ].join("\n");
    expect(page(text).citations).toEqual(["h", "l", "q", "t", "e", "s", "k"]);
  });

  test("a citation split over a soft line break still counts", () => {
    expect(page("Claim [@a;\n@b].").citations).toEqual(["a", "b"]);
  });

  test("raw HTML is text, so a citation inside it counts like any other text", () => {
    expect(page("<span>[@x]</span>").citations).toEqual(["x"]);
  });
});

describe("emptyBody", () => {
  test("headings and whitespace only are empty", () => {
    expect(emptyBody("")).toBe(true);
    expect(emptyBody("# Title\n\n## Section\n   \n")).toBe(true);
    expect(emptyBody("#\n   ### Indented heading\n")).toBe(true);
  });

  test("anything else is content", () => {
    expect(emptyBody("# Title\n\nA sentence.")).toBe(false);
    expect(emptyBody("#hashtag")).toBe(false);
    expect(emptyBody("    # four spaces is code")).toBe(false);
    expect(emptyBody("####### seven hashes")).toBe(false);
  });
});
