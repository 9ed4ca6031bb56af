import { describe, expect, test } from "vitest";
import { ProductError } from "../../src/core/errors.js";
import { findCycles, parseTopicsFile, TopicsDocument } from "../../src/wiki/topics-file.js";
import type { TopicDef } from "../../src/wiki/topics-file.js";

const def = (slug: string, parents: string[] = [], title: string | null = null): TopicDef => ({
  slug,
  title,
  description: null,
  parents,
});

function errorOf(run: () => unknown): ProductError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProductError) return error;
    throw error;
  }
  throw new Error("expected a ProductError");
}

describe("parseTopicsFile", () => {
  test("reads the minimal file", () => {
    expect(parseTopicsFile("topics:\n  - slug: concepts\n    title: Concepts\n    parents: []\n")).toEqual({
      ok: true,
      topics: [{ slug: "concepts", title: "Concepts", description: null, parents: [] }],
      problems: [],
    });
  });

  test("a missing or empty file has no topics and no problems", () => {
    for (const text of [null, "", "  \n", "# only a comment\n", "topics:\n", "other: 1\n"]) {
      expect(parseTopicsFile(text)).toEqual({ ok: true, topics: [], problems: [] });
    }
  });

  test("slugs and parents are kebab-cased; titles and descriptions trimmed", () => {
    const file = parseTopicsFile(`topics:
  - slug: Auth Flow
    title: '  Auth  '
    description: "  How sign-in works. "
    parents: [Security Model, security-model, '', 42]
  - slug: 2024
  - slug: Über
    title: '   '
`);
    expect(file.ok).toBe(true);
    expect(file.topics).toEqual([
      { slug: "auth-flow", title: "Auth", description: "How sign-in works.", parents: ["security-model", "42"] },
      { slug: "2024", title: null, description: null, parents: [] },
      { slug: "uber", title: null, description: null, parents: [] },
    ]);
  });

  test("duplicate slugs merge: later title and description win, parents are unioned", () => {
    const file = parseTopicsFile(`topics:
  - {slug: auth, title: First, description: One, parents: [a, b]}
  - {slug: other}
  - {slug: Auth, title: Second, parents: [b, c]}
`);
    expect(file.topics).toEqual([
      { slug: "auth", title: "Second", description: "One", parents: ["a", "b", "c"] },
      { slug: "other", title: null, description: null, parents: [] },
    ]);
  });

  test("self-parents stay in the definitions so cycle checks can report them", () => {
    expect(parseTopicsFile("topics:\n  - {slug: x, parents: [x]}\n").topics[0]?.parents).toEqual(["x"]);
  });

  test("a YAML syntax error is a problem with line and column", () => {
    const file = parseTopicsFile("topics:\n  - slug: a\n    parents: [b\n  - slug: c\n");
    expect(file.ok).toBe(false);
    expect(file.topics).toEqual([]);
    expect(file.problems).toHaveLength(1);
    expect(file.problems[0]?.message).toMatch(/^topics\.yaml is not valid YAML \(line \d+, column \d+\): \S/);
    expect(file.problems[0]?.line).toEqual(expect.any(Number));
  });

  test("a top level that is not a mapping is a problem", () => {
    expect(parseTopicsFile("- slug: a\n")).toEqual({
      ok: false,
      topics: [],
      problems: [{ message: "topics.yaml must be a YAML mapping", line: 1 }],
    });
  });

  test("topics that are not a list is a problem", () => {
    expect(parseTopicsFile("# c\ntopics: concepts\n")).toEqual({
      ok: false,
      topics: [],
      problems: [{ message: "topics must be a list", line: 2 }],
    });
  });

  test("bad entries are reported and skipped; good entries still count", () => {
    const file = parseTopicsFile(`topics:
  - slug: good
  - just-a-string
  - title: No Slug
  - slug: '!!!'
  - slug: also-good
    parents: concepts
`);
    expect(file.ok).toBe(false);
    expect(file.topics.map((t) => t.slug)).toEqual(["good", "also-good"]);
    expect(file.problems).toEqual([
      { message: "topic #2 must be a mapping", line: 3 },
      { message: "topic #3 is missing a slug", line: 4 },
      { message: 'topic #4 slug "!!!" has no letters or digits', line: 5 },
      { message: "topic also-good: parents must be a list", line: 7 },
    ]);
  });
});

describe("findCycles", () => {
  test("an acyclic graph has no cycles", () => {
    expect(findCycles([def("a", ["b", "c"]), def("b", ["c"]), def("c")])).toEqual([]);
  });

  test("a self-parent is a cycle of one", () => {
    expect(findCycles([def("x", ["x"])])).toEqual([["x"]]);
  });

  test("each elementary cycle is reported once, from its smallest topic, in a stable order", () => {
    const topics = [def("c", ["a"]), def("a", ["b"]), def("b", ["c", "a"]), def("d", ["d", "b"])];
    expect(findCycles(topics)).toEqual([
      ["a", "b"],
      ["a", "b", "c"],
      ["d"],
    ]);
    expect(findCycles([...topics].reverse())).toEqual(findCycles(topics));
  });

  test("duplicate definitions contribute their edges", () => {
    expect(findCycles([def("a", ["b"]), def("b"), def("b", ["a"])])).toEqual([["a", "b"]]);
  });

  test("undefined parents are ordinary leaf topics", () => {
    expect(findCycles([def("a", ["ghost"])])).toEqual([]);
  });
});

describe("TopicsDocument.parse", () => {
  test("refuses syntax errors, naming the path and position", () => {
    const error = errorOf(() => TopicsDocument.parse("topics: [a\n", "/w/almanac/topics.yaml"));
    expect(error.code).toBe("validation_failed");
    expect(error.message).toMatch(/^invalid topics\.yaml: \/w\/almanac\/topics\.yaml: line \d+, column \d+: \S/);
  });

  test("refuses a non-mapping top level", () => {
    expect(errorOf(() => TopicsDocument.parse("- a\n", "p")).message).toBe("topics.yaml must be a YAML mapping: p");
  });

  test("refuses topics that are not a list", () => {
    expect(errorOf(() => TopicsDocument.parse("topics: {a: 1}\n", "p")).message).toBe(
      "topics.yaml topics must be a list: p",
    );
  });

  test("refuses malformed entries", () => {
    expect(errorOf(() => TopicsDocument.parse("topics:\n  - title: x\n", "p")).message).toBe(
      "invalid topics.yaml: p: topic #1 is missing a slug",
    );
  });

  test("an unedited document is returned byte for byte", () => {
    const text = "# Topics\r\ntopics:\r\n- slug: a    # spaced comment\r\n  title:   'A'\r\n";
    expect(TopicsDocument.parse(text, "p").toString()).toBe(text);
  });

  test("a missing file becomes an empty topic list", () => {
    const doc = TopicsDocument.parse(null, "p");
    expect(doc.topics()).toEqual([]);
    expect(doc.toString()).toBe("topics: []\n");
  });
});

const SAMPLE = `# Topic DAG for this wiki.
topics:
  # Vocabulary first.
  - slug: concepts
    title: "Concepts"   # quoted on purpose
    description: Core vocabulary
    parents: []

  - slug: auth
    title: Auth
    parents:
      - concepts
  - slug: sessions
    title: 'Sessions'
    parents: [auth, concepts]
`;

describe("TopicsDocument mutations", () => {
  test("ensureTopic appends slug, title and an empty parent list, keeping comments and quoting", () => {
    const doc = TopicsDocument.parse(SAMPLE, "p");
    expect(doc.ensureTopic("run-queue")).toBe("created");
    expect(doc.ensureTopic("Run Queue")).toBe("existing");
    const text = doc.toString();
    expect(text.startsWith("# Topic DAG for this wiki.\ntopics:\n  # Vocabulary first.\n")).toBe(true);
    expect(text).toContain('title: "Concepts" # quoted on purpose');
    expect(text).toContain("title: 'Sessions'");
    expect(text).toContain("parents: [auth, concepts]");
    expect(text.endsWith("  - slug: run-queue\n    title: Run Queue\n    parents: []\n")).toBe(true);
    expect(TopicsDocument.parse(text, "p").get("run-queue")).toEqual({
      slug: "run-queue",
      title: "Run Queue",
      description: null,
      parents: [],
    });
  });

  test("ensureTopic uses a given title and replaces only a missing or derived title", () => {
    const doc = TopicsDocument.parse("topics:\n  - slug: api\n    title: Api\n  - slug: db\n    title: Storage\n", "p");
    expect(doc.ensureTopic("new-one", "  Brand New ")).toBe("created");
    expect(doc.ensureTopic("api", "API")).toBe("existing");
    expect(doc.ensureTopic("db", "Database")).toBe("existing");
    expect(doc.topics().map((t) => [t.slug, t.title])).toEqual([
      ["api", "API"],
      ["db", "Storage"],
      ["new-one", "Brand New"],
    ]);
  });

  test("a document that did not exist is created with the first topic", () => {
    const doc = TopicsDocument.parse(null, "p");
    doc.ensureTopic("concepts", "Concepts");
    expect(doc.toString()).toBe("topics:\n  - slug: concepts\n    title: Concepts\n    parents: []\n");
  });

  test("a file without a topics key gains one and keeps its other keys", () => {
    const doc = TopicsDocument.parse("# note\nversion: 1\n", "p");
    doc.ensureTopic("a");
    expect(doc.toString()).toBe("# note\nversion: 1\ntopics:\n  - slug: a\n    title: A\n    parents: []\n");
  });

  test("setTitle and setDescription edit in place; an empty description removes the key", () => {
    const doc = TopicsDocument.parse(SAMPLE, "p");
    doc.setTitle("concepts", "Core Concepts");
    doc.setDescription("auth", "  Who you are.  ");
    doc.setDescription("concepts", null);
    const text = doc.toString();
    expect(text).toContain('title: "Core Concepts" # quoted on purpose');
    expect(text).not.toContain("Core vocabulary");
    expect(text).toContain("  - slug: auth\n    title: Auth\n    description: Who you are.\n    parents:\n");
    expect(doc.get("auth")?.description).toBe("Who you are.");
    doc.setDescription("auth", "");
    expect(doc.get("auth")?.description).toBeNull();
  });

  test("editing an unknown topic is a not-found error", () => {
    const doc = TopicsDocument.parse(SAMPLE, "p");
    expect(errorOf(() => doc.setTitle("ghost", "G")).message).toBe("topic not found: ghost");
    expect(errorOf(() => doc.setDescription("ghost", "G")).code).toBe("not_found");
    expect(errorOf(() => doc.addParent("ghost", "auth")).code).toBe("not_found");
  });

  test("addParent appends an edge once and keeps the list's style", () => {
    const doc = TopicsDocument.parse(SAMPLE, "p");
    expect(doc.addParent("sessions", "security")).toBe(true);
    expect(doc.addParent("sessions", "Security")).toBe(false);
    expect(doc.addParent("auth", "security")).toBe(true);
    expect(doc.addParent("concepts", "meta")).toBe(true);
    const text = doc.toString();
    expect(text).toContain("parents: [auth, concepts, security]");
    expect(text).toContain("    parents:\n      - concepts\n      - security\n");
    expect(text).toContain("parents: [meta]");
  });

  test("addParent refuses self-parents and cycles, writing nothing", () => {
    const doc = TopicsDocument.parse(SAMPLE, "p");
    const self = errorOf(() => doc.addParent("auth", "auth"));
    expect([self.code, self.message]).toEqual(["validation_failed", "topic cannot be its own parent"]);
    const cycle = errorOf(() => doc.addParent("concepts", "sessions"));
    expect([cycle.code, cycle.message]).toEqual([
      "conflict",
      "adding sessions as parent of concepts would create a cycle",
    ]);
    expect(doc.toString()).toBe(SAMPLE);
  });

  test("removeParent drops every occurrence from every entry of the child", () => {
    const doc = TopicsDocument.parse("topics:\n  - {slug: a, parents: [p, q, p]}\n  - {slug: a, parents: [p]}\n", "p");
    expect(doc.removeParent("a", "p")).toBe(true);
    expect(doc.removeParent("a", "p")).toBe(false);
    expect(doc.removeParent("ghost", "p")).toBe(false);
    expect(doc.get("a")?.parents).toEqual(["q"]);
  });

  test("renameTopic renames the entry, a derived title and every parent reference", () => {
    const doc = TopicsDocument.parse(
      `topics:
  - slug: auth
    title: Auth
  - slug: login
  - slug: sessions
    parents: [auth, security, auth-flow]
  - slug: tokens
    title: Tokens
    parents:
      - auth-flow   # keep me
      - auth
`,
      "p",
    );
    doc.renameTopic("auth", "auth-flow");
    const text = doc.toString();
    expect(doc.topics()).toEqual([
      { slug: "auth-flow", title: "Auth Flow", description: null, parents: [] },
      { slug: "login", title: null, description: null, parents: [] },
      { slug: "sessions", title: null, description: null, parents: ["auth-flow", "security"] },
      { slug: "tokens", title: "Tokens", description: null, parents: ["auth-flow"] },
    ]);
    expect(text).toContain("- auth-flow # keep me");
  });

  test("renameTopic keeps a custom title and leaves an absent title absent", () => {
    const doc = TopicsDocument.parse("topics:\n  - {slug: db, title: Storage Layer}\n  - {slug: api}\n", "p");
    doc.renameTopic("db", "storage");
    doc.renameTopic("api", "http-api");
    expect(doc.topics().map((t) => [t.slug, t.title])).toEqual([
      ["storage", "Storage Layer"],
      ["http-api", null],
    ]);
  });

  test("renameTopic refuses to merge into an existing topic and ignores same-slug renames", () => {
    const doc = TopicsDocument.parse(SAMPLE, "p");
    const error = errorOf(() => doc.renameTopic("auth", "sessions"));
    expect([error.code, error.message]).toEqual([
      "conflict",
      'topic "sessions" already exists; delete it first if you intend to merge',
    ]);
    doc.renameTopic("Auth", "auth");
    expect(doc.toString()).toBe(SAMPLE);
  });

  test("renameTopic renames parent references even when the old slug is not defined", () => {
    const doc = TopicsDocument.parse("topics:\n  - {slug: a, parents: [ad-hoc]}\n", "p");
    doc.renameTopic("ad-hoc", "promoted");
    expect(doc.get("a")?.parents).toEqual(["promoted"]);
  });

  test("deleteTopic removes every entry and every parent reference", () => {
    const doc = TopicsDocument.parse(`${SAMPLE}  - slug: auth\n    title: Duplicate\n`, "p");
    expect(doc.deleteTopic("auth")).toBe(true);
    expect(doc.deleteTopic("auth")).toBe(false);
    expect(doc.topics()).toEqual([
      { slug: "concepts", title: "Concepts", description: "Core vocabulary", parents: [] },
      { slug: "sessions", title: "Sessions", description: null, parents: ["concepts"] },
    ]);
    expect(doc.toString()).toContain("# Vocabulary first.");
  });

  test("CRLF files stay CRLF after an edit", () => {
    const text = SAMPLE.replace(/\n/g, "\r\n");
    const doc = TopicsDocument.parse(text, "p");
    doc.ensureTopic("new");
    const out = doc.toString();
    expect(out.includes("\r\n")).toBe(true);
    expect(out.replace(/\r\n/g, "")).not.toContain("\n");
    expect(out.startsWith("# Topic DAG for this wiki.\r\ntopics:\r\n")).toBe(true);
  });

  test("a block list written flush with its key stays flush", () => {
    const doc = TopicsDocument.parse("topics:\n- slug: a\n  title: A\n", "p");
    doc.ensureTopic("b");
    expect(doc.toString()).toBe("topics:\n- slug: a\n  title: A\n- slug: b\n  title: B\n  parents: []\n");
  });

  test("a BOM survives an edit", () => {
    const doc = TopicsDocument.parse("\uFEFFtopics:\n  - slug: a\n", "p");
    doc.ensureTopic("b");
    expect(doc.toString().startsWith("\uFEFFtopics:\n")).toBe(true);
    expect(doc.topics().map((t) => t.slug)).toEqual(["a", "b"]);
  });

  test("long values are not folded on re-emission", () => {
    const long = "word ".repeat(40).trim();
    const doc = TopicsDocument.parse(`topics:\n  - slug: a\n    description: ${long}\n`, "p");
    doc.ensureTopic("b");
    expect(doc.toString()).toContain(`    description: ${long}\n`);
  });

  test("changed tells whether anything needs writing", () => {
    const doc = TopicsDocument.parse(SAMPLE, "p");
    expect(doc.changed).toBe(false);
    doc.addParent("sessions", "auth");
    doc.removeParent("auth", "ghost");
    doc.setTitle("auth", "Auth");
    expect(doc.changed).toBe(false);
    doc.addParent("auth", "meta");
    expect(doc.changed).toBe(true);
  });

  test("slugs that kebab to nothing are refused", () => {
    const doc = TopicsDocument.parse(SAMPLE, "p");
    expect(errorOf(() => doc.ensureTopic("!!!")).message).toBe("invalid topic slug: !!!");
  });
});
