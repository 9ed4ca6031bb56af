import { describe, expect, test } from "vitest";
import { chmodSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asUnprivileged, page, unprivilegedUnavailable, writeWiki, type Sandbox } from "../support/cli.js";
import { generator } from "../privacy/corpus.js";
import { almanac, expectFailure, expectJsonFailure, expectOk, freshSandboxes } from "./helpers.js";

interface Issue {
  category: string;
  severity: "error" | "warning";
  message: string;
  page: string | null;
  topic: string | null;
  path: string | null;
}

interface Validation {
  repository_name: string;
  almanac_path: string;
  index: { changed: number; removed: number; pages_indexed: number; files_seen: number; files_skipped: number } | null;
  issues: Issue[];
  errors: number;
  warnings: number;
  strict: boolean;
  ok: boolean;
}

const HEALTH_KEYS = [
  "orphans",
  "dead_refs",
  "broken_links",
  "broken_xwiki",
  "empty_topics",
  "empty_pages",
  "missing_source_citations",
  "unused_sources",
  "duplicate_sources",
  "stale_pages",
  "other_findings",
];

const good = (body = "Fine.") => page({ title: "Good", topics: ["concepts"], sources: [], body });

function issue(category: string, severity: Issue["severity"], message: string, at: Partial<Pick<Issue, "page" | "topic" | "path">>): Issue {
  return { category, severity, message, page: at.page ?? null, topic: at.topic ?? null, path: at.path ?? null };
}

function validate(box: Sandbox, repo: string, extra: string[] = []): { code: number | null; result: Validation } {
  const run = box.run(["validate", "--json", ...extra], { cwd: repo });
  expect(run.stderr).toBe("");
  return { code: run.code, result: run.json<Validation>() };
}

/** Validates a wiki holding one defect: the issue is reported with the expected severity and exit code. */
function expectOnly(box: Sandbox, repo: string, expected: Issue): Validation {
  const { code, result } = validate(box, repo);
  expect(result.issues).toEqual([expected]);
  expect(code).toBe(expected.severity === "error" ? 1 : 0);
  expect(result.ok).toBe(expected.severity !== "error");
  expect(result.errors).toBe(expected.severity === "error" ? 1 : 0);
  expect(result.warnings).toBe(expected.severity === "warning" ? 1 : 0);
  if (expected.severity === "warning") {
    const strict = validate(box, repo, ["--strict"]);
    expect(strict.code).toBe(1);
    expect(strict.result.ok).toBe(false);
    expect(strict.result.strict).toBe(true);
  }
  return result;
}

describe("validate", () => {
  const fresh = freshSandboxes();
  const wiki = (box: Sandbox, files: Record<string, string>, topics?: string) => writeWiki(join(box.dir, "repo"), files, topics);

  test("a clean wiki passes with the full result shape", () => {
    const box = fresh();
    const repo = wiki(box, { "guide.md": good("See [home](README).") });
    const run = box.run(["validate", "--json"], { cwd: repo });
    expect(run.code).toBe(0);
    const result = run.json<Validation>();
    expect(Object.keys(result)).toEqual(["repository_name", "almanac_path", "index", "issues", "errors", "warnings", "strict", "ok"]);
    expect(result).toEqual({
      repository_name: "repo",
      almanac_path: almanac(repo),
      index: { changed: 2, removed: 0, pages_indexed: 2, files_seen: 2, files_skipped: 0 },
      issues: [],
      errors: 0,
      warnings: 0,
      strict: false,
      ok: true,
    });
  });

  test("human output for a clean wiki", () => {
    const box = fresh();
    const repo = wiki(box, {});
    const run = expectOk(box.run(["validate"], { cwd: repo }));
    expect(run.stdout).toBe(`validate: ok\nwiki:  repo\npath:  ${almanac(repo)}\nindex: 1 pages\n`);
    expect(run.stderr).toBe("");
  });

  test("human output lists errors and warnings with their location and category, on stdout", () => {
    const box = fresh();
    const repo = wiki(box, {
      "a.md": good("Link to [gone](gone)."),
      "b.md": page({ title: "B", sources: [], body: "No topics." }),
    });
    const run = box.run(["validate"], { cwd: repo });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      [
        "validate: failed",
        "wiki:  repo",
        `path:  ${almanac(repo)}`,
        "index: 3 pages",
        "errors (1):",
        "  a Markdown page link target does not exist: gone (broken_links)",
        "warnings (1):",
        "  b page has no topics (orphans)",
        "",
      ].join("\n"),
    );
  });

  describe("errors (exit 1)", () => {
    test("broken_links", () => {
      const box = fresh();
      const repo = wiki(box, { "a.md": good("See [missing](missing-page) and [ok](README).") });
      expectOnly(box, repo, issue("broken_links", "error", "Markdown page link target does not exist: missing-page", { page: "a" }));
    });

    test("secret_found: a secret in a page or in topics.yaml names the file, the line and the kind, never the secret", () => {
      const box = fresh();
      const { pick } = generator(21);
      const token = `ghp_${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 36)}`;
      const key = `AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`;
      const deploy = good(`The CI pushes with ${token} for now.`);
      const topics = `topics:\n  - slug: concepts\n    title: Concepts\n    description: the bucket key is ${key}\n    parents: []\n`;
      const repo = wiki(box, { "deploy.md": deploy }, topics);
      const line = deploy.split("\n").findIndex((l) => l.includes(token)) + 1;
      const run = box.run(["validate", "--json"], { cwd: repo });
      expect(run.code).toBe(1);
      expect(run.json<Validation>().issues).toEqual([
        { ...issue("secret_found", "error", `a secret (github-token) at line ${line} of deploy.md: remove it`, { page: "deploy", path: "deploy.md" }), line, kind: "github-token" },
        { ...issue("secret_found", "error", "a secret (aws-access-key) at line 4 of topics.yaml: remove it", { path: "topics.yaml" }), line: 4, kind: "aws-access-key" },
      ]);
      const text = box.run(["validate"], { cwd: repo });
      expect(text.code).toBe(1);
      expect(text.stdout).toContain(`errors (2):\n  deploy a secret (github-token) at line ${line} of deploy.md: remove it (secret_found)\n  topics.yaml a secret (aws-access-key) at line 4 of topics.yaml: remove it (secret_found)\n`);
      for (const output of [run.stdout, run.stderr, text.stdout, text.stderr]) {
        expect(output).not.toContain(token);
        expect(output).not.toContain(key);
      }
    });

    test("missing_source_citations", () => {
      const box = fresh();
      const repo = wiki(box, { "a.md": good("A claim [@ghost].") });
      expectOnly(box, repo, issue("missing_source_citations", "error", "citation has no matching source: ghost", { page: "a" }));
    });

    test("topics_invalid: YAML syntax", () => {
      const box = fresh();
      const repo = wiki(box, {}, "topics:\n  - slug: concepts\n    parents: [x\n");
      const result = expectOnly(
        box,
        repo,
        issue("topics_invalid", "error", expect.stringMatching(/^topics\.yaml is not valid YAML \(line \d+, column \d+\): .+[^)]$/) as unknown as string, {
          path: "topics.yaml",
        }),
      );
      expect(result.issues[0]!.message.match(/line \d+/g)).toHaveLength(1);
    });

    test("topics_invalid: wrong shapes", () => {
      const box = fresh();
      const repo = wiki(box, {}, "topics: nope\n");
      expectOnly(box, repo, issue("topics_invalid", "error", "topics must be a list (line 1)", { path: "topics.yaml" }));
    });

    test("topic_cycle: a cycle and a self parent", () => {
      const box = fresh();
      const repo = wiki(
        box,
        { "a.md": page({ title: "A", topics: ["a", "b", "c"], sources: [], body: "A." }) },
        "topics:\n  - slug: concepts\n  - slug: a\n    parents: [b]\n  - slug: b\n    parents: [a]\n  - slug: c\n    parents: [c]\n",
      );
      const { code, result } = validate(box, repo);
      expect(code).toBe(1);
      expect(result.issues).toEqual([
        issue("topic_cycle", "error", "topic cycle: a -> b -> a", { topic: "a", path: "topics.yaml" }),
        issue("topic_cycle", "error", "topic c is its own parent", { topic: "c", path: "topics.yaml" }),
      ]);
      // Reads keep working on a cyclic graph.
      expect(expectOk(box.run(["topics", "show", "a", "--descendants", "--json"], { cwd: repo })).json<{ pages: string[] }>().pages).toEqual(["a"]);
      expect(expectOk(box.run(["search", "--topic", "b", "--json"], { cwd: repo })).json<unknown[]>()).toHaveLength(1);
    });

    test("page_routes: the first path in component order keeps the route; the other is reported", () => {
      const box = fresh();
      const repo = wiki(box, {
        "guide.md": good("The flat file."),
        "guide/README.md": good("The folder landing page."),
      });
      const result = expectOnly(
        box,
        repo,
        issue(
          "page_routes",
          "error",
          `page route collision: guide maps to both ${almanac(repo, "guide/README.md")} and ${almanac(repo, "guide.md")}; the second is not indexed`,
          { page: "guide", path: "guide.md" },
        ),
      );
      expect(result.index).not.toBeNull();
      expect(expectOk(box.run(["show", "guide", "--body"], { cwd: repo })).stdout).toBe("The folder landing page.\n");
    });

    test("page_undecodable", () => {
      const box = fresh();
      const repo = wiki(box, {});
      writeFileSync(almanac(repo, "latin.md"), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]));
      expectOnly(box, repo, issue("page_undecodable", "error", "page is not valid UTF-8; not indexed", { page: "latin", path: "latin.md" }));
    });

    test("page_unreadable: a page the reader may not open", (context) => {
      const unavailable = unprivilegedUnavailable();
      if (unavailable) return context.skip(unavailable);
      const box = fresh();
      const repo = wiki(box, { "secret.md": good() });
      const reader = asUnprivileged(box); // as root, nothing is unreadable: run as a plain user
      chmodSync(almanac(repo, "secret.md"), 0o000);
      try {
        expectOnly(reader, repo, issue("page_unreadable", "error", "page could not be read (EACCES)", { page: "secret", path: "secret.md" }));
      } finally {
        chmodSync(almanac(repo, "secret.md"), 0o644);
      }
    });

    test("frontmatter_invalid: the page stays indexed by its body", () => {
      const box = fresh();
      const repo = wiki(box, { "bad.md": "---\ntitle: Bad\ntopics: [concepts\n---\n\nThe zeppelin body.\n" });
      const { code, result } = validate(box, repo);
      expect(code).toBe(1);
      expect(result.issues).toEqual([
        issue("frontmatter_invalid", "error", expect.stringMatching(/^front matter is not valid YAML \(line \d+, column \d+\): /) as unknown as string, {
          page: "bad",
          path: "bad.md",
        }),
        issue("orphans", "warning", "page has no topics", { page: "bad" }),
      ]);
    });

    test("source_invalid: not a list, a bad entry, an entry without target", () => {
      const box = fresh();
      const repo = wiki(box, {
        "a.md": "---\ntitle: A\ntopics: [concepts]\nsources: nope\n---\nA.\n",
        "b.md": "---\ntitle: B\ntopics: [concepts]\nsources:\n  - id: w\n    type: web\n  - type: dir\n    path: src/\n---\nB [@w].\n",
      });
      const { code, result } = validate(box, repo);
      expect(code).toBe(1);
      expect(result.issues).toEqual([
        issue("source_invalid", "error", "sources must be a list (line 4)", { page: "a", path: "a.md" }),
        issue("source_invalid", "error", "source w [web] is missing a target (line 5)", { page: "b", path: "b.md" }),
        issue("source_invalid", "error", "source #2 must include id, supported type, and target (line 7)", { page: "b", path: "b.md" }),
      ]);
    });

    test("source_invalid: cited lines that run backwards, start at 0, or name a folder (with or without its slash)", () => {
      const box = fresh();
      const repo = wiki(box, {
        "a.md": page({
          title: "A",
          topics: ["concepts"],
          sources: [
            { id: "back", type: "file", path: "src/a.ts", lines: "9-3" },
            { id: "zero", type: "file", path: "src/a.ts", lines: "0" },
            { id: "slash", type: "file", path: "src/", lines: "1-4" },
            { id: "bare", type: "file", path: "src", lines: "2" },
          ],
          body: "Cites [@back] [@zero] [@slash] [@bare].",
        }),
      });
      mkdirSync(join(repo, "src"));
      writeFileSync(join(repo, "src", "a.ts"), "one\ntwo\n");
      const { code, result } = validate(box, repo);
      expect(code).toBe(1);
      expect(result.issues).toEqual([
        issue("source_invalid", "error", "source back: lines 9-3 run backwards (line 5)", { page: "a", path: "a.md" }),
        issue("source_invalid", "error", "source zero: lines start at 1, not 0 (line 9)", { page: "a", path: "a.md" }),
        issue("source_invalid", "error", "source slash: lines 1-4 cite a folder (src/); cite a file, or drop lines (line 13)", { page: "a", path: "a.md" }),
        // A folder cited as a file is also a dead file reference, as without lines.
        issue("dead_refs", "warning", "file source does not exist: src", { page: "a", path: "src" }),
        issue("source_invalid", "error", "source bare: lines 2 cite a folder (src); cite a file, or drop lines", { page: "a", path: "src" }),
      ]);
    });

    test("runtime_state: index files and run folders inside almanac/", () => {
      const box = fresh();
      const repo = wiki(box, {});
      writeFileSync(almanac(repo, "index.db"), "");
      mkdirSync(almanac(repo, "runs"));
      mkdirSync(almanac(repo, "jobs"));
      writeFileSync(almanac(repo, "jobs", "hidden.md"), good());
      const { code, result } = validate(box, repo);
      expect(code).toBe(1);
      const message = "runtime state belongs under the CodeAlmanac state directory, not in almanac/";
      expect(result.issues).toEqual([
        issue("runtime_state", "error", message, { path: "index.db" }),
        issue("runtime_state", "error", message, { path: "jobs" }),
        issue("runtime_state", "error", message, { path: "runs" }),
      ]);
      expect(result.index!.pages_indexed).toBe(1);
    });
  });

  describe("warnings (exit 0 unless --strict)", () => {
    test("orphans", () => {
      const box = fresh();
      const repo = wiki(box, { "lonely.md": page({ title: "Lonely", sources: [], body: "Alone." }) });
      expectOnly(box, repo, issue("orphans", "warning", "page has no topics", { page: "lonely" }));
    });

    test("dead_refs: a missing file and a folder cited as a file", () => {
      const box = fresh();
      const repo = wiki(box, {
        "a.md": page({
          title: "A",
          topics: ["concepts"],
          sources: [
            { id: "gone", type: "file", path: "src/gone.ts" },
            { id: "here", type: "file", path: "src/here.ts" },
            { id: "dir", type: "file", path: "src/" },
          ],
          body: "Cites [@gone] [@here] [@dir].",
        }),
      });
      mkdirSync(join(repo, "src"));
      writeFileSync(join(repo, "src", "here.ts"), "");
      expectOnly(box, repo, issue("dead_refs", "warning", "file source does not exist: src/gone.ts", { page: "a", path: "src/gone.ts" }));
    });

    test("lines_past_end: a range past the last line names the file and its length; the last line itself is fine", () => {
      const box = fresh();
      const repo = wiki(box, {
        "a.md": page({
          title: "A",
          topics: ["concepts"],
          sources: [
            { id: "last", type: "file", path: "src/a.ts", lines: "2-3" },
            { id: "past", type: "file", path: "src/a.ts", lines: "3-4" },
            { id: "gone", type: "file", path: "src/gone.ts", lines: "1" },
            { id: "out", type: "file", path: "src/out.ts", lines: "5" },
          ],
          body: "Cites [@last] [@past] [@gone] [@out].",
        }),
      });
      mkdirSync(join(repo, "src"));
      // A link leading out of the repository is never read, so its length is never told.
      writeFileSync(join(box.dir, "outside.ts"), "one line\n");
      symlinkSync(join(box.dir, "outside.ts"), join(repo, "src", "out.ts"));
      // Three lines as fingerprints count them: the CRLF and the trailing blank line add none.
      writeFileSync(join(repo, "src", "a.ts"), "one\r\ntwo\r\nthree  \r\n");
      const { code, result } = validate(box, repo);
      expect(code).toBe(0);
      expect(result.issues).toEqual([
        issue("dead_refs", "warning", "file source does not exist: src/gone.ts", { page: "a", path: "src/gone.ts" }),
        issue("lines_past_end", "warning", "source past: lines 3-4 run past the end of src/a.ts (3 lines)", { page: "a", path: "src/a.ts" }),
      ]);
      // Edits are seen at once: a fourth line clears one finding, an empty file makes another.
      writeFileSync(join(repo, "src", "a.ts"), "one\ntwo\nthree\nfour\n");
      writeFileSync(join(repo, "src", "gone.ts"), "");
      expectOnly(box, repo, issue("lines_past_end", "warning", "source gone: lines 1 run past the end of src/gone.ts (0 lines)", { page: "a", path: "src/gone.ts" }));
    });

    test("empty_topics: a declared topic without pages; a parent of a used topic is not empty", () => {
      const box = fresh();
      const repo = wiki(
        box,
        { "a.md": page({ title: "A", topics: ["child"], sources: [], body: "A." }) },
        "topics:\n  - slug: concepts\n  - slug: parent\n  - slug: child\n    parents: [parent]\n  - slug: unused\n",
      );
      expectOnly(box, repo, issue("empty_topics", "warning", "topic has no pages", { topic: "unused" }));
    });

    test("empty_pages: a page with nothing but headings", () => {
      const box = fresh();
      const repo = wiki(box, { "stub.md": page({ title: "Stub", topics: ["concepts"], sources: [], body: "# Stub\n\n## Later" }) });
      expectOnly(box, repo, issue("empty_pages", "warning", "page has no body content after heading text", { page: "stub" }));
    });

    test("unused_sources", () => {
      const box = fresh();
      const repo = wiki(box, {
        "a.md": page({ title: "A", topics: ["concepts"], sources: [{ id: "web1", type: "web", url: "https://example.com" }], body: "No cites." }),
      });
      expectOnly(box, repo, issue("unused_sources", "warning", "source is not cited in page body: web1", { page: "a" }));
    });

    test("duplicate_sources", () => {
      const box = fresh();
      const repo = wiki(box, {
        "a.md": page({
          title: "A",
          topics: ["concepts"],
          sources: [
            { id: "w", type: "web", url: "https://example.com/1" },
            { id: "w", type: "web", url: "https://example.com/2" },
          ],
          body: "Cited [@w].",
        }),
      });
      expectOnly(box, repo, issue("duplicate_sources", "warning", "source id is duplicated: w", { page: "a" }));
    });

    test("undeclared_topic", () => {
      const box = fresh();
      const repo = wiki(box, { "a.md": page({ title: "A", topics: ["concepts", "adhoc"], sources: [], body: "A." }) });
      expectOnly(box, repo, issue("undeclared_topic", "warning", "topic is not declared in topics.yaml: adhoc", { page: "a", topic: "adhoc" }));
    });

    test("page_truncated", () => {
      const box = fresh();
      const repo = wiki(box, { "big.md": good("x ".repeat(1_500_000)) });
      expectOnly(box, repo, issue("page_truncated", "warning", "page is 2.9 MB; only the first 2 MB are indexed", { page: "big", path: "big.md" }));
    });

    test("page_truncated: a page too large to load whole (over 2 GiB) is indexed by its first 2 MB, never a crash", () => {
      const box = fresh();
      const repo = wiki(box, { "giant.md": good("x ".repeat(1_500_000)) });
      // Sparse past the text: three gigabytes on paper, few blocks on disk.
      truncateSync(almanac(repo, "giant.md"), 3 * 1024 ** 3);
      expectOnly(box, repo, issue("page_truncated", "warning", "page is 3072.0 MB; only the first 2 MB are indexed", { page: "giant", path: "giant.md" }));
    });

    test("binary_page", () => {
      const box = fresh();
      const repo = wiki(box, {});
      writeFileSync(almanac(repo, "image.md"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]));
      expectOnly(box, repo, issue("binary_page", "warning", "binary file named .md; not indexed", { page: "image", path: "image.md" }));
    });

    test("symlink_loop: a folder link back up the tree", () => {
      const box = fresh();
      const repo = wiki(box, { "guides/a.md": good() });
      symlinkSync("..", almanac(repo, "guides", "up"));
      expectOnly(box, repo, issue("symlink_loop", "warning", "symlink loop: links back to a folder that contains it", { path: "guides/up" }));
    });

    test("symlink_loop: links that point at each other", () => {
      const box = fresh();
      const repo = wiki(box, {});
      symlinkSync("two.md", almanac(repo, "one.md"));
      symlinkSync("one.md", almanac(repo, "two.md"));
      const { code, result } = validate(box, repo);
      expect(code).toBe(0);
      expect(result.issues).toEqual([
        issue("symlink_loop", "warning", "symlink loop: the link never resolves", { path: "one.md" }),
        issue("symlink_loop", "warning", "symlink loop: the link never resolves", { path: "two.md" }),
      ]);
    });

    test("symlink_outside: a link leaving almanac/ is not followed", () => {
      const box = fresh();
      const repo = wiki(box, {});
      writeFileSync(join(box.dir, "outside.md"), good());
      symlinkSync(join(box.dir, "outside.md"), almanac(repo, "outside.md"));
      expectOnly(box, repo, issue("symlink_outside", "warning", "symlink points outside almanac/; not followed", { path: "outside.md" }));
    });

    test("a symlink inside almanac/ is followed", () => {
      const box = fresh();
      const repo = wiki(box, { "real/page.md": good("Linked page about quokkas.") });
      symlinkSync("real", almanac(repo, "alias"));
      const { code, result } = validate(box, repo);
      expect(code).toBe(0);
      expect(result.issues).toEqual([]);
      const slugs = expectOk(box.run(["search", "quokkas", "--json"], { cwd: repo }))
        .json<{ slug: string }[]>()
        .map((h) => h.slug);
      expect(slugs.sort()).toEqual(["alias/page", "real/page"]);
    });

    test("folders cross-linked to each other are walked once per link target, without hanging", () => {
      const box = fresh();
      const names = ["a", "b", "c", "d", "e", "f", "g", "h"];
      const repo = wiki(box, Object.fromEntries(names.map((n) => [`${n}/page.md`, good(`Page ${n} about wombats.`)])));
      for (const from of names) for (const to of names) if (from !== to) symlinkSync(`../${to}`, almanac(repo, from, `to-${to}`));
      const { code, result } = validate(box, repo);
      expect(code).toBe(0);
      expect(result.issues.every((i) => i.category === "symlink_loop")).toBe(true);
      const found = expectOk(box.run(["search", "wombats", "--json"], { cwd: repo })).json<{ slug: string }[]>().map((h) => h.slug);
      for (const n of names) expect(found).toContain(`${n}/page`);
    });
  });

  test("--strict fails on warnings alone, and human output says so", () => {
    const box = fresh();
    const repo = wiki(box, { "lonely.md": page({ title: "Lonely", sources: [], body: "Alone." }) });
    expect(box.run(["validate"], { cwd: repo }).code).toBe(0);
    const strict = box.run(["validate", "--strict"], { cwd: repo });
    expect(strict.code).toBe(1);
    expect(strict.stdout.split("\n")[0]).toBe("validate: failed");
    expect(strict.stdout).toContain("warnings (1):\n  lonely page has no topics (orphans)\n");
  });

  test("--strict on a clean wiki passes", () => {
    const box = fresh();
    const repo = wiki(box, {});
    const { code, result } = validate(box, repo, ["--strict"]);
    expect(code).toBe(0);
    expect(result).toMatchObject({ ok: true, strict: true, errors: 0, warnings: 0 });
  });

  test("errors and warnings are counted together in one report", () => {
    const box = fresh();
    const repo = wiki(box, {
      "a.md": good("See [x](x) and [@ghost]."),
      "b.md": page({ title: "B", sources: [], body: "B." }),
    });
    const { code, result } = validate(box, repo);
    expect(code).toBe(1);
    expect(result.errors).toBe(2);
    expect(result.warnings).toBe(1);
    expect(result.issues.map((i) => i.category)).toEqual(["orphans", "broken_links", "missing_source_citations"]);
  });

  test("a wiki without an initialized almanac/ is not found", () => {
    const box = fresh();
    const repo = wiki(box, {});
    expectOk(box.run(["validate"], { cwd: repo }));
    rmSync(almanac(repo, "topics.yaml"));
    expectFailure(box.run(["validate", "--wiki", "repo"], { cwd: box.home }), `Almanac root not found: ${almanac(repo)}`);
    expectJsonFailure(box.run(["validate", "--wiki", "repo", "--json"], { cwd: box.home }), "not_found", `Almanac root not found: ${almanac(repo)}`);
  });
});

describe("health", () => {
  const fresh = freshSandboxes();

  test("a clean wiki: all eleven keys, empty, exit 0", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {});
    const run = expectOk(box.run(["health", "--json"], { cwd: repo }));
    const report = run.json<Record<string, unknown[]>>();
    expect(Object.keys(report)).toEqual(HEALTH_KEYS);
    for (const key of HEALTH_KEYS) expect(report[key]).toEqual([]);
    const human = expectOk(box.run(["health"], { cwd: repo }));
    expect(human.stdout).toBe(
      [
        "orphans (0): ok",
        "dead-refs (0): ok",
        "broken-links (0): ok",
        "broken-xwiki (0): ok",
        "empty-topics (0): ok",
        "empty-pages (0): ok",
        "missing-source-citations (0): ok",
        "unused-sources (0): ok",
        "duplicate-sources (0): ok",
        "stale-pages (0): ok",
        "other-findings (0): ok",
      ].join("\n\n") + "\n",
    );
  });

  test("findings in every category still exit 0, with each item's fields", () => {
    const box = fresh();
    const repo = writeWiki(
      join(box.dir, "repo"),
      {
        "orphan.md": page({ title: "Orphan", sources: [], body: "No topic." }),
        "refs.md": page({
          title: "Refs",
          topics: ["concepts"],
          sources: [
            { id: "gone", type: "file", path: "Src/Gone.ts" },
            { id: "dup", type: "web", url: "https://a" },
            { id: "dup", type: "web", url: "https://b" },
            { id: "idle", type: "web", url: "https://c" },
          ],
          body: "See [nowhere](nowhere) [@gone] [@dup] [@missing].",
        }),
        "stub.md": page({ title: "Stub", topics: ["concepts", "ghost"], sources: [], body: "# Stub" }),
      },
      "topics:\n  - slug: concepts\n  - slug: empty-one\n",
    );
    const run = expectOk(box.run(["health", "--json"], { cwd: repo }));
    expect(run.json()).toEqual({
      orphans: [{ slug: "orphan" }],
      dead_refs: [{ slug: "refs", path: "Src/Gone.ts" }],
      broken_links: [{ source_slug: "refs", target_slug: "nowhere" }],
      broken_xwiki: [],
      empty_topics: [{ slug: "empty-one" }],
      empty_pages: [{ slug: "stub" }],
      missing_source_citations: [{ slug: "refs", source_id: "missing" }],
      unused_sources: [{ slug: "refs", source_id: "idle" }],
      duplicate_sources: [{ slug: "refs", source_id: "dup" }],
      // Outside git only stamped evidence can be judged: unknown is not stale.
      stale_pages: [],
      // What validate reports beyond these sections, so health never says all is well while validate warns.
      other_findings: [{ category: "undeclared_topic", severity: "warning", message: "topic is not declared in topics.yaml: ghost", page: "stub", topic: "ghost", path: null }],
    });
    const human = expectOk(box.run(["health"], { cwd: repo }));
    expect(human.stdout).toBe(
      [
        "orphans (1):\n  orphan",
        "dead-refs (1):\n  refs  references Src/Gone.ts (missing)",
        "broken-links (1):\n  refs -> nowhere (target does not exist)",
        "broken-xwiki (0): ok",
        "empty-topics (1):\n  empty-one",
        "empty-pages (1):\n  stub",
        "missing-source-citations (1):\n  refs cites missing (missing source)",
        "unused-sources (1):\n  refs lists idle (not cited)",
        "duplicate-sources (1):\n  refs repeats dup",
        "stale-pages (0): ok",
        "other-findings (1):\n  stub  topic is not declared in topics.yaml: ghost (undeclared_topic)",
      ].join("\n\n") + "\n",
    );
    expect(human.stderr).toBe("");
  });

  test("health outside any wiki fails with one line", () => {
    const box = fresh();
    expectFailure(
      box.run(["health"], { cwd: box.home }),
      "No repository selected. Run inside a repository with an almanac/ wiki, or pass --wiki <name>.",
    );
    expectJsonFailure(box.run(["health", "--json"], { cwd: box.home }), "repository_not_selected", /^No repository selected\./);
  });
});
