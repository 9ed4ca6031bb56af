import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { CommandRunner } from "../../src/core/command.js";
import { runCommand } from "../../src/core/exec.js";
import type { ValidationIssue } from "../../src/index/views/validate.js";
import { buildInventory, type BuildInventory } from "../../src/lifecycle/context/build.js";
import { gardenContext, type GardenContext } from "../../src/lifecycle/context/garden.js";
import { walkRepository } from "../../src/lifecycle/context/repository-files.js";
import { page } from "../support/cli.js";
import { openWiki, type OpenedWiki } from "../support/wiki-index.js";

const size = (value: unknown) => JSON.stringify(value, null, 2).length;

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

function opened(wiki: OpenedWiki): OpenedWiki {
  cleanups.push(wiki.close);
  return wiki;
}

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
}

function git(root: string, ...args: string[]): void {
  const result = spawnSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd: root,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
}

// ---------------------------------------------------------------------------
// Garden context

const doc = (title: string, topics: string[], links: string[] = []) =>
  page({ title, topics, sources: [], body: `# ${title}\n\nText. ${links.map((l) => `[${l}](${l})`).join(" ")}` });

/** A page with a broken link or more, a dead file source, an uncited source and a citation with no source. */
function unhealthyPage(i: number, brokenLinks: number): string {
  const links = Array.from({ length: brokenLinks }, (_, k) => `[gone ${k}](missing-${i}-${k}.md)`).join(" ");
  return page({
    title: `Unhealthy page number ${i} with a title long enough to cost some budget`,
    topics: i % 3 === 0 ? [] : ["concepts"],
    sources: [
      { id: "dead", type: "file", path: `src/missing-${i}.ts` },
      { id: "unused", type: "file", path: `src/also-missing-${i}.ts` },
    ],
    body: `# Page ${i}\n\nA claim [@dead] and another [@nowhere]. ${links}`,
  });
}

function unhealthyWiki(pages: number, brokenLinks: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < pages; i++) files[`area-${i % 10}/page-${i}.md`] = unhealthyPage(i, brokenLinks);
  return files;
}

async function contextFor(wiki: OpenedWiki, budgetChars: number): Promise<{ ctx: GardenContext; issues: ValidationIssue[] }> {
  const issues = await wiki.index.issues();
  const summary = await wiki.index.summary();
  return { ctx: gardenContext({ summary, issues, budgetChars }), issues };
}

function countBy(issues: ValidationIssue[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const i of issues) counts.set(i.category, (counts.get(i.category) ?? 0) + 1);
  return counts;
}

describe("garden context", () => {
  test("a small wiki is described in full: the summary and every finding, errors first", async () => {
    const wiki = opened(
      openWiki({
        "a.md": doc("Alpha", ["concepts"], ["b.md", "missing.md"]),
        "b.md": doc("Beta", []),
      }),
    );
    const { ctx, issues } = await contextFor(wiki, 24_000);
    expect(ctx.wiki).toEqual(await wiki.index.summary());
    expect(ctx.findings).toMatchObject({
      total: issues.length,
      errors: 1,
      warnings: issues.length - 1,
      omitted: 0,
      complete: true,
    });
    expect(ctx.findings.shown).toBe(issues.length);
    const [first, ...rest] = ctx.findings.categories.items;
    expect(first).toEqual({
      category: "broken_links",
      severity: "error",
      count: 1,
      omitted: 0,
      samples: [{ message: "Markdown page link target does not exist: missing", page: "a" }],
    });
    expect(rest.every((group) => group.severity === "warning")).toBe(true);
    expect(rest.find((group) => group.category === "orphans")?.samples).toEqual([{ message: "page has no topics", page: "b" }]);
  });

  test("a large unhealthy wiki fits the budget, keeps exact counts and says the samples are partial", async () => {
    const wiki = opened(openWiki(unhealthyWiki(300, 4)));
    const budget = 24_000;
    const { ctx, issues } = await contextFor(wiki, budget);
    expect(issues.length).toBeGreaterThan(2_000);
    expect(size(ctx)).toBeLessThanOrEqual(budget);

    const findings = ctx.findings;
    expect(findings.total).toBe(issues.length);
    expect(findings.errors).toBe(issues.filter((i) => i.severity === "error").length);
    expect(findings.complete).toBe(false);
    expect(findings.shown + findings.omitted).toBe(findings.total);
    expect(findings.full_list).toContain("codealmanac validate --json");

    const groups = findings.categories.items;
    expect(findings.categories.omitted).toBe(0);
    expect(new Map(groups.map((g) => [g.category, g.count]))).toEqual(countBy(issues));
    const firstWarning = groups.findIndex((g) => g.severity === "warning");
    expect(groups.slice(0, firstWarning).map((g) => g.category).sort()).toEqual(["broken_links", "missing_source_citations"]);
    expect(groups.slice(firstWarning).every((g) => g.severity === "warning")).toBe(true);
    for (const group of groups) {
      expect(group.samples.length).toBeGreaterThan(0);
      expect(group.omitted).toBe(group.count - group.samples.length);
    }
    expect(ctx.wiki.pages).toBe(301);
    expect(ctx.wiki.pages_with_broken_links.total).toBe(300);
  });

  test("the serialized context never exceeds any budget, and a bigger budget never shows less", async () => {
    const wiki = opened(openWiki(unhealthyWiki(120, 3)));
    const issues = await wiki.index.issues();
    const summary = await wiki.index.summary();
    let previous = -1;
    for (const budget of [1_100, 1_200, 1_600, 2_500, 4_000, 6_000, 9_000, 14_000, 24_000, 60_000, 1_000_000]) {
      const ctx = gardenContext({ summary, issues, budgetChars: budget });
      expect(size(ctx), `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(ctx.findings.total).toBe(issues.length);
      expect(ctx.findings.shown).toBeGreaterThanOrEqual(previous);
      previous = ctx.findings.shown;
    }
    expect(() => gardenContext({ summary, issues, budgetChars: 100 })).toThrow(RangeError);
  });

  test("long messages and titles are clipped rather than crowding out other findings", async () => {
    const wiki = opened(openWiki({ "a.md": doc("A".repeat(5_000), ["concepts"], ["missing.md"]) }));
    const summary = await wiki.index.summary();
    const huge: ValidationIssue = {
      category: "page_unreadable",
      severity: "error",
      message: "x".repeat(20_000),
      page: null,
      topic: null,
      path: "a.md",
    };
    const ctx = gardenContext({ summary, issues: [huge], budgetChars: 24_000 });
    const [group] = ctx.findings.categories.items;
    expect(group!.samples[0]!.message.length).toBeLessThanOrEqual(240);
    expect(group!.samples[0]!.message.endsWith("…")).toBe(true);
    expect(ctx.wiki.recently_changed.items.find((p) => p.slug === "a")!.title.length).toBeLessThanOrEqual(120);
  });
});

// ---------------------------------------------------------------------------
// Build inventory

const PACKAGE_JSON = JSON.stringify({
  name: "tool",
  bin: { tool: "dist/bin.js" },
  main: "dist/index.js",
  scripts: { build: "node build.mjs", test: "vitest" },
});

const REPOSITORY: Record<string, string> = {
  ".gitignore": "ignored/\n*.log\nnode_modules/\n",
  "package.json": PACKAGE_JSON,
  "README.md": "# Tool\n",
  "CONTRIBUTING.md": "# Contributing\n",
  "CLAUDE.md": "# Agent notes\n",
  "Makefile": "build:\n\tnpm run build\ntest: build\n\tnpm test\nCC := gcc\n",
  "Dockerfile": "FROM node:20\n",
  ".github/workflows/ci.yml": "on: push\n",
  "src/main.ts": "export {};\n",
  "src/util/a.ts": "export {};\n",
  "src/util/b.ts": "export {};\n",
  "cmd/tool/main.go": "package main\n",
  "lib/helper.py": "pass\n",
  "docs/guide.md": "# Guide\n",
  "docs/adr/0001-use-sqlite.md": "# Use SQLite\n",
  "almanac/README.md": "# Wiki\n",
  "almanac/concepts/x.md": "# X\n",
  "ignored/secret.ts": "export {};\n",
  "debug.log": "noise\n",
  "node_modules/dep/index.js": "module.exports = 1;\n",
};

/** The files the inventory should see: everything but the wiki and what .gitignore excludes. */
const VISIBLE = Object.keys(REPOSITORY).filter((p) => !/^(almanac|ignored|node_modules)\/|\.log$/.test(p));

describe("build inventory", () => {
  test("in a git work tree it lists tracked and untracked files, honours .gitignore and leaves out almanac/", async () => {
    const root = tempDir("ca-inventory-git-");
    writeFiles(root, REPOSITORY);
    git(root, "init", "-q");
    git(root, "add", "package.json", "src/main.ts", ".gitignore");
    git(root, "commit", "-q", "-m", "initial");
    const inventory = await buildInventory({ root, run: runCommand, budgetChars: 24_000 });

    expect(inventory.files).toEqual({ listed_by: "git", count: VISIBLE.length, complete: true, excluded: ["almanac/"] });
    expect(inventory.layout).toEqual({
      total: 12,
      omitted: 0,
      items: [
        { name: ".github", kind: "folder", files: 1 },
        { name: "cmd", kind: "folder", files: 1 },
        { name: "docs", kind: "folder", files: 2 },
        { name: "lib", kind: "folder", files: 1 },
        { name: "src", kind: "folder", files: 3 },
        { name: ".gitignore", kind: "file" },
        { name: "CLAUDE.md", kind: "file" },
        { name: "CONTRIBUTING.md", kind: "file" },
        { name: "Dockerfile", kind: "file" },
        { name: "Makefile", kind: "file" },
        { name: "README.md", kind: "file" },
        { name: "package.json", kind: "file" },
      ],
    });
    expect(inventory.largest_subfolders.items).toEqual([
      { path: "src/util", files: 2 },
      { path: ".github/workflows", files: 1 },
      { path: "cmd/tool", files: 1 },
      { path: "docs/adr", files: 1 },
    ]);
    expect(inventory.languages.items[0]).toEqual({ language: "Markdown", files: 5, extensions: [".md"] });
    expect(inventory.languages.items).toContainEqual({ language: "TypeScript", files: 3, extensions: [".ts"] });
    const { files: _listing, ...surveyed } = inventory;
    expect(JSON.stringify(surveyed)).not.toMatch(/almanac|secret|debug\.log|node_modules/);

    expect(inventory.entry_points.items).toEqual([
      {
        path: "package.json",
        kind: "package manifest",
        detail: "name tool; bin tool → dist/bin.js; main dist/index.js; scripts build, test",
      },
      { path: "cmd/tool/main.go", kind: "go command" },
      { path: "src/main.ts", kind: "source entry" },
      { path: "Makefile", kind: "task runner", detail: "targets build, test" },
      { path: "Dockerfile", kind: "container" },
      { path: ".github/workflows/ci.yml", kind: "ci workflow" },
    ]);
    expect(inventory.docs.items).toEqual([
      { path: "README.md", kind: "readme" },
      { path: "CLAUDE.md", kind: "agent instructions" },
      { path: "CONTRIBUTING.md", kind: "contributing" },
      { path: "docs/adr/0001-use-sqlite.md", kind: "decision record" },
      { path: "docs/guide.md", kind: "docs" },
    ]);
  });

  test("outside a git work tree a walk skips dependency, build and hidden folders and the wiki", async () => {
    const root = tempDir("ca-inventory-walk-");
    writeFiles(root, {
      ...REPOSITORY,
      "dist/bin.js": "",
      "target/debug/x": "",
      ".venv/lib/site.py": "",
      ".cache/x": "",
    });
    const inventory = await buildInventory({ root, run: runCommand, budgetChars: 24_000 });
    expect(inventory.files.listed_by).toBe("walk");
    expect(inventory.files.complete).toBe(true);
    expect(inventory.layout.items.map((e) => e.name)).toEqual([
      ".github",
      "cmd",
      "docs",
      "ignored",
      "lib",
      "src",
      ".gitignore",
      "CLAUDE.md",
      "CONTRIBUTING.md",
      "Dockerfile",
      "Makefile",
      "README.md",
      "debug.log",
      "package.json",
    ]);
  });

  test("without git on PATH the inventory falls back to the walk", async () => {
    const root = tempDir("ca-inventory-nogit-");
    writeFiles(root, { "src/index.ts": "", "almanac/a.md": "" });
    const missingGit: CommandRunner = async () => ({
      code: null,
      signal: null,
      stdout: "",
      stderr: "spawn git ENOENT",
      timedOut: false,
      truncated: false,
      notFound: true,
    });
    const inventory = await buildInventory({ root, run: missingGit, budgetChars: 24_000 });
    expect(inventory.files).toMatchObject({ listed_by: "walk", count: 1 });
    expect(inventory.entry_points.items).toEqual([{ path: "src/index.ts", kind: "source entry" }]);
  });

  test("a git listing cut at its output cap is reported incomplete", async () => {
    const root = tempDir("ca-inventory-cut-");
    const cut: CommandRunner = async () => ({
      code: 0,
      signal: null,
      stdout: "a.ts\0src/b.ts\0src/c.t",
      stderr: "",
      timedOut: false,
      truncated: true,
      notFound: false,
    });
    const inventory = await buildInventory({ root, run: cut, budgetChars: 24_000 });
    expect(inventory.files).toMatchObject({ listed_by: "git", count: 2, complete: false });
  });

  test("the walk stops at its file cap and says so", () => {
    const root = tempDir("ca-inventory-cap-");
    writeFiles(root, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, ""])));
    const listing = walkRepository(root, 5);
    expect(listing).toMatchObject({ source: "walk", complete: false });
    expect(listing.paths).toHaveLength(5);
  });

  test("a large repository fits every budget with exact totals and stated omissions", async () => {
    const root = tempDir("ca-inventory-large-");
    const files: Record<string, string> = {};
    for (let folder = 0; folder < 60; folder++) {
      files[`pkg-${folder}/package.json`] = JSON.stringify({ name: `pkg-${folder}`, scripts: { build: "x" } });
      files[`pkg-${folder}/README.md`] = "";
      for (let sub = 0; sub < 6; sub++) {
        for (let n = 0; n < 8; n++) files[`pkg-${folder}/sub-${sub}/file-${n}.ext${(folder * 7 + n) % 90}`] = "";
      }
    }
    for (let n = 0; n < 200; n++) files[`docs/page-${n}.md`] = "";
    writeFiles(root, files);
    git(root, "init", "-q");

    let previous: BuildInventory | null = null;
    for (const budget of [1_000, 2_000, 4_000, 8_000, 16_000, 24_000]) {
      const inventory = await buildInventory({ root, run: runCommand, budgetChars: budget });
      expect(size(inventory), `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(inventory.files.count).toBe(Object.keys(files).length);
      expect(inventory.layout.total).toBe(61);
      expect(inventory.docs.total).toBe(260);
      expect(inventory.languages.total).toBe(92);
      for (const list of [inventory.layout, inventory.languages, inventory.entry_points, inventory.docs]) {
        expect(list.omitted).toBe(list.total - list.items.length);
      }
      if (previous) expect(inventory.docs.items.length).toBeGreaterThanOrEqual(previous.docs.items.length);
      previous = inventory;
    }
    expect(previous!.docs.omitted).toBeGreaterThan(0);
    await expect(buildInventory({ root, run: runCommand, budgetChars: 50 })).rejects.toThrow(RangeError);
  });
});
