import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { page, ROOT, sandbox, writeWiki, type Sandbox } from "../support/cli.js";

/**
 * The bundle's chunks load without Node's module search (src/core/chunk-loader.ts): a
 * preload records what the search is asked for, and no chunk of ours may be among it.
 */
let box: Sandbox;
afterEach(() => box?.cleanup());

const RECORDER = join(ROOT, "test", "fixtures", "startup", "record-searches.cjs");

function wiki(): string {
  box = sandbox();
  const root = writeWiki(join(box.dir, "repo"), {
    "notes/cache.md": page({ title: "Cache", topics: ["concepts"], sources: [], body: "# Cache\n\nCompiled code is kept." }),
  });
  expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
  return root;
}

interface Metafile {
  outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[] }>;
}

function metafile(): Metafile {
  return JSON.parse(readFileSync(join(ROOT, ".build", "metafile.json"), "utf8")) as Metafile;
}

/** The file names of the chunks bin.js imports statically, with theirs: they load before bin.js runs. */
function loadedBeforeTheLoader(): Set<string> {
  const { outputs } = metafile();
  const seen = new Set<string>();
  const queue = ["dist/bin.js"];
  while (queue.length > 0) {
    for (const imported of outputs[queue.shift()!]!.imports) {
      if (imported.kind !== "import-statement" || !imported.path.startsWith("dist/") || seen.has(imported.path)) continue;
      seen.add(imported.path);
      queue.push(imported.path);
    }
  }
  return new Set([...seen].map((path) => path.split("/").pop()!));
}

function searchedBy(args: string[], cwd: string): string[] {
  const record = join(box.dir, "searched.txt");
  const result = box.run(args, { cwd, env: { NODE_OPTIONS: `--require ${RECORDER}`, CODEALMANAC_TEST_SEARCHES: record } });
  expect(result.code, result.stderr).toBe(0);
  return readFileSync(record, "utf8").split("\n").filter(Boolean);
}

describe("loading the bundle's chunks", () => {
  test.each([
    ["a read (the packed main chunk)", ["search", "compiled", "--json"]],
    ["a command of chunks outside the pack", ["jobs", "--json"]],
  ])("%s asks Node's module search for no chunk", (_name, args) => {
    const root = wiki();
    const searched = searchedBy(args, root);
    const early = loadedBeforeTheLoader();
    const chunks = searched.filter((request) => /(^|\/)(chunk|main)-\w+\.js$/.test(request));
    // bin.js's own imports load before it installs the loader; every chunk after them loads directly.
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.filter((request) => !early.has(request.split("/").pop()!))).toEqual([]);
  });

  test("a chunk missing from an install fails in one line, with no stack", () => {
    box = sandbox();
    const dist = join(box.dir, "dist");
    cpSync(join(ROOT, "dist"), dist, { recursive: true });
    const { outputs } = metafile();
    const jobs = Object.keys(outputs).find((file) => outputs[file]!.entryPoint === "src/cli/commands/jobs.ts")!;
    rmSync(join(box.dir, jobs), { force: true });
    const result = spawnSync(process.execPath, [join(dist, "bin.js"), "jobs", "--json"], { cwd: box.dir, env: box.env, encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^codealmanac: .*(ENOENT|no such file|Cannot find module)/);
    expect(result.stderr).toContain(jobs.split("/").pop()!);
  });
});
