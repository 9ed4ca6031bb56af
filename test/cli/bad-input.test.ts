import { describe, expect, test } from "vitest";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, writeWiki, type Sandbox } from "../support/cli.js";
import { almanac, expectFailure, expectOk, freshSandboxes, setMtime, sharedSandbox, slugs } from "./helpers.js";

interface Issue {
  category: string;
  severity: string;
  page: string | null;
  path: string | null;
}

const good = (body: string, topics = ["concepts"]) => page({ title: "Good", topics, sources: [], body });

/** 10 MB: a marker word at the start, filler, and a marker word past the first 2 MB. */
function hugePage(): string {
  const head = "---\ntitle: Huge\ntopics: [concepts]\nsources: []\n---\n\nThe capybara opening paragraph.\n\n";
  const line = "filler words repeated to make this page very large indeed\n";
  const filler = line.repeat(Math.ceil((10 * 1024 * 1024) / line.length));
  return `${head}${filler}\nThe ocelot closing paragraph.\n`;
}

function everythingWrong(box: Sandbox): string {
  const repo = writeWiki(join(box.dir, "repo"), {
    "healthy.md": good("The platypus page is perfectly fine."),
    "broken-yaml.md": "---\ntitle: [unclosed\ntopics: [concepts]\n---\n\nThe narwhal body survives broken front matter.\n",
    "huge.md": hugePage(),
    "guide.md": good("The flat guide about axolotls."),
    "guide/README.md": good("The folder guide about axolotls."),
  });
  writeFileSync(almanac(repo, "latin1.md"), Buffer.from("---\ntitle: Caf\xe9\n---\n\nThe pangolin caf\xe9.\n", "latin1"));
  writeFileSync(almanac(repo, "picture.md"), Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n"), Buffer.alloc(64), Buffer.from("pangolin")]));
  mkdirSync(almanac(repo, "loops"));
  symlinkSync("..", almanac(repo, "loops", "back-up"));
  symlinkSync("self.md", almanac(repo, "loops", "self.md"));
  return repo;
}

describe("a wiki with every kind of bad file keeps working", () => {
  const shared = sharedSandbox((box) => ({ repo: everythingWrong(box) }));
  const run = (args: string[]) => shared.box().run(args, { cwd: shared.fixture().repo });

  test("search finds the healthy pages and never crashes", () => {
    expect(slugs(expectOk(run(["search", "platypus", "--json"])))).toEqual(["healthy"]);
    const all = slugs(expectOk(run(["search", "--json"]))).sort();
    expect(all).toEqual(["README", "broken-yaml", "guide", "healthy", "huge"]);
  });

  test("a page with malformed front matter is indexed by its body, without the YAML", () => {
    expect(slugs(expectOk(run(["search", "narwhal", "--json"])))).toEqual(["broken-yaml"]);
    expect(slugs(expectOk(run(["search", "unclosed", "--json"])))).toEqual([]);
    expect(expectOk(run(["show", "broken-yaml", "--body"])).stdout).toBe("The narwhal body survives broken front matter.\n");
    const view = expectOk(run(["show", "broken-yaml", "--json"])).json<{ title: string; topics: string[] }>();
    expect(view.title).toBe("broken-yaml");
    expect(view.topics).toEqual([]);
  });

  test("a 10 MB page is indexed from its first 2 MB", () => {
    expect(slugs(expectOk(run(["search", "capybara", "--json"])))).toEqual(["huge"]);
    expect(slugs(expectOk(run(["search", "ocelot", "--json"])))).toEqual([]);
    const meta = expectOk(run(["show", "huge", "--meta"]));
    expect(meta.stdout).toContain("title:      Huge\n");
    expect(expectOk(run(["show", "huge", "--lead"])).stdout).toBe("The capybara opening paragraph.\n");
  });

  test("undecodable and binary pages are skipped: not found, never a crash", () => {
    expect(slugs(expectOk(run(["search", "pangolin", "--json"])))).toEqual([]);
    expectFailure(run(["show", "latin1"]), /^codealmanac: page not found: latin1/);
    expectFailure(run(["show", "picture"]), /^codealmanac: page not found: picture/);
  });

  test("the route collision keeps the first path in component order", () => {
    const view = expectOk(run(["show", "guide", "--json"])).json<{ file_path: string; body: string }>();
    expect(view.file_path).toBe(almanac(shared.fixture().repo, "guide", "README.md"));
    expect(view.body).toBe("The folder guide about axolotls.");
    expect(slugs(expectOk(run(["search", "axolotls", "--json"])))).toEqual(["guide"]);
  });

  test("health still reports (exit 0) and topics still list", () => {
    const health = expectOk(run(["health", "--json"])).json<Record<string, unknown[]>>();
    expect(health.orphans).toEqual([{ slug: "broken-yaml" }]);
    expect(expectOk(run(["topics", "--json"])).json<{ slug: string; page_count: number }[]>()).toEqual([
      expect.objectContaining({ slug: "concepts", page_count: 4 }),
    ]);
  });

  test("validate names every problem with its severity and fails on the errors", () => {
    const result = run(["validate", "--json"]);
    expect(result.code).toBe(1);
    const issues = result.json<{ issues: Issue[]; errors: number; warnings: number }>();
    const summary = issues.issues.map((i) => `${i.severity} ${i.category} ${i.path ?? i.page}`).sort();
    expect(summary).toEqual(
      [
        "error frontmatter_invalid broken-yaml.md",
        "error page_routes guide.md",
        "error page_undecodable latin1.md",
        "warning binary_page picture.md",
        "warning orphans broken-yaml",
        "warning page_truncated huge.md",
        "warning symlink_loop loops/back-up",
        "warning symlink_loop loops/self.md",
      ].sort(),
    );
    expect(issues.errors).toBe(3);
    expect(issues.warnings).toBe(5);
  });

  test("reindex counts the skipped files", () => {
    expect(expectOk(run(["reindex", "--json"])).json()).toEqual({
      changed: 5,
      removed: 0,
      pages_indexed: 5,
      files_seen: 8,
      files_skipped: 3,
    });
  });
});

describe("bad files heal as they are fixed", () => {
  const fresh = freshSandboxes();

  test("a front matter key that is a list reaches the user as a page problem, never as a library's Node warning", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "odd.md": "---\ntitle: Odd\ntopics: [concepts]\n? [a, b]\n: 1\n---\n\nThe quokka page.\n",
    });
    const show = box.run(["show", "odd"], { cwd: repo });
    const validate = box.run(["validate", "--json"], { cwd: repo });
    for (const result of [show, validate]) expect(result.stderr).not.toMatch(/Warning|stringified/);
    const issues = validate.json<{ issues: Issue[] }>().issues;
    expect(issues).toContainEqual(expect.objectContaining({ category: "frontmatter_invalid", severity: "error", page: "odd" }));
    expect(validate.stdout).toContain("front matter is not valid YAML (line 4): a key is a mapping or a list; keys must be plain text");
  });

  test("fixing an undecodable page indexes it on the next read", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {});
    const path = almanac(repo, "latin1.md");
    writeFileSync(path, Buffer.from("The pangolin caf\xe9.\n", "latin1"));
    expect(slugs(expectOk(box.run(["search", "pangolin", "--json"], { cwd: repo })))).toEqual([]);
    writeFileSync(path, good("The pangolin café."));
    expect(slugs(expectOk(box.run(["search", "pangolin", "--json"], { cwd: repo })))).toEqual(["latin1"]);
    expect(box.run(["validate"], { cwd: repo }).code).toBe(0);
  });

  test("removing the route owner hands the route to the other file; adding it back takes it again", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "guide.md": good("The flat guide."),
      "guide/README.md": good("The folder guide."),
    });
    // A modification time in the future keeps guide.md inside the index's racy window, so
    // every refresh re-hashes it: the path where a stale "collision" row used to survive.
    setMtime(almanac(repo, "guide.md"), Math.floor(Date.now() / 1000) + 86_400);
    expect(expectOk(box.run(["show", "guide", "--body"], { cwd: repo })).stdout).toBe("The folder guide.\n");
    rmSync(almanac(repo, "guide", "README.md"));
    expect(expectOk(box.run(["show", "guide", "--body"], { cwd: repo })).stdout).toBe("The flat guide.\n");
    expect(box.run(["validate"], { cwd: repo }).code).toBe(0);
    writeFileSync(almanac(repo, "guide", "README.md"), good("The folder guide is back."));
    expect(expectOk(box.run(["show", "guide", "--body"], { cwd: repo })).stdout).toBe("The folder guide is back.\n");
    expect(box.run(["validate"], { cwd: repo }).code).toBe(1);
  });

  test("a binary route owner yields the route to the next readable file", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), { "guide.md": good("The flat guide.") });
    mkdirSync(almanac(repo, "guide"));
    writeFileSync(almanac(repo, "guide", "README.md"), Buffer.from([0, 0, 0, 1]));
    expect(expectOk(box.run(["show", "guide", "--body"], { cwd: repo })).stdout).toBe("The flat guide.\n");
  });

  test("odd but valid pages: BOM, CRLF, empty file, no front matter", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "bom.md": "\uFEFF---\ntitle: With BOM\ntopics: [concepts]\n---\n\nBody of the bom page.\n",
      "crlf.md": "---\r\ntitle: With CRLF\r\ntopics: [concepts]\r\n---\r\n\r\n# Heading\r\n\r\nThe crlf lead.\r\n",
      "empty.md": "",
      "plain.md": "# Plain Title\n\nNo front matter at all.\n",
    });
    const show = (slug: string) => expectOk(box.run(["show", slug, "--json"], { cwd: repo })).json<{ title: string; topics: string[]; body: string }>();
    expect(show("bom")).toMatchObject({ title: "With BOM", topics: ["concepts"], body: "Body of the bom page." });
    expect(show("crlf")).toMatchObject({ title: "With CRLF", topics: ["concepts"] });
    expect(expectOk(box.run(["show", "crlf", "--lead"], { cwd: repo })).stdout.trim()).toBe("The crlf lead.");
    expect(show("empty")).toMatchObject({ title: "empty", topics: [], body: "" });
    expect(show("plain")).toMatchObject({ title: "Plain Title", topics: [] });
  });

  test("only root-level manual/ and jobs/ are reserved; other files are ignored", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "manual/how-to-write.md": good("Manual text about lemurs."),
      "architecture/manual/worker.md": good("Nested manual folder about lemurs."),
      "notes.txt": "lemurs in a text file",
      "draft.markdown": "lemurs in a .markdown file",
      ".obsidian/cache.md": good("Hidden lemurs."),
    });
    expect(slugs(expectOk(box.run(["search", "lemurs", "--json"], { cwd: repo })))).toEqual(["architecture/manual/worker"]);
  });
});
