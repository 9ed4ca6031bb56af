import { describe, expect, test } from "vitest";
import { join } from "node:path";
import { page, writeWiki } from "../support/cli.js";
import {
  BASE_TIME,
  almanac,
  expectFailure,
  expectJsonFailure,
  expectOk,
  expectSyntaxScreen,
  setMtime,
  sharedSandbox,
} from "./helpers.js";

const DEPLOY = `---
title: Deploying
summary: How we ship to production
topics: [ops, concepts]
sources:
  - id: sh
    type: file
    path: src/deploy.sh
    note: The script we run
  - id: ci
    type: file
    path: ./Scripts/CI/
  - id: web
    type: web
    url: https://example.com/ship
    title: Shipping guide
    retrieved_at: 2026-07-01
---

# Deploying

The lead paragraph explains shipping [@sh] [@ci] [@web].
It spans two lines.

Second paragraph links to [login](../auth/login), [home](../README) and [nowhere](nope).

## Details

More text.
`;

const UPDATED = BASE_TIME;
const UPDATED_TEXT = new Date(UPDATED * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00");

describe("show", () => {
  const shared = sharedSandbox((box) => {
    const repo = join(box.dir, "repo");
    writeWiki(repo, {
      "README.md": page({ title: "Home", summary: "The landing page", topics: ["concepts"], sources: [], body: "# Home\n\nSee [deploying](guides/deploy)." }),
      "guides/README.md": page({ title: "Guides", topics: ["concepts"], sources: [], body: "All the guides: [deploy](deploy)." }),
      "guides/deploy.md": DEPLOY,
      "auth/login.md": page({ title: "Login", topics: ["auth"], sources: [], body: "Plain first paragraph.\n\nSee [deploying](../guides/deploy)." }),
      "empty.md": "---\ntitle: Empty\n---\n",
    });
    setMtime(almanac(repo, "guides/deploy.md"), UPDATED);
    return { repo };
  });
  const run = (args: string[]) => shared.box().run(args, { cwd: shared.fixture().repo });
  const deployPath = () => almanac(shared.fixture().repo, "guides/deploy.md");

  test("default view: aligned metadata, a rule, then the body", () => {
    const result = expectOk(run(["show", "guides/deploy"]));
    const body = DEPLOY.slice(DEPLOY.indexOf("# Deploying")).trim();
    expect(result.stdout).toBe(
      [
        "slug:       guides/deploy",
        "title:      Deploying",
        "summary:    How we ship to production",
        "topics:     concepts, ops",
        "files:      Scripts/CI/, src/deploy.sh",
        "sources:",
        "  sh [file] src/deploy.sh - The script we run",
        "  ci [file] ./Scripts/CI/",
        "  web [web] https://example.com/ship",
        `path:       ${deployPath()}`,
        `updated:    ${UPDATED_TEXT}`,
        "links:      README, auth/login, guides/nope",
        "backlinks:  README, auth/login, guides",
        "",
        "---",
        "",
        body,
        "",
      ].join("\n"),
    );
    expect(result.stderr).toBe("");
  });

  test("--meta prints the metadata header only", () => {
    const result = expectOk(run(["show", "guides/deploy", "--meta"]));
    expect(result.stdout.startsWith("slug:       guides/deploy\n")).toBe(true);
    expect(result.stdout.endsWith("backlinks:  README, auth/login, guides\n")).toBe(true);
    expect(result.stdout).not.toContain("---");
  });

  test("--meta on a page without summary, files, sources or links omits those lines", () => {
    const result = expectOk(run(["show", "empty", "--meta"]));
    const lines = result.stdout.split("\n");
    expect(lines.slice(0, 4)).toEqual(["slug:       empty", "title:      Empty", "topics:     —", `path:       ${almanac(shared.fixture().repo, "empty.md")}`]);
    expect(lines[4]).toMatch(/^updated: {4}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(lines.slice(5)).toEqual([""]);
  });

  test("--body prints the body only, newline-terminated", () => {
    const result = expectOk(run(["show", "guides/deploy", "--body"]));
    expect(result.stdout).toBe(DEPLOY.slice(DEPLOY.indexOf("# Deploying")).trim() + "\n");
  });

  test("--lead prints the first paragraph, not the H1", () => {
    const result = expectOk(run(["show", "guides/deploy", "--lead"]));
    expect(result.stdout).toBe("The lead paragraph explains shipping [@sh] [@ci] [@web].\nIt spans two lines.\n");
    expect(expectOk(run(["show", "auth/login", "--lead"])).stdout).toBe("Plain first paragraph.\n");
  });

  test("--links lists resolved outgoing targets, including ones that do not exist", () => {
    expect(expectOk(run(["show", "guides/deploy", "--links"])).stdout).toBe("README\nauth/login\nguides/nope\n");
  });

  test("--backlinks lists the pages linking here; a folder README links from its folder", () => {
    expect(expectOk(run(["show", "guides/deploy", "--backlinks"])).stdout).toBe("README\nauth/login\nguides\n");
  });

  test("--files lists cited files and folders in their written case", () => {
    expect(expectOk(run(["show", "guides/deploy", "--files"])).stdout).toBe("Scripts/CI/\nsrc/deploy.sh\n");
  });

  test("--topics lists the page's topics sorted", () => {
    expect(expectOk(run(["show", "guides/deploy", "--topics"])).stdout).toBe("concepts\nops\n");
  });

  test("list views and --body print nothing on stdout when empty; the list views say so on stderr", () => {
    const said: Record<string, string> = {
      "--body": "",
      "--lead": "",
      "--links": "codealmanac: empty: links to no other page\n",
      "--backlinks": "codealmanac: empty: no page links here\n",
      "--files": "codealmanac: empty: cites no repository files\n",
      "--topics": "codealmanac: empty: has no topics\n",
    };
    for (const [flag, stderr] of Object.entries(said)) {
      const result = run(["show", "empty", flag]);
      expect(result.code, flag).toBe(0);
      expect(result.stdout, flag).toBe("");
      expect(result.stderr, flag).toBe(stderr);
    }
  });

  test("default view of a page with an empty body has no rule", () => {
    const result = expectOk(run(["show", "empty"]));
    expect(result.stdout).not.toContain("---");
    expect(result.stdout.startsWith("slug:       empty\n")).toBe(true);
  });

  test("two view flags conflict: exit 1 naming them in canonical order", () => {
    expectFailure(run(["show", "guides/deploy", "--body", "--meta"]), "show flags conflict: --body, --meta (pick one)");
    expectFailure(run(["show", "guides/deploy", "--meta", "--body"]), "show flags conflict: --body, --meta (pick one)");
    expectFailure(
      run(["show", "guides/deploy", "--topics", "--files", "--lead", "--backlinks", "--links"]),
      "show flags conflict: --lead, --links, --backlinks, --files, --topics (pick one)",
    );
  });

  test("a conflict under --json is moot: JSON wins over view flags", () => {
    const result = expectOk(run(["show", "guides/deploy", "--body", "--meta", "--json"]));
    expect(result.json<{ slug: string }>().slug).toBe("guides/deploy");
  });

  test("--json prints the whole page view with every field", () => {
    const result = expectOk(run(["show", "guides/deploy", "--json"]));
    const view = result.json<Record<string, unknown>>();
    expect(Object.keys(view)).toEqual([
      "slug",
      "title",
      "summary",
      "file_path",
      "updated_at",
      "topics",
      "sources",
      "file_refs",
      "page_links_out",
      "page_links_in",
      "cross_wiki_links",
      "body",
      "truncated",
      "file_size",
      "freshness",
    ]);
    expect(view).toEqual({
      slug: "guides/deploy",
      title: "Deploying",
      summary: "How we ship to production",
      file_path: deployPath(),
      updated_at: UPDATED,
      topics: ["concepts", "ops"],
      sources: [
        { source_id: "sh", source_type: "file", target: "src/deploy.sh", title: null, retrieved_at: null, note: "The script we run", lines: null },
        { source_id: "ci", source_type: "file", target: "./Scripts/CI/", title: null, retrieved_at: null, note: null, lines: null },
        {
          source_id: "web",
          source_type: "web",
          target: "https://example.com/ship",
          title: "Shipping guide",
          retrieved_at: expect.stringMatching(/^2026-07-01/) as unknown as string,
          note: null,
          lines: null,
        },
      ],
      file_refs: [
        { path: "Scripts/CI/", is_dir: true },
        { path: "src/deploy.sh", is_dir: false },
      ],
      page_links_out: ["README", "auth/login", "guides/nope"],
      page_links_in: ["README", "auth/login", "guides"],
      cross_wiki_links: [],
      body: DEPLOY.slice(DEPLOY.indexOf("# Deploying")).trim(),
      truncated: false,
      file_size: Buffer.byteLength(DEPLOY),
      // Not a git repository: the unstamped file source cannot be judged, and that is no error.
      freshness: { status: "unknown", reason: "unstamped, and there is no git history to check it against", verified_at: null },
    });
    expect(result.stdout.endsWith("}\n")).toBe(true);
    expect(result.stderr).toBe("");
  });

  test("--json of a page without a summary has null, not a missing key", () => {
    const view = expectOk(run(["show", "empty", "--json"])).json<Record<string, unknown>>();
    expect(view.summary).toBeNull();
    expect(view.body).toBe("");
    expect(view.topics).toEqual([]);
    expect(view.sources).toEqual([]);
  });

  test("tolerates a .md suffix, an almanac/ prefix, a trailing slash and letter case", () => {
    const cases: [string, string][] = [
      ["guides/deploy.md", "guides/deploy"],
      ["almanac/guides/deploy.md", "guides/deploy"],
      ["./almanac/guides/deploy.md", "guides/deploy"],
      ["almanac/guides/deploy", "guides/deploy"],
      ["guides/deploy/", "guides/deploy"],
      ["GUIDES/Deploy", "guides/deploy"],
      ["Guides/Deploy.md", "guides/deploy"],
      ["guides/", "guides"],
      ["guides/README.md", "guides"],
      ["almanac/guides/README.md", "guides"],
      ["README.md", "README"],
      ["almanac/README.md", "README"],
      ["readme", "README"],
      [" guides/deploy ", "guides/deploy"],
    ];
    for (const [input, slug] of cases) {
      const result = run(["show", input, "--json"]);
      expect(result.code, `${input}: ${result.stderr}`).toBe(0);
      expect(result.json<{ slug: string }>().slug, input).toBe(slug);
    }
  });

  test("not found suggests close slugs", () => {
    expectFailure(run(["show", "deploy"]), "page not found: deploy (did you mean guides/deploy?)");
    expectFailure(run(["show", "guides/deplyo"]), /^codealmanac: page not found: guides\/deplyo \(did you mean guides\/deploy\b/);
  });

  test("not found without a close slug has no suggestion", () => {
    expectFailure(run(["show", "zzzzqqq"]), "page not found: zzzzqqq");
  });

  test("not found under --json is a JSON error on stderr", () => {
    expectJsonFailure(run(["show", "zzzzqqq", "--json"]), "not_found", "page not found: zzzzqqq");
  });

  test("an empty page argument is a validation error", () => {
    expectFailure(run(["show", ""]), "page slug must not be empty");
    expectFailure(run(["show", "   "]), "page slug must not be empty");
  });

  test("a missing page argument is a syntax error", () => {
    const screen = expectSyntaxScreen(run(["show"]), "Missing argument");
    expect(screen).toContain("Show options");
  });

  test("an unknown view flag is a syntax error", () => {
    const screen = expectSyntaxScreen(run(["show", "guides/deploy", "--title"]), "Unknown option");
    expect(screen).toContain("--title");
  });
});

describe("show: links and citations", () => {
  const shared = sharedSandbox((box) => {
    const repo = join(box.dir, "repo");
    writeWiki(repo, {
      "README.md": page({
        title: "Home",
        topics: ["concepts"],
        sources: [],
        body: [
          "Links: [a](x.md) [b](x) [c](dir/) [d](dir/README.md) [e](dir) [f](src/app.ts) [g](x.md#part) [h](https://example.com) [i](#top)",
          "",
          "Documenting the syntax: `[@source-id]` and `[gone](gone)`.",
          "",
          "```",
          "[@in-a-fence] [fenced](fenced)",
          "```",
        ].join("\n"),
      }),
      "x.md": page({ title: "X", topics: ["concepts"], sources: [], body: "X." }),
      "dir/README.md": page({ title: "Dir", topics: ["concepts"], sources: [], body: "Up to [home](../README.md)." }),
    });
    return { repo };
  });
  const run = (args: string[]) => shared.box().run(args, { cwd: shared.fixture().repo });

  test("x.md, x, dir/, dir and dir/README.md all resolve to pages; files, URLs and anchors do not", () => {
    expect(expectOk(run(["show", "README", "--links"])).stdout).toBe("dir\nx\n");
    expect(expectOk(run(["show", "dir", "--links"])).stdout).toBe("README\n");
    expect(expectOk(run(["show", "x", "--backlinks"])).stdout).toBe("README\n");
  });

  test("citations and links inside code are not findings", () => {
    const result = run(["validate", "--json"]);
    expect(result.code).toBe(0);
    expect(result.json<{ issues: unknown[] }>().issues).toEqual([]);
  });
});
