import { describe, expect, test } from "vitest";
import { ProductError } from "../../src/core/errors.js";
import { parsePage } from "../../src/wiki/page.js";
import { readTopicsForRewrite, rewritePageTopics } from "../../src/wiki/rewrite.js";

const P = "almanac/x.md";
const rewrite = (text: string, topics: string[]) => rewritePageTopics(text, topics, P);
const topicsOf = (text: string) => parsePage({ slug: "x", isLanding: false, text, fileStem: "x" }).topics;

function errorOf(run: () => unknown): ProductError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProductError) return error;
    throw error;
  }
  throw new Error("expected a ProductError");
}

const PAGE = `---
# Written by the build agent.
title: "Auth Flow"   # keep this spacing
summary: >
  How sign-in
  moves.
topics:
  - auth   # primary
  # a comment between items
  - Sessions
sources: []
---
# Auth Flow

Body with trailing spaces   
---
not front matter
`;

describe("readTopicsForRewrite", () => {
  test("returns the topics as the page means them", () => {
    expect(readTopicsForRewrite(PAGE, P)).toEqual(["auth", "sessions"]);
    expect(readTopicsForRewrite("no front matter", P)).toEqual([]);
    expect(readTopicsForRewrite("---\ntopics: nope\n---\n", P)).toEqual([]);
  });

  test("refuses broken front matter", () => {
    const error = errorOf(() => readTopicsForRewrite("---\ntopics: [a\n---\n", P));
    expect([error.code, error.message]).toEqual(["validation_failed", `invalid frontmatter: ${P}`]);
    expect(errorOf(() => readTopicsForRewrite("---\n- a\n---\n", P)).message).toBe(
      `frontmatter must be a YAML mapping: ${P}`,
    );
  });
});

describe("rewritePageTopics on a block list", () => {
  test("appending a topic touches nothing but the list", () => {
    const out = rewrite(PAGE, ["auth", "sessions", "security"]);
    expect(out).toBe(PAGE.replace("  - Sessions\n", "  - Sessions\n  - security\n"));
  });

  test("removing a topic deletes its line and keeps comments around it", () => {
    const out = rewrite(PAGE, ["sessions"]);
    expect(out).toBe(PAGE.replace("  - auth   # primary\n", ""));
    expect(topicsOf(out)).toEqual(["sessions"]);
  });

  test("kept items keep their spelling and position; new ones go last", () => {
    const out = rewrite(PAGE, ["security", "sessions", "auth"]);
    expect(out).toContain("  - auth   # primary\n  # a comment between items\n  - Sessions\n  - security\n");
  });

  test("removing every topic leaves an empty flow list", () => {
    const out = rewrite(PAGE, []);
    expect(out).toContain("topics: []\nsources: []\n");
    expect(topicsOf(out)).toEqual([]);
    expect(out.endsWith("# Auth Flow\n\nBody with trailing spaces   \n---\nnot front matter\n")).toBe(true);
  });

  test("duplicates and non-string items are dropped when the list changes", () => {
    const text = "---\ntopics:\n  - a\n  - A\n  - 5\n  - b\n---\nbody";
    expect(rewrite(text, ["a"])).toBe("---\ntopics:\n  - a\n---\nbody");
  });

  test("a list written flush with its key gets flush new items", () => {
    expect(rewrite("---\ntopics:\n- a\ntitle: T\n---\n", ["a", "b"])).toBe("---\ntopics:\n- a\n- b\ntitle: T\n---\n");
  });

  test("topics that YAML would read as other types are quoted", () => {
    const out = rewrite("---\ntopics:\n  - a\n---\n", ["a", "true", "123", "null"]);
    expect(out).toBe('---\ntopics:\n  - a\n  - "true"\n  - "123"\n  - "null"\n---\n');
    expect(topicsOf(out)).toEqual(["a", "true", "123", "null"]);
  });
});

describe("rewritePageTopics on other shapes", () => {
  test("a flow list stays a flow list and keeps item quoting", () => {
    const text = "---\ntitle: T\ntopics: ['Auth', sessions]  # tags\n---\nbody\n";
    expect(rewrite(text, ["auth", "security"])).toBe("---\ntitle: T\ntopics: ['Auth', security]  # tags\n---\nbody\n");
    expect(rewrite(text, [])).toBe("---\ntitle: T\ntopics: []  # tags\n---\nbody\n");
  });

  test("a missing key is added at the end of the mapping", () => {
    const text = "---\ntitle: T\n# trailing note\n---\nbody\n";
    expect(rewrite(text, ["a", "b"])).toBe("---\ntitle: T\n# trailing note\ntopics:\n  - a\n  - b\n---\nbody\n");
  });

  test("a non-list value is replaced by a list", () => {
    expect(rewrite("---\ntopics: auth\ntitle: T\n---\n", ["auth"])).toBe("---\ntopics:\n  - auth\ntitle: T\n---\n");
    expect(rewrite("---\ntopics: {a: 1}\ntitle: T\n---\n", ["x"])).toBe("---\ntopics:\n  - x\ntitle: T\n---\n");
  });

  test("an empty topics value becomes a list", () => {
    expect(rewrite("---\ntopics:\ntitle: T\n---\n", ["a"])).toBe("---\ntopics:\n  - a\ntitle: T\n---\n");
    expect(rewrite("---\ntitle: T\ntopics:\n---\n", ["a"])).toBe("---\ntitle: T\ntopics:\n  - a\n---\n");
  });

  test("an empty front matter block gains the key", () => {
    expect(rewrite("---\n---\nbody", ["a"])).toBe("---\ntopics:\n  - a\n---\nbody");
  });

  test("a flow mapping is rewritten through the document model and stays correct", () => {
    const out = rewrite("---\n{title: T, topics: [a]}\n---\nbody", ["a", "b"]);
    expect(topicsOf(out)).toEqual(["a", "b"]);
    expect(parsePage({ slug: "x", isLanding: false, text: out, fileStem: "x" }).title).toBe("T");
    expect(out.endsWith("\n---\nbody")).toBe(true);
  });

  test("a multi-line list item is handled through the fallback", () => {
    const text = "---\ntopics:\n  -\n    a\n  - b\n---\nbody";
    const out = rewrite(text, ["b", "c"]);
    expect(topicsOf(out)).toEqual(["b", "c"]);
    expect(out.endsWith("---\nbody")).toBe(true);
  });
});

describe("rewritePageTopics without front matter", () => {
  test("a new block is prepended and the original text kept as body", () => {
    expect(rewrite("# Title\n\nBody\n", ["concepts"])).toBe("---\ntopics:\n  - concepts\n---\n# Title\n\nBody\n");
  });

  test("a BOM stays in front of the new block", () => {
    expect(rewrite("\uFEFF# Title\n", ["a"])).toBe("\uFEFF---\ntopics:\n  - a\n---\n# Title\n");
  });

  test("a CRLF file gets a CRLF block", () => {
    expect(rewrite("# Title\r\nBody\r\n", ["a"])).toBe("---\r\ntopics:\r\n  - a\r\n---\r\n# Title\r\nBody\r\n");
  });

  test("an unclosed opener is body, so a block is prepended before it", () => {
    const text = "---\ntitle: never closed\n";
    const out = rewrite(text, ["a"]);
    expect(out).toBe(`---\ntopics:\n  - a\n---\n${text}`);
  });
});

describe("rewritePageTopics line endings and no-ops", () => {
  test("CRLF front matter stays CRLF and the body keeps its own bytes", () => {
    const text = "---\r\ntitle: T\r\ntopics:\r\n  - a\r\n---\r\nbody line\nmixed\r\n";
    const out = rewrite(text, ["a", "b"]);
    expect(out).toBe("---\r\ntitle: T\r\ntopics:\r\n  - a\r\n  - b\r\n---\r\nbody line\nmixed\r\n");
    expect(rewrite(text, [])).toBe("---\r\ntitle: T\r\ntopics: []\r\n---\r\nbody line\nmixed\r\n");
    expect(rewrite("---\r\ntitle: T\r\n---\r\nx", ["a"])).toBe("---\r\ntitle: T\r\ntopics:\r\n  - a\r\n---\r\nx");
  });

  test("the same string comes back when the topic list would not change", () => {
    const same = (text: string, topics: string[]) => expect(rewrite(text, topics)).toBe(text);
    same(PAGE, ["auth", "sessions"]);
    same(PAGE, ["sessions", "auth"]);
    same(PAGE, ["Auth", "SESSIONS", "auth"]);
    same("no front matter at all", []);
    same("---\ntitle: T\n---\nbody", []);
    same("---\ntopics: [a, a]\n---\n", ["a"]);
    same("---\ntopics: nope\n---\n", []);
  });

  test("a BOM before the front matter is kept", () => {
    const out = rewrite("\uFEFF---\ntopics: [a]\n---\nx", ["a", "b"]);
    expect(out).toBe("\uFEFF---\ntopics: [a, b]\n---\nx");
  });

  test("broken front matter is refused, never rewritten", () => {
    expect(errorOf(() => rewrite("---\ntopics: [a\n---\n", ["b"])).message).toBe(`invalid frontmatter: ${P}`);
    expect(errorOf(() => rewrite("---\njust text\n---\n", ["b"])).message).toBe(
      `frontmatter must be a YAML mapping: ${P}`,
    );
  });

  test("rewritten pages read back with exactly the requested topics", () => {
    const cases: [string, string[], string[]][] = [
      [PAGE, ["z", "auth"], ["auth", "z"]],
      ["---\ntopics: [x]\n---\n", ["y"], ["y"]],
      ["---\ntitle: T\n---\n", ["Über Topic", "日本"], ["uber-topic", "日本"]],
    ];
    for (const [text, topics, expected] of cases) {
      const out = rewrite(text, topics);
      expect(topicsOf(out)).toEqual(expected);
      expect(readTopicsForRewrite(out, P)).toEqual(expected);
    }
  });
});

describe("rewritePageTopics with a rename", () => {
  const rename = { from: "auth", to: "identity" };

  test("a block item is respelled where it stands and keeps its comment", () => {
    const out = rewritePageTopics(PAGE, ["identity", "sessions"], P, rename);
    expect(out).toBe(PAGE.replace("  - auth   # primary\n", "  - identity   # primary\n"));
    expect(topicsOf(out)).toEqual(["identity", "sessions"]);
  });

  test("a flow item is respelled where it stands", () => {
    const text = "---\ntopics: [Auth, ops]  # tags\n---\nbody\n";
    expect(rewritePageTopics(text, ["identity", "ops"], P, rename)).toBe("---\ntopics: [identity, ops]  # tags\n---\nbody\n");
  });

  test("a rename target already on the page collapses into one item", () => {
    const text = "---\ntopics:\n  - auth\n  - identity\n---\n";
    expect(rewritePageTopics(text, ["identity"], P, rename)).toBe("---\ntopics:\n  - identity\n---\n");
  });
});
