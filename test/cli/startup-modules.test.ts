import { readdirSync, readFileSync, utimesSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { page, ROOT, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { PACKED_READ_COMMANDS } from "../../src/core/packed-reads.js";

/**
 * What a command loads at start-up, by the sources the build put in each chunk it loaded
 * (`.build/metafile.json`, written by scripts/build.mjs): the real CLI runs with a preload
 * that records every file it required. A read loads its own command family and what its
 * work needs, never zod (the Python adoption's and the queue's schemas), the redactor, or
 * another family's handlers; see almanac/architecture/cli.md ("Start-up").
 */
let box: Sandbox;
afterEach(() => box?.cleanup());

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown>; imports: { path: string; kind: string }[]; entryPoint?: string; packed?: string[] }>;
}

const RECORDER = pathToFileURL(join(ROOT, "test", "fixtures", "startup", "record-loaded.mjs")).href;
const BUILTINS_RECORDER = join(ROOT, "test", "fixtures", "startup", "record-builtins.cjs");
const ZOD = /(^|\/)node_modules\/zod\//;
const FAMILY = /^src\/cli\/commands\/(?!shared\.ts$)/;

function metafile(): Metafile {
  return JSON.parse(readFileSync(join(ROOT, ".build", "metafile.json"), "utf8")) as Metafile;
}

/** The bundle's files the command loaded, as `dist/…` (exit code 0 asserted). */
function chunksLoadedBy(args: string[], cwd: string): string[] {
  const record = join(box.dir, "loaded.txt");
  const result = box.run(args, { cwd, env: { NODE_OPTIONS: `--import ${RECORDER}`, CODEALMANAC_TEST_LOADED: record } });
  expect(result.code, result.stderr).toBe(0);
  const chunks = readFileSync(record, "utf8")
    .split("\n")
    .filter((file) => file.startsWith(join(ROOT, "dist") + "/"))
    .map((file) => relative(ROOT, file));
  expect(chunks).toContain("dist/bin.js");
  return chunks;
}

/** The Node built-in modules a command loaded, and its result (stdout and stderr are pipes). */
function builtinsLoadedBy(args: string[], cwd: string, env: Record<string, string> = {}) {
  const record = join(box.dir, "builtins.txt");
  const result = box.run(args, { cwd, env: { NODE_OPTIONS: `--require ${BUILTINS_RECORDER}`, CODEALMANAC_TEST_LOADED: record, ...env } });
  const builtins = readFileSync(record, "utf8").split("\n").filter(Boolean);
  return { result, builtins };
}

/** The sources in every chunk the command loaded. */
function sourcesLoadedBy(args: string[], cwd: string): string[] {
  const outputs = metafile().outputs;
  return chunksLoadedBy(args, cwd).flatMap((chunk) => {
    const output = outputs[chunk];
    expect(output, `${chunk} is not in the metafile: rebuild`).toBeDefined();
    return Object.keys(output!.inputs);
  });
}

function wiki({ agedSeconds = 0 } = {}): string {
  box = sandbox();
  const root = writeWiki(join(box.dir, "repo"), {
    "notes/cache.md": page({ title: "Cache", topics: ["concepts"], sources: [], body: "# Cache\n\nCompiled code is kept." }),
  });
  if (agedSeconds > 0) {
    const then = new Date(Date.now() - agedSeconds * 1000);
    const almanac = join(root, "almanac");
    for (const file of readdirSync(almanac, { recursive: true, encoding: "utf8" })) utimesSync(join(almanac, file), then, then);
  }
  expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
  return root;
}

describe("start-up of a read", () => {
  test("the bundle has zod in some chunk, so its absence below means something", () => {
    const inputs = Object.values(metafile().outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs.some((input) => ZOD.test(input))).toBe(true);
  });

  test.each([
    ["search", ["search", "compiled"], "src/cli/commands/search.ts"],
    ["show", ["show", "notes/cache"], "src/cli/commands/show.ts"],
  ])("%s loads its own family and neither zod, the redactor, the Python adoption nor another family", (_name, args, family) => {
    const root = wiki();
    const sources = sourcesLoadedBy(args, root);
    expect(sources).toContain(family);
    expect(sources.filter((source) => ZOD.test(source))).toEqual([]);
    expect(sources.filter((source) => source.startsWith("src/privacy/"))).toEqual([]);
    expect(sources.filter((source) => /^src\/setup\/python\/(adopt|ledger)\.ts$/.test(source))).toEqual([]);
    expect(sources.filter((source) => FAMILY.test(source) && source !== family)).toEqual([]);
  });

  test("--version loads nothing but the entry point", () => {
    box = sandbox();
    const sources = sourcesLoadedBy(["--version"], box.dir);
    expect(sources.every((source) => !source.startsWith("src/cli/") && !ZOD.test(source))).toBe(true);
  });

  test.each(PACKED_READ_COMMANDS)("%s loads no chunk from outside bin.js and the pack (scripts/pack-read-path.mjs)", (command) => {
    box = sandbox();
    const { outputs } = metafile();
    const pack = Object.keys(outputs).find((file) => outputs[file]!.entryPoint === "src/cli/main.ts")!;
    const fromBin = outputs["dist/bin.js"]!.imports.filter((i) => i.kind === "import-statement").map((i) => i.path);
    const allowed = new Set(["dist/bin.js", pack, ...fromBin, ...(outputs[pack]!.packed ?? [])]);
    const loaded = chunksLoadedBy([command, "--help"], box.dir);
    expect(loaded).toContain(pack);
    expect(loaded.filter((chunk) => chunk.startsWith("dist/chunks/") && !allowed.has(chunk))).toEqual([]);
  });

  // Agents read us through pipes, and a pipe's stream loads `net` and the streams library
  // (src/core/stdio.ts): a read writes its output without them. (A found page's `show` asks
  // git whether its sources moved, and child_process loads both; hashing a page whose
  // stamp cannot be trusted loads node:crypto, which loads the streams library: the wiki's
  // files are dated an hour back so their stamps are trusted.)
  test.each([
    ["search", ["search", "compiled", "--json"]],
    ["show of an unknown page", ["show", "notes/cach", "--json"]],
  ])("%s writes to a pipe without loading net, tty or the streams library", (_name, args) => {
    const root = wiki({ agedSeconds: 3600 });
    const { result, builtins } = builtinsLoadedBy(args, root);
    expect(result.stdout + result.stderr).toContain("notes/cache");
    expect(builtins.filter((name) => ["net", "tty", "stream"].includes(name))).toEqual([]);
  });

  test("a process that touches process.stdout on a pipe does load net (the recorder sees it)", () => {
    const root = wiki();
    const { builtins } = builtinsLoadedBy(["search", "compiled", "--json"], root, { CODEALMANAC_TEST_TOUCH_STDOUT: "1" });
    expect(builtins).toContain("net");
  });

  test("a command that follows runs does load zod (the recorder sees it)", () => {
    const root = wiki();
    const sources = sourcesLoadedBy(["jobs", "--json"], root);
    expect(sources).toContain("src/cli/commands/jobs.ts");
    expect(sources.some((source) => ZOD.test(source))).toBe(true);
  });
});
