import { describe, expect, test } from "vitest";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, writeWiki, type Sandbox } from "../support/cli.js";
import { almanac, expectFailure, expectJsonFailure, expectOk, freshSandboxes, slugs } from "./helpers.js";

const NO_REPOSITORY = "No repository selected. Run inside a repository with an almanac/ wiki, or pass --wiki <name>.";

interface Listing {
  repository: {
    repository_id: string;
    name: string;
    description: string;
    root_path: string;
    almanac_root: string;
    almanac_path: string;
    registered_at: string;
  };
  status: string;
}

/** A wiki whose one page carries a marker word, so a search tells which wiki answered. */
function markedWiki(root: string, marker: string): string {
  return writeWiki(root, { "marker.md": page({ title: "Marker", topics: ["concepts"], sources: [], body: `The ${marker} wiki.` }) });
}

const list = (box: Sandbox) => expectOk(box.run(["list", "--json"], { cwd: box.home })).json<Listing[]>();

describe("selection", () => {
  const fresh = freshSandboxes();

  test("walks up from any subfolder, inside or outside almanac/", () => {
    const box = fresh();
    const repo = markedWiki(join(box.dir, "repo"), "alpha");
    mkdirSync(join(repo, "src", "deep", "deeper"), { recursive: true });
    for (const cwd of [repo, almanac(repo), join(repo, "src", "deep", "deeper")]) {
      const result = box.run(["search", "alpha", "--json"], { cwd });
      expect(result.code, `${cwd}: ${result.stderr}`).toBe(0);
      expect(slugs(result)).toEqual(["marker"]);
    }
  });

  test("a read auto-registers the wiki under its folder name; list itself registers nothing", () => {
    const box = fresh();
    const repo = markedWiki(join(box.dir, "My Project"), "alpha");
    expect(list(box)).toEqual([]);
    expect(expectOk(box.run(["list"], { cwd: repo })).stdout).toBe("no wikis registered. run `codealmanac init` in a repo to create one.\n");
    const search = expectOk(box.run(["search", "alpha"], { cwd: repo }));
    expect(search.stderr).toBe("");
    const listed = list(box);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.repository.name).toBe("my-project");
    expect(listed[0]!.repository.root_path).toBe(repo);
  });

  test("the nearest wiki wins over an enclosing one", () => {
    const box = fresh();
    const outer = markedWiki(join(box.dir, "outer"), "outer");
    const inner = markedWiki(join(outer, "packages", "inner"), "inner");
    mkdirSync(join(inner, "lib"), { recursive: true });
    expect(slugs(expectOk(box.run(["search", "inner", "--json"], { cwd: join(inner, "lib") })))).toEqual(["marker"]);
    expect(slugs(expectOk(box.run(["search", "inner", "--json"], { cwd: join(outer, "packages") })))).toEqual([]);
    expect(list(box).map((l) => l.repository.name).sort()).toEqual(["inner", "outer"]);
  });

  test("a folder that only has almanac/ without README.md and topics.yaml is not a wiki", () => {
    const box = fresh();
    const repo = join(box.dir, "half");
    mkdirSync(join(repo, "almanac"), { recursive: true });
    writeFileSync(join(repo, "almanac", "README.md"), "# Home\n");
    expectFailure(box.run(["search", "x"], { cwd: repo }), NO_REPOSITORY);
  });

  test("outside any wiki: one line, or a JSON error under --json", () => {
    const box = fresh();
    for (const args of [["search", "x"], ["show", "x"], ["topics"], ["tag", "x", "y"], ["reindex"], ["validate"]]) {
      expectFailure(box.run(args, { cwd: box.home }), NO_REPOSITORY);
    }
    expectJsonFailure(box.run(["search", "x", "--json"], { cwd: box.home }), "repository_not_selected", NO_REPOSITORY);
    expectJsonFailure(box.run(["topics", "--json"], { cwd: box.home }), "repository_not_selected", NO_REPOSITORY);
  });

  test("--wiki overrides the cwd and matches names case-insensitively", () => {
    const box = fresh();
    const alpha = markedWiki(join(box.dir, "alpha"), "alpha");
    const beta = markedWiki(join(box.dir, "beta"), "beta");
    expectOk(box.run(["search"], { cwd: alpha }));
    expectOk(box.run(["search"], { cwd: beta }));
    expect(slugs(expectOk(box.run(["search", "beta", "--wiki", "beta", "--json"], { cwd: alpha })))).toEqual(["marker"]);
    expect(slugs(expectOk(box.run(["search", "alpha", "--wiki", "beta", "--json"], { cwd: alpha })))).toEqual([]);
    expect(slugs(expectOk(box.run(["search", "beta", "--wiki", "BETA", "--json"], { cwd: box.home })))).toEqual(["marker"]);
  });

  test("--wiki with an unknown or empty name fails", () => {
    const box = fresh();
    expectFailure(box.run(["search", "--wiki", "ghost"], { cwd: box.home }), "repository not found: ghost");
    expectJsonFailure(box.run(["show", "x", "--wiki", "ghost", "--json"], { cwd: box.home }), "not_found", "repository not found: ghost");
    expectFailure(box.run(["search", "--wiki", "  "], { cwd: box.home }), "--wiki must not be empty");
  });

  test("a name clash takes the next free suffix with exactly one notice line, and reads still succeed", () => {
    const box = fresh();
    const first = markedWiki(join(box.dir, "one", "app"), "first");
    const second = markedWiki(join(box.dir, "two", "app"), "second");
    const third = markedWiki(join(box.dir, "three", "app"), "third");
    const a = expectOk(box.run(["search", "first", "--json"], { cwd: first }));
    expect(a.stderr).toBe("");
    const b = expectOk(box.run(["search", "second", "--json"], { cwd: second }));
    expect(slugs(b)).toEqual(["marker"]);
    expect(b.stderr).toBe(`codealmanac: the name "app" is taken by another checkout; registered ${second} as "app-2"\n`);
    const again = expectOk(box.run(["search", "second", "--json"], { cwd: second }));
    expect(again.stderr).toBe("");
    const c = expectOk(box.run(["search", "third"], { cwd: third }));
    expect(c.stdout).toBe("marker\n");
    expect(c.stderr.split("\n").filter((l) => l !== "")).toEqual([
      `codealmanac: the name "app" is taken by another checkout; registered ${third} as "app-3"`,
    ]);
    expect(list(box).map((l) => [l.repository.name, l.repository.root_path])).toEqual([
      ["app", first],
      ["app-2", second],
      ["app-3", third],
    ]);
    expect(slugs(expectOk(box.run(["search", "second", "--wiki", "app-2", "--json"], { cwd: first })))).toEqual(["marker"]);
  });

  test("a registered root whose wiki was removed reports the missing almanac/", () => {
    const box = fresh();
    const repo = markedWiki(join(box.dir, "repo"), "alpha");
    expectOk(box.run(["search"], { cwd: repo }));
    rmSync(almanac(repo), { recursive: true });
    mkdirSync(join(repo, "src"));
    expectFailure(box.run(["search"], { cwd: join(repo, "src") }), `Almanac root not found: ${almanac(repo)}`);
  });
});

describe("list", () => {
  const fresh = freshSandboxes();

  test("--json reports every registration with its status, sorted by name", () => {
    const box = fresh();
    const available = markedWiki(join(box.dir, "Zeta"), "z");
    const gone = markedWiki(join(box.dir, "alpha"), "a");
    const hollow = markedWiki(join(box.dir, "middle"), "m");
    for (const repo of [available, gone, hollow]) expectOk(box.run(["search"], { cwd: repo }));
    rmSync(gone, { recursive: true });
    rmSync(almanac(hollow, "topics.yaml"));
    const listed = list(box);
    expect(listed.map((l) => [l.repository.name, l.status])).toEqual([
      ["alpha", "missing_repo"],
      ["middle", "missing_almanac"],
      ["zeta", "available"],
    ]);
    const zeta = listed[2]!;
    expect(Object.keys(zeta)).toEqual(["repository", "status"]);
    expect(zeta.repository).toEqual({
      repository_id: expect.stringMatching(/^repo_[0-9a-f]{16}$/) as unknown as string,
      name: "zeta",
      description: "",
      root_path: available,
      almanac_root: "almanac",
      almanac_path: almanac(available),
      registered_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/) as unknown as string,
    });
  });

  test("human output: name and description, then the root; missing ones are marked", () => {
    const box = fresh();
    const one = markedWiki(join(box.dir, "one"), "1");
    const longer = markedWiki(join(box.dir, "longer-name"), "2");
    expectOk(box.run(["search"], { cwd: one }));
    expectOk(box.run(["search"], { cwd: longer }));
    rmSync(one, { recursive: true });
    const result = expectOk(box.run(["list"], { cwd: box.home }));
    expect(result.stdout).toBe(
      ["longer-name  —", `             ${longer}`, "one          —  (missing)", `             ${one}`, ""].join("\n"),
    );
  });

  test("list takes no --wiki", () => {
    const box = fresh();
    const result = box.run(["list", "--wiki", "x"], { cwd: box.home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option");
  });
});

describe("forget", () => {
  const fresh = freshSandboxes();

  test("drops the registration and its index folder; past state is gone from list", () => {
    const box = fresh();
    const repo = markedWiki(join(box.dir, "repo"), "alpha");
    expectOk(box.run(["search", "alpha"], { cwd: repo }));
    const [listing] = list(box);
    const indexDir = join(box.state, "repos", listing!.repository.repository_id);
    expect(existsSync(join(indexDir, "index.db"))).toBe(true);
    const result = expectOk(box.run(["forget", "repo"], { cwd: box.home }));
    expect(result.stdout).toBe(`forgot repo (${repo}); its past jobs stay listed\n`);
    expect(existsSync(indexDir)).toBe(false);
    expect(list(box)).toEqual([]);
    // The wiki itself is untouched and registers again on the next read.
    expect(slugs(expectOk(box.run(["search", "alpha", "--json"], { cwd: repo })))).toEqual(["marker"]);
    expect(list(box).map((l) => l.repository.name)).toEqual(["repo"]);
  });

  test("--json prints the forgotten registration", () => {
    const box = fresh();
    const repo = markedWiki(join(box.dir, "repo"), "alpha");
    expectOk(box.run(["search"], { cwd: repo }));
    const [before] = list(box);
    const result = expectOk(box.run(["forget", "REPO", "--json"], { cwd: box.home }));
    expect(result.json()).toEqual({ forgotten: before!.repository });
  });

  test("forgets a repository whose folder is gone, freeing its name", () => {
    const box = fresh();
    const old = markedWiki(join(box.dir, "old", "app"), "old");
    expectOk(box.run(["search"], { cwd: old }));
    rmSync(join(box.dir, "old"), { recursive: true });
    expectOk(box.run(["forget", "app"], { cwd: box.home }));
    const fresh2 = markedWiki(join(box.dir, "new", "app"), "new");
    const read = expectOk(box.run(["search", "new", "--json"], { cwd: fresh2 }));
    expect(read.stderr).toBe("");
    expect(list(box).map((l) => [l.repository.name, l.status])).toEqual([["app", "available"]]);
  });

  test("an unknown name is not found; a missing name is a syntax error", () => {
    const box = fresh();
    expectFailure(box.run(["forget", "ghost"], { cwd: box.home }), "repository not found: ghost");
    expectJsonFailure(box.run(["forget", "ghost", "--json"], { cwd: box.home }), "not_found", "repository not found: ghost");
    const result = box.run(["forget"], { cwd: box.home });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Missing argument");
  });
});

describe("reindex", () => {
  const fresh = freshSandboxes();

  test("--json reports the forced rebuild's counters", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "a.md": page({ title: "A", topics: ["concepts"], sources: [], body: "A." }),
      "b.md": page({ title: "B", topics: ["concepts"], sources: [], body: "B." }),
    });
    const result = expectOk(box.run(["reindex", "--json"], { cwd: repo }));
    expect(result.json()).toEqual({ changed: 3, removed: 0, pages_indexed: 3, files_seen: 3, files_skipped: 0 });
    expect(Object.keys(result.json<object>())).toEqual(["changed", "removed", "pages_indexed", "files_seen", "files_skipped"]);
    // A forced rebuild of an unchanged wiki still rebuilds every page.
    expect(expectOk(box.run(["reindex", "--json"], { cwd: repo })).json()).toEqual({
      changed: 3,
      removed: 0,
      pages_indexed: 3,
      files_seen: 3,
      files_skipped: 0,
    });
  });

  test("counts removed pages and skipped files", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {
      "a.md": page({ title: "A", topics: ["concepts"], sources: [], body: "A." }),
      "b.md": page({ title: "B", topics: ["concepts"], sources: [], body: "B." }),
    });
    expectOk(box.run(["search"], { cwd: repo }));
    rmSync(almanac(repo, "b.md"));
    writeFileSync(almanac(repo, "bin.md"), Buffer.from([0, 1, 2, 3]));
    expect(expectOk(box.run(["reindex", "--json"], { cwd: repo })).json()).toEqual({
      changed: 2,
      removed: 1,
      pages_indexed: 2,
      files_seen: 3,
      files_skipped: 1,
    });
    expect(expectOk(box.run(["reindex"], { cwd: repo })).stdout).toBe("reindexed: 2 pages (2 updated, 0 removed; 1 skipped)\n");
  });

  test("human output", () => {
    const box = fresh();
    const repo = writeWiki(join(box.dir, "repo"), {});
    expect(expectOk(box.run(["reindex"], { cwd: repo })).stdout).toBe("reindexed: 1 page (1 updated, 0 removed)\n");
  });

  test("rebuilds a damaged index file instead of failing", () => {
    const box = fresh();
    const repo = markedWiki(join(box.dir, "repo"), "alpha");
    expectOk(box.run(["search", "alpha"], { cwd: repo }));
    const [listing] = list(box);
    const indexDir = join(box.state, "repos", listing!.repository.repository_id);
    for (const name of readdirSync(indexDir)) rmSync(join(indexDir, name));
    writeFileSync(join(indexDir, "index.db"), "this is not a sqlite database, just some bytes that are long enough".repeat(20));
    expect(slugs(expectOk(box.run(["search", "alpha", "--json"], { cwd: repo })))).toEqual(["marker"]);
    expect(expectOk(box.run(["reindex", "--json"], { cwd: repo })).json<{ pages_indexed: number }>().pages_indexed).toBe(2);
  });

  test("a deleted index is rebuilt on the next read", () => {
    const box = fresh();
    const repo = markedWiki(join(box.dir, "repo"), "alpha");
    expectOk(box.run(["search", "alpha"], { cwd: repo }));
    rmSync(join(box.state, "repos"), { recursive: true });
    expect(slugs(expectOk(box.run(["search", "alpha", "--json"], { cwd: repo })))).toEqual(["marker"]);
  });
});
