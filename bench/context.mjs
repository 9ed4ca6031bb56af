#!/usr/bin/env node
// Measures the bounded context that garden and build runs put in their prompt.
//
//   node bench/context.mjs [--pages 10000] [--seed 42] [--budget 24000] [--runs 15] [--keep]
//
// The context modules are new and not part of dist/ until the next build, so this script
// bundles them from src/ with esbuild into .bench/context/ (better-sqlite3 stays external)
// and imports the bundle. It generates a wiki (seed 42 by default), builds its index once,
// waits out the racy window so the index is fresh, then times, in-process:
//   - `issues()`, which the runner already computes for its validation baseline;
//   - `summary()` + `gardenContext()`, the work garden adds on top of the baseline;
//   - `gardenContext()` again over 100,000 synthetic findings, for a very unhealthy wiki;
//   - `buildInventory()` on this repository, on the generated wiki's folder, and on its
//     almanac/ folder taken as a repository root (10,000 files; walked, then via git).
// Prints one JSON document on stdout; progress goes to stderr.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { performance } from "node:perf_hooks";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateWiki } from "./generate-wiki.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const OUT = join(ROOT, ".bench", "context");
const log = (msg) => process.stderr.write(`[context] ${msg}\n`);
const round = (x) => Math.round(x * 10) / 10;

function parseOptions(argv) {
  const opts = { pages: 10_000, seed: 42, budget: 24_000, runs: 15, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--keep") opts.keep = true;
    else if (["--pages", "--seed", "--budget", "--runs"].includes(arg)) opts[arg.slice(2)] = Number(argv[++i]);
    else throw new Error(`unknown option ${arg}`);
  }
  return opts;
}

const ENTRY = `
export { IndexService } from "../../src/index/service.ts";
export { statePaths } from "../../src/core/paths.ts";
export { gardenContext } from "../../src/lifecycle/context/garden.ts";
export { buildInventory } from "../../src/lifecycle/context/build.ts";
export { runCommand } from "../../src/core/exec.ts";
`;

async function bundle() {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, "entry.ts"), ENTRY);
  await build({
    entryPoints: { "context-bench": join(OUT, "entry.ts"), "parse-worker": join(ROOT, "src/index/parse-worker.ts") },
    outdir: OUT,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["better-sqlite3"],
    // Bundled CommonJS dependencies (yaml, markdown-it) require Node built-ins.
    banner: { js: 'import { createRequire as __caRequire } from "node:module"; const require = __caRequire(import.meta.url);' },
    logLevel: "warning",
  });
  return import(pathToFileURL(join(OUT, "context-bench.js")).href);
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median_ms: round(sorted[Math.floor((sorted.length - 1) / 2)]),
    min_ms: round(sorted[0]),
    max_ms: round(sorted[sorted.length - 1]),
    runs: sorted.length,
  };
}

async function timed(work) {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

async function measureGarden(mod, index, opts) {
  const issues = (await timed(() => index.issues())).value;
  const summaryMs = [];
  const gardenMs = [];
  const totalMs = [];
  const issuesMs = [];
  let ctx;
  for (let run = 0; run < opts.runs + 1; run++) {
    const baseline = await timed(() => index.issues());
    const summary = await timed(() => index.summary());
    const garden = await timed(() => mod.gardenContext({ summary: summary.value, issues, budgetChars: opts.budget }));
    ctx = garden.value;
    if (run === 0) continue; // warm-up: statement compilation and JIT
    issuesMs.push(baseline.ms);
    summaryMs.push(summary.ms);
    gardenMs.push(garden.ms);
    totalMs.push(summary.ms + garden.ms);
  }
  const findings = ctx.findings;
  return {
    issues: issues.length,
    baseline_issues: stats(issuesMs),
    summary: stats(summaryMs),
    garden_context: stats(gardenMs),
    summary_plus_garden_context: stats(totalMs),
    json_chars: JSON.stringify(ctx, null, 2).length,
    budget_chars: opts.budget,
    samples_per_category: Math.max(0, ...findings.categories.items.map((g) => g.samples.length)),
    findings: { total: findings.total, shown: findings.shown, omitted: findings.omitted, categories: findings.categories.total },
    summary_items: Object.fromEntries(
      Object.entries(ctx.wiki)
        .filter(([, v]) => typeof v === "object")
        .map(([k, v]) => [k, `${v.items.length}/${v.total}`]),
    ),
  };
}

/** A wiki far less healthy than the generated one: many findings in every category. */
function syntheticIssues(count) {
  const categories = [
    "broken_links",
    "missing_source_citations",
    "frontmatter_invalid",
    "orphans",
    "dead_refs",
    "unused_sources",
    "empty_pages",
    "undeclared_topic",
  ];
  return Array.from({ length: count }, (_, i) => {
    const category = categories[i % categories.length];
    const severity = i % categories.length < 3 ? "error" : "warning";
    const message = `synthetic finding ${i} in ${category}: ${"a fairly long explanation of what is wrong ".repeat(3)}`;
    return { category, severity, message, page: `area-${i % 97}/page-${i}`, topic: null, path: null };
  });
}

async function measureSyntheticFindings(mod, index, opts) {
  const summary = await index.summary();
  const issues = syntheticIssues(100_000);
  const samples = [];
  let ctx;
  for (let run = 0; run < opts.runs + 1; run++) {
    const { ms, value } = await timed(() => mod.gardenContext({ summary, issues, budgetChars: opts.budget }));
    ctx = value;
    if (run > 0) samples.push(ms);
  }
  return {
    issues: issues.length,
    garden_context: stats(samples),
    json_chars: JSON.stringify(ctx, null, 2).length,
    samples_per_category: Math.max(0, ...ctx.findings.categories.items.map((g) => g.samples.length)),
    findings: { shown: ctx.findings.shown, omitted: ctx.findings.omitted, categories: ctx.findings.categories.total },
    summary_items: Object.fromEntries(
      Object.entries(ctx.wiki)
        .filter(([, v]) => typeof v === "object")
        .map(([k, v]) => [k, `${v.items.length}/${v.total}`]),
    ),
  };
}

async function measureInventory(mod, root, opts) {
  const samples = [];
  let inventory;
  for (let run = 0; run < Math.min(opts.runs, 5) + 1; run++) {
    const { ms, value } = await timed(() => mod.buildInventory({ root, run: mod.runCommand, budgetChars: opts.budget }));
    inventory = value;
    if (run > 0) samples.push(ms);
  }
  return {
    root,
    ...stats(samples),
    json_chars: JSON.stringify(inventory, null, 2).length,
    budget_chars: opts.budget,
    files: inventory.files,
    lists: Object.fromEntries(
      Object.entries(inventory)
        .filter(([k]) => k !== "files")
        .map(([k, v]) => [k, `${v.items.length}/${v.total}`]),
    ),
  };
}

async function main() {
  const opts = parseOptions(process.argv.slice(2));
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "ca-context-bench-")));
  try {
    log("bundling src/ with esbuild");
    const mod = await bundle();
    log(`generating a ${opts.pages}-page wiki (seed ${opts.seed})`);
    const wikiRoot = join(tmp, "wiki");
    generateWiki({ root: wikiRoot, pages: opts.pages, seed: opts.seed });
    const paths = mod.statePaths({ CODEALMANAC_HOME: join(tmp, "state") });
    const service = new mod.IndexService({ paths, now: () => Date.now() });
    const repository = { repositoryId: "bench", name: "bench", description: "", rootPath: wikiRoot, registeredAt: 0 };
    const first = service.open(repository);
    log("building the index");
    const reindex = await timed(() => first.refresh());
    first.close();
    // Past the 2 s racy window the next refresh only compares stat data: the index is fresh.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const index = service.open(repository);
    const freshCheck = await timed(() => index.refresh());
    log("timing summary + garden context");
    const garden = await measureGarden(mod, index, opts);
    const synthetic = await measureSyntheticFindings(mod, index, opts);
    log("timing the build inventory");
    const inventoryHere = await measureInventory(mod, ROOT, opts);
    const inventoryWiki = await measureInventory(mod, wikiRoot, opts);
    // The wiki's 10,000 Markdown files, surveyed as if they were a repository of their own:
    // first by the walk, then through git (untracked files, so --others does the work).
    const pagesRoot = join(wikiRoot, "almanac");
    const inventoryPagesWalk = await measureInventory(mod, pagesRoot, opts);
    spawnSync("git", ["init", "-q"], { cwd: pagesRoot });
    const inventoryPagesGit = await measureInventory(mod, pagesRoot, opts);
    service.close();
    const result = {
      node: process.version,
      pages: reindex.value.result.pages_indexed,
      index_build_ms: round(reindex.ms),
      fresh_refresh_ms: round(freshCheck.ms),
      garden,
      garden_with_100k_synthetic_findings: synthetic,
      build_inventory: {
        repository: inventoryHere,
        generated_wiki: inventoryWiki,
        wiki_pages_as_repository_walk: inventoryPagesWalk,
        wiki_pages_as_repository_git: inventoryPagesGit,
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    if (opts.keep) log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
