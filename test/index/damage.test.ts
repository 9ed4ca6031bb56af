import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";
import { btreePages, fileIdentity, garblePage, integrityOk, onlyIndexFile, sizableWiki } from "../support/damage.js";

/**
 * A wiki's index is derived from almanac/: damage to its file must never stop a read.
 * Each test starts from a healthy index built by the real CLI, damages the real file,
 * and runs the real commands against it.
 */
let box: Sandbox;
let root: string;
let index: string;
let healthy: string;
const answers = new Map<string, string>();

const COMMANDS: Record<string, string[]> = {
  search: ["search", "zebra17"],
  "search --json": ["search", "ledger3", "--limit", "5", "--json"],
  show: ["show", "notes/note-042", "--meta"],
  health: ["health", "--json"],
  validate: ["validate", "--json"],
  topics: ["topics", "show", "concepts"],
  reindex: ["reindex"],
};

beforeAll(() => {
  box = sandbox();
  root = sizableWiki(join(box.dir, "repo"));
  expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
  index = onlyIndexFile(box.state);
  healthy = join(box.dir, "healthy.db");
  copyFileSync(index, healthy);
  for (const [name, args] of Object.entries(COMMANDS)) {
    const result = box.run(args, { cwd: root });
    expect([name, result.code, result.stderr]).toEqual([name, name === "validate" ? result.code : 0, ""]);
    answers.set(name, withoutTimes(result.stdout));
    copyFileSync(healthy, index);
  }
});
afterAll(() => box.cleanup());

/** validate --json reports the index refresh's counts, which differ between a fresh index and one just built. */
function withoutTimes(stdout: string): string {
  return stdout.replace(/"index":\{[^}]*\}/, '"index":{}');
}

function restoreHealthy(): void {
  for (const suffix of ["-wal", "-shm"]) rmSync(index + suffix, { force: true });
  copyFileSync(healthy, index);
}

describe("a damaged index is rebuilt and the command answers", () => {
  test("one garbled interior page of the pages table: every command answers as from the healthy index", () => {
    const interior = btreePages(healthy, "pages", "internal");
    expect(interior.length).toBeGreaterThan(0);
    for (const [name, args] of Object.entries(COMMANDS)) {
      restoreHealthy();
      garblePage(index, interior[0]!);
      const damaged = fileIdentity(index);
      const result = box.run(args, { cwd: root });
      expect({ name, code: result.code, stderr: result.stderr }).toEqual({ name, code: name === "validate" ? result.code : 0, stderr: "" });
      expect(withoutTimes(result.stdout), name).toBe(answers.get(name));
      // The damaged file was replaced by a new one, which is whole.
      expect(fileIdentity(index)).not.toBe(damaged);
      expect(integrityOk(index)).toBe(true);
    }
  });

  test("a garbled leaf of the search postings and of the sections table", () => {
    for (const [table, kind] of [["postings", "leaf"], ["sections", "internal"]] as const) {
      restoreHealthy();
      const pages = btreePages(healthy, table, kind);
      expect(pages.length, table).toBeGreaterThan(0);
      for (const pageno of pages) garblePage(index, pageno);
      const result = box.run(COMMANDS.search!, { cwd: root });
      expect([table, result.code, result.stderr]).toEqual([table, 0, ""]);
      expect(result.stdout).toBe(answers.get("search"));
    }
  });

  test("an index cut short, or zeroed, is built again", () => {
    restoreHealthy();
    truncateSync(index, Math.floor(statSync(index).size / 2));
    let result = box.run(COMMANDS.search!, { cwd: root });
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toBe(answers.get("search"));

    restoreHealthy();
    writeFileSync(index, Buffer.alloc(statSync(index).size));
    result = box.run(COMMANDS.search!, { cwd: root });
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toBe(answers.get("search"));
  });
});

describe("reindex", () => {
  test("builds a new file rather than updating the old one, and removes builds abandoned by dead processes", () => {
    restoreHealthy();
    const before = fileIdentity(index);
    const dead = spawnSync("true").pid!;
    const abandoned = [`${index}.build-${dead}-1`, `${index}.build-${dead}-1-journal`];
    for (const file of abandoned) writeFileSync(file, "left by a process that was killed mid-build");
    const result = box.run(["reindex"], { cwd: root });
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(fileIdentity(index)).not.toBe(before);
    expect(readdirSync(dirname(index)).sort()).toEqual(["index.db"]);
  });
});

describe("an index that cannot be opened", () => {
  test("is one line naming the file, exit 3", () => {
    rmSync(dirname(index), { recursive: true, force: true });
    mkdirSync(index, { recursive: true });
    try {
      for (const args of [COMMANDS.search!, ["search", "zebra1", "--json"]]) {
        const result = box.run(args, { cwd: root });
        expect(result.code).toBe(3);
        expect(result.stdout).toBe("");
        const line = args.includes("--json") ? (JSON.parse(result.stderr) as { error: { message: string } }).error.message : result.stderr;
        expect(line).toContain(`the wiki's index ${index} cannot be opened (unable to open database file)`);
        expect(line).not.toContain("internal error");
        expect(result.stderr.trim().split("\n")).toHaveLength(1);
      }
      expect(existsSync(join(box.state, "logs", "errors.log"))).toBe(false);
    } finally {
      rmSync(index, { recursive: true, force: true });
      mkdirSync(dirname(index), { recursive: true });
      copyFileSync(healthy, index);
    }
  });
});
