import { describe, expect, test } from "vitest";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, writeWiki } from "../support/cli.js";
import {
  BASE_TIME,
  DAY,
  almanac,
  expectFailure,
  expectJsonFailure,
  expectOk,
  expectSyntaxScreen,
  freshSandboxes,
  setMtime,
  sharedSandbox,
  slugs,
  stdoutLines,
} from "./helpers.js";

const HIT_KEYS = ["excerpt", "file_path", "matched_heading", "slug", "summary", "title", "topics", "updated_at"];

describe("search: ranking and query analysis", () => {
  const shared = sharedSandbox((box) => {
    const repo = join(box.dir, "repo");
    writeWiki(repo, {
      // Oldest page, but the title match must still come first.
      "stars/nebula.md": page({
        title: "Nebula",
        summary: "Clouds of gas",
        topics: ["concepts"],
        sources: [],
        body: "Clouds of gas and dust where stars are born.",
      }),
      "stars/galaxies.md": page({
        title: "Galaxies",
        summary: "Big groups of stars",
        topics: ["concepts"],
        sources: [],
        body: "Galaxies hold billions of stars.\n\n## Nebula\n\nRegions inside a galaxy where gas collects.",
      }),
      // Newest page: a body-only mention ranks last.
      "stars/telescopes.md": page({
        title: "Telescopes",
        summary: "Instruments",
        topics: ["concepts"],
        sources: [],
        body: "Instruments for looking at things far away, such as a nebula or a planet.",
      }),
      "grammar.md": page({
        title: "Grammar",
        topics: ["concepts"],
        sources: [],
        body: "The the the the. This is the page that is full of the most common words of the language.",
      }),
    });
    setMtime(almanac(repo, "stars/nebula.md"), BASE_TIME);
    setMtime(almanac(repo, "stars/galaxies.md"), BASE_TIME + DAY);
    setMtime(almanac(repo, "stars/telescopes.md"), BASE_TIME + 2 * DAY);
    setMtime(almanac(repo, "grammar.md"), BASE_TIME + 3 * DAY);
    setMtime(almanac(repo, "README.md"), BASE_TIME + 4 * DAY);
    return { repo };
  });
  const run = (args: string[]) => shared.box().run(args, { cwd: shared.fixture().repo });

  // Search decodes and walks postings in WebAssembly, which `--jitless` removes; the
  // JavaScript fallback (src/index/postings-fallback.ts) must give the same answer.
  test("a Node without WebAssembly (--jitless) finds, ranks and excerpts the same", () => {
    const queries = [["search", "nebula", "--json"], ["search", "stars gas", "--all", "--json"], ["search", "the", "--json"]];
    for (const args of queries) {
      const normal = run(args);
      const jitless = shared.box().run(args, { cwd: shared.fixture().repo, env: { NODE_OPTIONS: "--jitless" } });
      expect(jitless.code, jitless.stderr).toBe(0);
      expect(normal.stdout).not.toBe("[]\n");
      expect(jitless.stdout, args.join(" ")).toBe(normal.stdout);
    }
  });

  test("a title match outranks a heading match, which outranks a body-only match", () => {
    const result = expectOk(run(["search", "nebula", "--json"]));
    expect(slugs(result)).toEqual(["stars/nebula", "stars/galaxies", "stars/telescopes"]);
  });

  test("--json hits have exactly the contract's fields with the matched section and a plain excerpt", () => {
    const result = expectOk(run(["search", "nebula", "--json"]));
    const hits = result.json<Record<string, unknown>[]>();
    for (const hit of hits) expect(Object.keys(hit).sort()).toEqual(HIT_KEYS);
    const galaxies = hits.find((h) => h.slug === "stars/galaxies")!;
    expect(galaxies).toEqual({
      slug: "stars/galaxies",
      title: "Galaxies",
      summary: "Big groups of stars",
      file_path: almanac(shared.fixture().repo, "stars/galaxies.md"),
      updated_at: BASE_TIME + DAY,
      topics: ["concepts"],
      matched_heading: "Nebula",
      excerpt: "Regions inside a galaxy where gas collects.",
    });
    const telescopes = hits.find((h) => h.slug === "stars/telescopes")!;
    expect(telescopes.matched_heading).toBe("Telescopes");
    expect(telescopes.excerpt).toContain("nebula");
    for (const hit of hits) {
      expect(hit.excerpt).not.toMatch(/[<>[\]*]/);
    }
    expect(result.stderr).toBe("");
    expect(result.stdout.endsWith("]\n")).toBe(true);
    expect(result.stdout).toContain('\n  {\n    "slug"');
  });

  test("several words are OR'ed and case-folded; prefixes match", () => {
    expect(slugs(expectOk(run(["search", "TELESCOP", "galaxies", "--json"])))).toEqual(
      expect.arrayContaining(["stars/telescopes", "stars/galaxies"]),
    );
    expect(slugs(expectOk(run(["search", "neb", "--json"])))[0]).toBe("stars/nebula");
  });

  test("stop words are dropped when the query has other words", () => {
    const withStopWords = slugs(expectOk(run(["search", "what is the nebula", "--json"])));
    const plain = slugs(expectOk(run(["search", "nebula", "--json"])));
    expect(withStopWords).toEqual(plain);
    expect(withStopWords).not.toContain("grammar");
  });

  test("a query made only of stop words still searches for them", () => {
    expect(slugs(expectOk(run(["search", "the", "--json"])))).toContain("grammar");
  });

  test("FTS syntax in the query is treated as text, not as operators", () => {
    for (const query of ['nebula"', "nebula OR", "NOT nebula", "nebula*", "(nebula", "title:nebula", "-nebula"]) {
      const result = run(["search", "--json", "--", query]);
      expect(result.code, `${query}: ${result.stderr}`).toBe(0);
      expect(slugs(result)).toContain("stars/nebula");
    }
  });

  test("zero results: nothing on stdout, `# 0 results` on stderr, exit 0", () => {
    const result = run(["search", "zzzyxnotaword"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("# 0 results\n");
  });

  test("zero results under --json: `[]` and a silent stderr", () => {
    const result = run(["search", "zzzyxnotaword", "--json"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("[]\n");
    expect(result.stderr).toBe("");
  });

  test("human output: slug, indented summary, and the matched heading when it is not the title", () => {
    const result = expectOk(run(["search", "nebula"]));
    expect(result.stdout).toBe(
      [
        "stars/nebula",
        "  Clouds of gas",
        "stars/galaxies",
        "  Big groups of stars",
        "  § Nebula",
        "stars/telescopes",
        "  Instruments",
        "",
      ].join("\n"),
    );
    expect(result.stderr).toBe("");
  });

  test("--slugs prints slugs only", () => {
    const result = expectOk(run(["search", "nebula", "--slugs"]));
    expect(result.stdout).toBe("stars/nebula\nstars/galaxies\nstars/telescopes\n");
  });

  test("--slugs is ignored with --json", () => {
    const result = expectOk(run(["search", "nebula", "--slugs", "--json"]));
    expect(Object.keys(result.json<Record<string, unknown>[]>()[0]!).sort()).toEqual(HIT_KEYS);
  });

  test("--limit counts pages, not sections", () => {
    expect(slugs(expectOk(run(["search", "nebula", "--limit", "2", "--json"])))).toEqual(["stars/nebula", "stars/galaxies"]);
    expect(slugs(expectOk(run(["search", "nebula", "--limit=1", "--json"])))).toEqual(["stars/nebula"]);
  });

  test("--limit 0 returns no pages and reports zero results", () => {
    expect(expectOk(run(["search", "nebula", "--limit", "0", "--json"])).stdout).toBe("[]\n");
    const human = run(["search", "nebula", "--limit", "0"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe("");
    expect(human.stderr).toBe("# 0 results\n");
  });

  test("--limit -1 is a validation error (exit 1), plain and under --json", () => {
    expectFailure(run(["search", "nebula", "--limit", "-1"]), "invalid --limit -1: must be zero or more");
    expectJsonFailure(run(["search", "nebula", "--limit", "-1", "--json"]), "validation_failed", "invalid --limit -1: must be zero or more");
  });

  test("--limit beyond the safe integer range is a validation error, not a crash", () => {
    expectFailure(
      run(["search", "nebula", "--limit", "99999999999999999999"]),
      "invalid --limit 100000000000000000000: must be at most 9007199254740991",
    );
    expect(slugs(expectOk(run(["search", "nebula", "--limit", "9007199254740991", "--json"])))).toHaveLength(3);
  });

  test("--limit abc and --limit 1.5 are syntax errors (exit 2) naming the value", () => {
    for (const value of ["abc", "1.5", ""]) {
      const screen = expectSyntaxScreen(run(["search", "nebula", "--limit", value]), "Invalid value");
      expect(screen).toContain("--limit");
      expect(screen).toContain("Search options");
    }
  });

  test("list mode (no query) lists every page newest first with null heading and excerpt", () => {
    const result = expectOk(run(["search", "--json"]));
    const hits = result.json<{ slug: string; matched_heading: unknown; excerpt: unknown; updated_at: number }[]>();
    expect(hits.map((h) => h.slug)).toEqual(["README", "grammar", "stars/telescopes", "stars/galaxies", "stars/nebula"]);
    for (const hit of hits) {
      expect(hit.matched_heading).toBeNull();
      expect(hit.excerpt).toBeNull();
    }
    expect(hits.map((h) => h.updated_at)).toEqual([4, 3, 2, 1, 0].map((d) => BASE_TIME + d * DAY));
  });

  test("a query of punctuation only is list mode, and --limit applies to it", () => {
    expect(slugs(expectOk(run(["search", "?!", "--json"])))).toHaveLength(5);
    expect(slugs(expectOk(run(["search", "--limit", "2", "--json"])))).toEqual(["README", "grammar"]);
  });

  test("list mode in human form prints slugs and summaries", () => {
    const result = expectOk(run(["search", "--limit", "1"]));
    expect(result.stdout).toBe("README\n  The landing page\n");
  });
});

describe("search: --topic", () => {
  const shared = sharedSandbox((box) => {
    const repo = join(box.dir, "repo");
    const topics = [
      "topics:",
      "  - slug: security",
      "    title: Security",
      "    parents: []",
      "  - slug: auth",
      "    title: Auth",
      "    parents: [security]",
      "  - slug: tokens",
      "    parents: [auth]",
      "  - slug: ops",
      "    parents: []",
      "  - slug: concepts",
      "    parents: []",
      "",
    ].join("\n");
    writeWiki(
      repo,
      {
        "login.md": page({ title: "Login", topics: ["auth"], sources: [], body: "How login works." }),
        "jwt.md": page({ title: "JWT", topics: ["tokens"], sources: [], body: "How tokens are signed for login." }),
        "policy.md": page({ title: "Policy", topics: ["security"], sources: [], body: "Security policy." }),
        "deploy.md": page({ title: "Deploy", topics: ["ops"], sources: [], body: "How to deploy; login to the box first." }),
        "audit.md": page({ title: "Audit", topics: ["ops", "auth"], sources: [], body: "Audit login attempts." }),
      },
      topics,
    );
    return { repo };
  });
  const run = (args: string[]) => shared.box().run(args, { cwd: shared.fixture().repo });
  const sorted = (args: string[]) => slugs(expectOk(run(args))).sort();

  test("a topic includes pages of every topic below it", () => {
    expect(sorted(["search", "--topic", "security", "--json"])).toEqual(["audit", "jwt", "login", "policy"]);
    expect(sorted(["search", "--topic", "auth", "--json"])).toEqual(["audit", "jwt", "login"]);
    expect(sorted(["search", "--topic", "tokens", "--json"])).toEqual(["jwt"]);
  });

  test("repeated --topic filters must all match", () => {
    expect(sorted(["search", "--topic", "security", "--topic", "ops", "--json"])).toEqual(["audit"]);
    expect(sorted(["search", "--topic", "tokens", "--topic", "ops", "--json"])).toEqual([]);
  });

  test("topic values are kebab-cased", () => {
    expect(sorted(["search", "--topic", "  Tokens ", "--json"])).toEqual(["jwt"]);
  });

  test("combines with a text query", () => {
    expect(sorted(["search", "login", "--topic", "ops", "--json"])).toEqual(["audit", "deploy"]);
  });

  test("an unknown topic is a one-line not-found error with the close topics, in text and JSON", () => {
    expectFailure(run(["search", "--topic", "nope"]), "topic not found: nope; `codealmanac topics` lists them");
    expectFailure(run(["search", "--topic", "auht"]), "topic not found: auht (did you mean auth?); `codealmanac topics` lists them");
    // Any unknown one of several, named as typed.
    expectFailure(run(["search", "login", "--topic", "ops", "--topic", "Token"]), "topic not found: Token (did you mean tokens?); `codealmanac topics` lists them");
    expectJsonFailure(run(["search", "--topic", "secuirty", "--json"]), "not_found", "topic not found: secuirty (did you mean security?); `codealmanac topics` lists them");
  });
});

describe("search: --mentions", () => {
  const shared = sharedSandbox((box) => {
    const repo = join(box.dir, "repo");
    const cites = (id: string, path: string) => [{ id, type: "file", path }];
    writeWiki(repo, {
      "session.md": page({ title: "Session", topics: ["concepts"], sources: cites("s", "src/auth/session.ts"), body: "Sessions [@s]." }),
      "auth-dir.md": page({ title: "Auth folder", topics: ["concepts"], sources: cites("d", "src/auth/"), body: "Auth code [@d]." }),
      "other.md": page({ title: "Other", topics: ["concepts"], sources: cites("o", "src/other.ts"), body: "Other [@o]." }),
      "docs.md": page({ title: "Docs", topics: ["concepts"], sources: cites("g", "guides/"), body: "Guides [@g]." }),
      "route.md": page({ title: "Route", topics: ["concepts"], sources: cites("r", "app/[id]/page.tsx"), body: "Route [@r]." }),
      "upper.md": page({ title: "Upper", topics: ["concepts"], sources: cites("u", "Lib/Core.ts"), body: "Core [@u]." }),
    });
    mkdirSync(join(repo, "src", "auth"), { recursive: true });
    mkdirSync(join(repo, "lib"), { recursive: true });
    return { repo };
  });
  const run = (args: string[]) => shared.box().run(args, { cwd: shared.fixture().repo });
  const mentions = (path: string, extra: string[] = []) => slugs(expectOk(run(["search", "--mentions", path, "--json", ...extra]))).sort();

  test("a file path matches pages citing the file or one of its folders", () => {
    expect(mentions("src/auth/session.ts")).toEqual(["auth-dir", "session"]);
    expect(mentions("src/other.ts")).toEqual(["other"]);
  });

  test("a folder path with a slash matches everything cited below it", () => {
    expect(mentions("src/auth/")).toEqual(["auth-dir", "session"]);
    expect(mentions("src/")).toEqual(["auth-dir", "other", "session"]);
  });

  test("a folder path without a slash is a folder when that folder exists", () => {
    expect(mentions("src/auth")).toEqual(["auth-dir", "session"]);
    expect(mentions("src")).toEqual(["auth-dir", "other", "session"]);
  });

  test("a path without a slash that is not an existing folder is a file query", () => {
    // guides/ is cited but does not exist in the repository.
    expect(mentions("guides")).toEqual([]);
    expect(mentions("guides/")).toEqual(["docs"]);
  });

  test("paths are normalized: ./ and leading / are dropped, backslashes and case fold", () => {
    expect(mentions("./src/auth/")).toEqual(["auth-dir", "session"]);
    expect(mentions("/src/auth/session.ts")).toEqual(["auth-dir", "session"]);
    expect(mentions("src\\auth\\session.ts")).toEqual(["auth-dir", "session"]);
    expect(mentions("SRC/Auth/Session.TS")).toEqual(["auth-dir", "session"]);
    expect(mentions("lib/core.ts")).toEqual(["upper"]);
    expect(mentions("lib")).toEqual(["upper"]);
  });

  test("glob characters in cited paths are matched literally", () => {
    expect(mentions("app/[id]/")).toEqual(["route"]);
    expect(mentions("app/[id]/page.tsx")).toEqual(["route"]);
    expect(mentions("app/?d]/")).toEqual([]);
    expect(mentions("app/*/")).toEqual([]);
  });

  test("a path climbing out with .. matches nothing and is not an error", () => {
    for (const path of ["../src/auth", "src/../src/auth/", ".."]) {
      const result = run(["search", "--mentions", path]);
      expect(result.code, path).toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe("# 0 results\n");
    }
  });

  test("a whitespace-only path is ignored", () => {
    expect(mentions("   ")).toHaveLength(7);
  });

  test("combines with a query and with --limit", () => {
    expect(mentions("src/", ["sessions"])).toEqual(["session"]);
    expect(mentions("src/", ["--limit", "1"])).toHaveLength(1);
  });
});

describe("search: output volume", () => {
  const fresh = freshSandboxes();

  test("without --limit the best 50 are shown with a hint; --all shows every match", () => {
    const box = fresh();
    const files: Record<string, string> = {};
    for (let i = 0; i < 51; i++) {
      files[`many/p${String(i).padStart(2, "0")}.md`] = page({ title: `Page ${i}`, topics: ["concepts"], sources: [], body: "Widget notes." });
    }
    const repo = writeWiki(join(box.dir, "repo"), files);
    const result = expectOk(box.run(["search", "widget", "--slugs"], { cwd: repo }));
    expect(stdoutLines(result)).toHaveLength(50);
    expect(result.stderr).toBe(
      "codealmanac: showing the best 50 of 51 results — use --limit N or --all for more, or narrow the query\n",
    );
    const all = expectOk(box.run(["search", "widget", "--slugs", "--all"], { cwd: repo }));
    expect(stdoutLines(all)).toHaveLength(51);
    expect(all.stderr).toBe("codealmanac: 51 results — consider --limit or a narrower query\n");
    expect(box.run(["search", "widget", "--all", "--limit", "5"], { cwd: repo }).code).toBe(1);
    expect(expectOk(box.run(["search", "widget", "--json"], { cwd: repo })).json<unknown[]>()).toHaveLength(50);
    expect(expectOk(box.run(["search", "widget", "--json", "--all"], { cwd: repo })).json<unknown[]>()).toHaveLength(51);
    const limited = expectOk(box.run(["search", "widget", "--slugs", "--limit", "60"], { cwd: repo }));
    expect(stdoutLines(limited)).toHaveLength(51);
    expect(limited.stderr).toBe("");
    const json = expectOk(box.run(["search", "widget", "--json"], { cwd: repo }));
    expect(json.stderr).toBe("");
  });

  test("a long section's excerpt is at most 32 words around the match, with ellipses where cut", () => {
    const box = fresh();
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
    words[100] = "Kinkajou";
    const repo = writeWiki(join(box.dir, "repo"), {
      "long.md": page({ title: "Long", topics: ["concepts"], sources: [], body: words.join(" ") + "." }),
    });
    const [hit] = expectOk(box.run(["search", "kinkajou", "--json"], { cwd: repo })).json<{ excerpt: string }[]>();
    expect(hit!.excerpt.startsWith("… ")).toBe(true);
    expect(hit!.excerpt.endsWith(" …")).toBe(true);
    expect(hit!.excerpt).toContain("Kinkajou");
    expect(hit!.excerpt.slice(2, -2).split(" ")).toHaveLength(32);
  });

  test("a page edited after the first search is found by its new words", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "note.md": page({ title: "Note", topics: ["concepts"], sources: [], body: "Old words." }),
    });
    expect(expectOk(box.run(["search", "quasar"], { cwd: repo })).stdout).toBe("");
    const path = almanac(repo, "note.md");
    writeFileSync(path, page({ title: "Note", topics: ["concepts"], sources: [], body: "A quasar appeared." }));
    setMtime(path, BASE_TIME);
    expect(slugs(expectOk(box.run(["search", "quasar", "--json"], { cwd: repo })))).toEqual(["note"]);
    expect(slugs(expectOk(box.run(["search", "old", "--json"], { cwd: repo })))).toEqual([]);
  });
});

describe("search: freshness after edits", () => {
  const fresh = freshSandboxes();

  test("deleted, moved and new pages are seen by the next read", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "keep.md": page({ title: "Keep", topics: ["concepts"], sources: [], body: "Marmot notes." }),
      "drop.md": page({ title: "Drop", topics: ["concepts"], sources: [], body: "Marmot leaving." }),
      "move.md": page({ title: "Move", topics: ["concepts"], sources: [], body: "Marmot moving." }),
    });
    expect(slugs(expectOk(box.run(["search", "marmot", "--json"], { cwd: repo }))).sort()).toEqual(["drop", "keep", "move"]);
    rmSync(almanac(repo, "drop.md"));
    mkdirSync(almanac(repo, "moved"));
    renameSync(almanac(repo, "move.md"), almanac(repo, "moved", "move.md"));
    writeFileSync(almanac(repo, "new.md"), page({ title: "New", topics: ["concepts"], sources: [], body: "Marmot arriving." }));
    expect(slugs(expectOk(box.run(["search", "marmot", "--json"], { cwd: repo }))).sort()).toEqual(["keep", "moved/move", "new"]);
    expectFailure(box.run(["show", "drop"], { cwd: repo }), /^codealmanac: page not found: drop/);
  });

  test("hand edits to topics.yaml are seen by the next read", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "jwt.md": page({ title: "JWT", topics: ["tokens"], sources: [], body: "Tokens." }),
    });
    expectJsonFailure(box.run(["search", "--topic", "security", "--json"], { cwd: repo }), "not_found", /^topic not found: security;/);
    writeFileSync(
      almanac(repo, "topics.yaml"),
      "topics:\n  - slug: concepts\n  - slug: security\n    description: Keeping things safe\n  - slug: tokens\n    parents: [security]\n",
    );
    expect(slugs(expectOk(box.run(["search", "--topic", "security", "--json"], { cwd: repo })))).toEqual(["jwt"]);
    const topic = expectOk(box.run(["topics", "show", "security", "--json"], { cwd: repo })).json<{ description: string; children: string[] }>();
    expect(topic.description).toBe("Keeping things safe");
    expect(topic.children).toEqual(["tokens"]);
  });
});

describe("search: concurrent readers", () => {
  const fresh = freshSandboxes();

  test("many searches racing on a never-indexed wiki all succeed with the same answer", async () => {
    const box = fresh();
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`p${i}.md`] = page({ title: `Page ${i}`, topics: ["concepts"], sources: [], body: `Gizmo number ${i}.` });
    const repo = writeWiki(join(box.dir, "repo"), files);
    const results = await Promise.all(Array.from({ length: 8 }, () => box.runAsync(["search", "gizmo", "--json"], { cwd: repo })));
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe("");
      expect(result.json<unknown[]>()).toHaveLength(40);
    }
    const listed = expectOk(box.run(["list", "--json"], { cwd: box.home })).json<unknown[]>();
    expect(listed).toHaveLength(1);
  });

  test("same-named wikis registering at once all get distinct names", async () => {
    const box = fresh();
    const roots = ["one", "two", "three"].map((parent) => writeWiki(join(box.dir, parent, "app"), {}));
    const results = await Promise.all(roots.flatMap((cwd) => [box.runAsync(["search"], { cwd }), box.runAsync(["search"], { cwd })]));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const notices = results.flatMap((r) => r.stderr.split("\n")).filter((l) => l.includes("is taken by another checkout"));
    expect(notices).toHaveLength(2);
    const names = expectOk(box.run(["list", "--json"], { cwd: box.home }))
      .json<{ repository: { name: string } }[]>()
      .map((l) => l.repository.name);
    expect(names).toEqual(["app", "app-2", "app-3"]);
  });
});
