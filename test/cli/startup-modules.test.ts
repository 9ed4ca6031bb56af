import { readFileSync } from "node:fs";
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

/** The sources in every chunk the command loaded. */
function sourcesLoadedBy(args: string[], cwd: string): string[] {
  const outputs = metafile().outputs;
  return chunksLoadedBy(args, cwd).flatMap((chunk) => {
    const output = outputs[chunk];
    expect(output, `${chunk} is not in the metafile: rebuild`).toBeDefined();
    return Object.keys(output!.inputs);
  });
}

function wiki(): string {
  box = sandbox();
  const root = writeWiki(join(box.dir, "repo"), {
    "notes/cache.md": page({ title: "Cache", topics: ["concepts"], sources: [], body: "# Cache\n\nCompiled code is kept." }),
  });
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

  test("a command that follows runs does load zod (the recorder sees it)", () => {
    const root = wiki();
    const sources = sourcesLoadedBy(["jobs", "--json"], root);
    expect(sources).toContain("src/cli/commands/jobs.ts");
    expect(sources.some((source) => ZOD.test(source))).toBe(true);
  });
});
