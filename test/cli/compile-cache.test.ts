import { afterEach, describe, expect, test } from "vitest";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";

let box: Sandbox;
afterEach(() => box?.cleanup());

const TRACE = { CODEALMANAC_TRACE: "1" };

function setup(): string {
  box = sandbox();
  return writeWiki(join(box.dir, "repo"), {
    "notes/cache.md": page({ title: "Cache", topics: ["concepts"], sources: [], body: "# Cache\n\nCompiled code is kept." }),
  });
}

/** The one version folder under the state root's compile cache. */
function cacheFolder(): string {
  const root = join(box.state, "cache", "compile");
  const [folder, ...others] = readdirSync(root);
  expect(others).toEqual([]);
  return join(root, folder!);
}

function counts(stderr: string): { used: number; written: number } {
  const match = /compile cache: (\d+) chunks from the cache, (\d+) written/.exec(stderr);
  expect(match, stderr).not.toBeNull();
  return { used: Number(match![1]), written: Number(match![2]) };
}

function search(root: string, env: NodeJS.ProcessEnv = TRACE) {
  const result = box.run(["search", "compiled", "--json"], { cwd: root, env });
  expect([result.code, result.json<{ slug: string }[]>().map((h) => h.slug)]).toEqual([0, ["notes/cache"]]);
  return result;
}

describe("compile cache", () => {
  test("the first command writes the cache of the chunks it loaded; the next one uses it", () => {
    const root = setup();
    // The first read also builds the index, so it loads the parser's chunks as well.
    const first = counts(search(root).stderr);
    expect(first.used).toBe(0);
    expect(first.written).toBeGreaterThan(3);
    const files = readdirSync(cacheFolder());
    expect(files.length).toBe(first.written);
    expect(files.every((f) => /^[\w-]+\.js\.v8$/.test(f))).toBe(true);
    // The chunks a read loads at start-up are packed into the main chunk (scripts/pack-read-path.mjs):
    // a warm read compiles that one file, and whatever else it loads, from the cache.
    expect(files.some((f) => /^main-\w+-search\.js\.v8$/.test(f))).toBe(true);
    const second = counts(search(root).stderr);
    expect(second.written).toBe(0);
    expect(second.used).toBeGreaterThan(0);
    expect(second.used).toBeLessThanOrEqual(first.written);
  });

  test("damaged cache files are compiled again, rewritten, and never fail the command", () => {
    const root = setup();
    search(root);
    const { used: loaded } = counts(search(root).stderr);
    const folder = cacheFolder();
    for (const file of readdirSync(folder)) writeFileSync(join(folder, file), "not a code cache");
    expect(counts(search(root).stderr)).toEqual({ used: 0, written: loaded });
    const rewritten = readdirSync(folder).filter((file) => readFileSync(join(folder, file), "utf8") !== "not a code cache");
    expect(rewritten).toHaveLength(loaded);
    expect(counts(search(root).stderr)).toEqual({ used: loaded, written: 0 });
  });

  test("a cache folder that cannot be created never fails the command", () => {
    const root = setup();
    mkdirSync(box.state, { recursive: true });
    writeFileSync(join(box.state, "cache"), "a file where the folder should be");
    expect(counts(search(root).stderr)).toEqual({ used: 0, written: 0 });
  });

  test("folders of other versions are removed when this version's folder is created", () => {
    const root = setup();
    const stale = join(box.state, "cache", "compile", "0.0.1-node18.0.0-x64");
    mkdirSync(stale, { recursive: true });
    writeFileSync(join(stale, "chunk-OLD.js.v8"), "old");
    search(root);
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(cacheFolder()).length).toBeGreaterThan(0);
  });

  test("CODEALMANAC_NO_COMPILE_CACHE=1 turns it off", () => {
    const root = setup();
    const result = search(root, { ...TRACE, CODEALMANAC_NO_COMPILE_CACHE: "1" });
    expect(result.stderr).not.toContain("compile cache");
    expect(existsSync(join(box.state, "cache"))).toBe(false);
  });
});
