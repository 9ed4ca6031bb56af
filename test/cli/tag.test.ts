import { describe, expect, test } from "vitest";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { page, writeWiki, type Sandbox } from "../support/cli.js";
import { BASE_TIME, almanac, expectFailure, expectJsonFailure, expectOk, expectSyntaxScreen, freshSandboxes, setMtime } from "./helpers.js";

const NOTE = `---
# maintained by hand
title: Note
topics: [concepts] # the only one
sources: []
---

# Note

Body stays exactly as written.   
`;

const TOPICS = "topics:\n  - slug: concepts\n    title: Concepts\n    parents: []\n";

function noteWiki(box: Sandbox, extra: Record<string, string> = {}): string {
  return writeWiki(join(box.dir, "repo"), { "note.md": NOTE, ...extra }, TOPICS);
}

const read = (repo: string, rel: string) => readFileSync(almanac(repo, rel), "utf8");
const mtime = (repo: string, rel: string) => statSync(almanac(repo, rel)).mtimeMs;

describe("tag and untag", () => {
  const fresh = freshSandboxes();

  test("tag appends new topics to the list, touching nothing else", () => {
    const box = fresh();
    const repo = noteWiki(box);
    expect(expectOk(box.run(["tag", "note", "Ops Work", "security"], { cwd: repo })).stdout).toBe("note: tagged ops-work, security\n");
    expect(read(repo, "note.md")).toBe(NOTE.replace("topics: [concepts]", "topics: [concepts, ops-work, security]"));
    expect(expectOk(box.run(["show", "note", "--topics"], { cwd: repo })).stdout).toBe("concepts\nops-work\nsecurity\n");
    expect(read(repo, "topics.yaml")).toBe(TOPICS);
  });

  test("tag --json reports requested, changed and unchanged topics", () => {
    const box = fresh();
    const repo = noteWiki(box);
    expect(expectOk(box.run(["tag", "note", "concepts", "ops", "ops", "--json"], { cwd: repo })).json()).toEqual({
      slug: "note",
      topics: ["concepts", "ops"],
      changed: ["ops"],
      unchanged: ["concepts"],
    });
  });

  test("tagging with topics already present is a no-op that never rewrites the file", () => {
    const box = fresh();
    const repo = noteWiki(box);
    setMtime(almanac(repo, "note.md"), BASE_TIME);
    const result = expectOk(box.run(["tag", "note", "Concepts"], { cwd: repo }));
    expect(result.stdout).toBe("note: already tagged concepts\n");
    expect(mtime(repo, "note.md")).toBe(BASE_TIME * 1000);
    expect(read(repo, "note.md")).toBe(NOTE);
    expect(expectOk(box.run(["tag", "note", "concepts", "--json"], { cwd: repo })).json()).toEqual({
      slug: "note",
      topics: ["concepts"],
      changed: [],
      unchanged: ["concepts"],
    });
    expect(mtime(repo, "note.md")).toBe(BASE_TIME * 1000);
  });

  test("untag of a topic the page does not have is a no-op that never rewrites the file", () => {
    const box = fresh();
    const repo = noteWiki(box);
    setMtime(almanac(repo, "note.md"), BASE_TIME);
    expect(expectOk(box.run(["untag", "note", "nope", "other"], { cwd: repo })).stdout).toBe("note: not tagged nope, other\n");
    expect(expectOk(box.run(["untag", "note", "nope", "--json"], { cwd: repo })).json()).toEqual({
      slug: "note",
      topics: ["nope"],
      changed: [],
      unchanged: ["nope"],
    });
    expect(mtime(repo, "note.md")).toBe(BASE_TIME * 1000);
    expect(read(repo, "note.md")).toBe(NOTE);
  });

  test("untag removes topics; removing the last one leaves an empty list and an orphan", () => {
    const box = fresh();
    const repo = noteWiki(box);
    expectOk(box.run(["tag", "note", "ops"], { cwd: repo }));
    expect(expectOk(box.run(["untag", "note", "concepts", "--json"], { cwd: repo })).json()).toEqual({
      slug: "note",
      topics: ["concepts"],
      changed: ["concepts"],
      unchanged: [],
    });
    expect(expectOk(box.run(["untag", "note", "ops"], { cwd: repo })).stdout).toBe("note: untagged ops\n");
    expect(read(repo, "note.md")).toBe(NOTE.replace("topics: [concepts]", "topics: []"));
    const health = expectOk(box.run(["health", "--json"], { cwd: repo })).json<{ orphans: { slug: string }[] }>();
    expect(health.orphans).toEqual([{ slug: "note" }]);
  });

  test("a page without front matter gains a block and keeps its text", () => {
    const box = fresh();
    const bare = "# Bare\n\nNo front matter here.\n";
    const repo = noteWiki(box, { "bare.md": bare });
    expect(expectOk(box.run(["tag", "bare", "concepts"], { cwd: repo })).stdout).toBe("bare: tagged concepts\n");
    expect(read(repo, "bare.md")).toBe(`---\ntopics:\n  - concepts\n---\n${bare}`);
    expect(expectOk(box.run(["show", "bare", "--json"], { cwd: repo })).json<{ title: string; topics: string[] }>()).toMatchObject({
      title: "Bare",
      topics: ["concepts"],
    });
  });

  test("the page is found with show's tolerance", () => {
    const box = fresh();
    const repo = noteWiki(box, { "guides/deploy.md": page({ title: "Deploy", topics: [], body: "Ship." }) });
    expect(expectOk(box.run(["tag", "almanac/guides/Deploy.md", "ops"], { cwd: repo })).stdout).toBe("guides/deploy: tagged ops\n");
  });

  test("tag never edits topics.yaml, so a new topic is undeclared (a warning)", () => {
    const box = fresh();
    const repo = noteWiki(box);
    expectOk(box.run(["tag", "note", "brand-new"], { cwd: repo }));
    expect(read(repo, "topics.yaml")).toBe(TOPICS);
    const result = box.run(["validate", "--json"], { cwd: repo });
    expect(result.code).toBe(0);
    const issues = result.json<{ issues: { category: string; topic: string | null }[] }>().issues;
    expect(issues).toContainEqual(expect.objectContaining({ category: "undeclared_topic", topic: "brand-new" }));
  });

  test("topics that kebab-case to nothing are a validation error", () => {
    const box = fresh();
    const repo = noteWiki(box);
    expectFailure(box.run(["tag", "note", "!!!", "  "], { cwd: repo }), "topics must not be empty");
    expectJsonFailure(box.run(["untag", "note", "...", "--json"], { cwd: repo }), "validation_failed", "topics must not be empty");
    expect(read(repo, "note.md")).toBe(NOTE);
  });

  test("an unknown page is not found", () => {
    const box = fresh();
    const repo = noteWiki(box);
    expectFailure(box.run(["tag", "zzzqqq", "ops"], { cwd: repo }), "page not found: zzzqqq");
    expectJsonFailure(box.run(["untag", "zzzqqq", "ops", "--json"], { cwd: repo }), "not_found", "page not found: zzzqqq");
  });

  test("a missing topic argument is a syntax error", () => {
    const box = fresh();
    const repo = noteWiki(box);
    const screen = expectSyntaxScreen(box.run(["tag", "note"], { cwd: repo }), "Missing argument");
    expect(screen).toContain("Tagging");
    expectSyntaxScreen(box.run(["untag"], { cwd: repo }), "Missing argument");
  });

  test("a page with broken front matter is refused and left untouched", () => {
    const box = fresh();
    const broken = "---\ntitle: [unclosed\ntopics: [a]\n---\n\nSearchable body text.\n";
    const repo = noteWiki(box, { "broken.md": broken });
    expectFailure(box.run(["tag", "broken", "ops"], { cwd: repo }), /^codealmanac: invalid frontmatter: .*broken\.md$/);
    expect(read(repo, "broken.md")).toBe(broken);
  });

  test("--wiki selects the page's wiki from anywhere", () => {
    const box = fresh();
    const repo = noteWiki(box);
    expectOk(box.run(["search"], { cwd: repo }));
    expect(expectOk(box.run(["tag", "note", "ops", "--wiki", "repo"], { cwd: box.home })).stdout).toBe("note: tagged ops\n");
    expect(expectOk(box.run(["untag", "--wiki", "repo", "note", "ops"], { cwd: box.home })).stdout).toBe("note: untagged ops\n");
  });
});
