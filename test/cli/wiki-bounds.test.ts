import { existsSync, mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { expectFailure, expectJsonFailure, expectOk } from "./helpers.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const SECRET = page({ title: "Secret", topics: ["concepts"], sources: [], body: "# Secret\n\nroot:x:0:0 lives outside the repository." });

/** A repository whose almanac/ is a committed symlink to a wiki elsewhere. */
function linkedOut(): { repo: string; outside: string } {
  box = sandbox();
  const outside = writeWiki(join(box.dir, "elsewhere"), { "secret.md": SECRET });
  const repo = join(box.dir, "repo");
  mkdirSync(repo);
  symlinkSync(join(outside, "almanac"), join(repo, "almanac"));
  return { repo, outside };
}

describe("a wiki folder that leads out of its repository", () => {
  test("is refused by every read and write, in one line naming both paths, and nothing outside changes", () => {
    const { repo, outside } = linkedOut();
    const before = readFileSync(join(outside, "almanac", "secret.md"), "utf8");
    const topicsBefore = readFileSync(join(outside, "almanac", "topics.yaml"), "utf8");
    const refusal = `the wiki folder ${join(repo, "almanac")} resolves to ${join(outside, "almanac")}, outside its repository ${repo}; refusing to read or write it (make almanac/ a folder inside the repository)`;
    for (const args of [
      ["show", "secret"],
      ["show", "secret", "--body"],
      ["search", "root"],
      ["tag", "secret", "ops"],
      ["untag", "secret", "concepts"],
      ["topics", "create", "stolen"],
      ["topics"],
      ["validate"],
      ["reindex"],
    ]) {
      const result = box.run(args, { cwd: repo });
      expect(result.stdout, args.join(" ")).not.toContain("root:x");
      expectFailure(result, refusal);
    }
    expectJsonFailure(box.run(["show", "secret", "--json"], { cwd: repo }), "validation_failed", refusal);
    expectFailure(box.run(["garden"], { cwd: repo }), refusal);
    expect(readFileSync(join(outside, "almanac", "secret.md"), "utf8")).toBe(before);
    expect(readFileSync(join(outside, "almanac", "topics.yaml"), "utf8")).toBe(topicsBefore);
  });

  test("init refuses a folder whose almanac/ is a symlink, even a dangling one, and writes nothing through it", () => {
    box = sandbox();
    const repo = join(box.dir, "fresh");
    mkdirSync(repo);
    symlinkSync(join(box.dir, "not-yet"), join(repo, "almanac"));
    const result = box.run(["init"], { cwd: repo });
    expect([result.code, result.stderr.split("\n")[0]]).toEqual([1, "codealmanac: almanac/ already exists here."]);
    expect(existsSync(join(box.dir, "not-yet"))).toBe(false);
  });

  test("a wiki folder linked to another folder inside the repository works as before", () => {
    box = sandbox();
    const repo = join(box.dir, "repo");
    writeWiki(join(repo, "docs"), { "inside.md": page({ title: "Inside", topics: ["concepts"], sources: [], body: "# Inside\n\nKept words." }) });
    symlinkSync(join("docs", "almanac"), join(repo, "almanac"));
    expect(expectOk(box.run(["show", "inside", "--body"], { cwd: repo })).stdout).toBe("# Inside\n\nKept words.\n");
    expectOk(box.run(["tag", "inside", "ops"], { cwd: repo }));
    expect(readFileSync(join(repo, "docs", "almanac", "inside.md"), "utf8")).toContain("ops");
  });
});

describe("an oversized page", () => {
  test("show prints at most its first 2 MB and says on stderr that it was cut", async () => {
    box = sandbox();
    const repo = writeWiki(join(box.dir, "repo"), {});
    const path = join(repo, "almanac", "big.md");
    writeFileSync(path, `---\ntitle: Big\ntopics: [concepts]\nsources: []\n---\n\n# Big\n\n${"word ".repeat(700_000)}\n`);
    truncateSync(path, 64 * 1024 * 1024);
    const notice = "codealmanac: big: this page is 64.0 MB; only its first 2 MB are shown\n";

    // Spawned without spawnSync's 1 MiB output cap: the page shown is about 2 MB.
    const body = expectOk(await box.runAsync(["show", "big", "--body"], { cwd: repo }));
    expect(body.stdout.startsWith("# Big\n\nword word")).toBe(true);
    expect(Buffer.byteLength(body.stdout)).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(body.stderr).toBe(notice);

    const whole = expectOk(await box.runAsync(["show", "big"], { cwd: repo }));
    expect(Buffer.byteLength(whole.stdout)).toBeLessThanOrEqual(2 * 1024 * 1024 + 4096);
    expect(whole.stderr).toBe(notice);

    const json = expectOk(await box.runAsync(["show", "big", "--json"], { cwd: repo })).json<{ truncated: boolean; file_size: number; body: string }>();
    expect([json.truncated, json.file_size]).toEqual([true, 64 * 1024 * 1024]);
    expect(Buffer.byteLength(json.body)).toBeLessThanOrEqual(2 * 1024 * 1024);

    // No truncation note for a list view: only the empty list is reported.
    expect(expectOk(box.run(["show", "big", "--links"], { cwd: repo })).stderr).toBe("codealmanac: big: links to no other page\n");
  });
});
