// The `drift` section of bench/run.mjs: `ca drift` on a generated repository of 10 000
// pages citing 5 files each (half of them by line range), over a history of 5 000 commits
// written with `git fast-import`:
//
//   1. cold: no drift cache or kept history walk, the index already built (its cost is the
//      index section's).
//   2. unchanged rerun: the same HEAD and working tree, so the cache answers; also with
//      --json, which prints every drifting source with all its commits.
//
// Later commits edit only 50 "hot" files, so about a quarter of the pages drift.
//
// Run alone: node bench/drift.mjs --out DIR [--pages N] [--commits N]  (writes the repository only).
import { mulberry32 } from "./generate-wiki.mjs";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FILES = 1000;
const FILE_LINES = 200;
const SOURCES_PER_PAGE = 5;
/** Later commits edit only these first files, as real churn concentrates on few files: about a quarter of the pages drift. */
const HOT_FILES = 50;

const fileText = (i, version) =>
  Array.from({ length: FILE_LINES }, (_, n) => (n % 37 === version % 37 ? `// module ${i} revision ${version} line ${n}` : `export const v${i}_${n} = ${n};`)).join("\n") + "\n";

function pageText(k, random) {
  const sources = [];
  for (let s = 0; s < SOURCES_PER_PAGE; s++) {
    const file = Math.floor(random() * FILES);
    const start = 1 + Math.floor(random() * (FILE_LINES - 20));
    const lines = s % 2 === 0 ? `, lines: ${start}-${start + 1 + Math.floor(random() * 15)}` : "";
    sources.push(`  - {id: s${s}, type: file, path: src/mod${file}.ts${lines}}`);
  }
  const cites = sources.map((_, s) => `[@s${s}]`).join(" ");
  return `---\ntitle: Page ${k}\ntopics: [concepts]\nsources:\n${sources.join("\n")}\n---\n\n# Page ${k}\n\nHow part ${k} works ${cites}.\n`;
}

/** Writes the repository with `commits` commits: the first adds everything, each later one edits 1–3 hot files (every 50th also a page). */
export function generateDriftRepository(root, { pages = 10_000, commits = 5_000, seed = 7 } = {}) {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const random = mulberry32(seed);
  const run = (args, input) => {
    const result = spawnSync("git", args, { cwd: root, input, maxBuffer: 1 << 30, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout;
  };
  run(["init", "-q", "-b", "main"]);
  const chunks = [];
  let mark = 0;
  const blob = (text) => {
    mark++;
    chunks.push(`blob\nmark :${mark}\ndata ${Buffer.byteLength(text)}\n${text}\n`);
    return mark;
  };
  const commit = (n, changes) => {
    const message = `change ${n}`;
    const when = 1_700_000_000 + n * 60;
    let text = `commit refs/heads/main\ncommitter Bench <bench@example.invalid> ${when} +0000\ndata ${message.length}\n${message}\n`;
    for (const [path, id] of changes) text += `M 100644 :${id} ${path}\n`;
    chunks.push(text + "\n");
  };
  const versions = new Array(FILES).fill(0);
  const first = [];
  for (let i = 0; i < FILES; i++) first.push([`src/mod${i}.ts`, blob(fileText(i, 0))]);
  first.push(["almanac/README.md", blob("---\ntitle: Home\ntopics: [concepts]\nsources: []\n---\n\n# Home\n\nThe wiki.\n")]);
  first.push(["almanac/topics.yaml", blob("topics:\n  - slug: concepts\n    title: Concepts\n    parents: []\n")]);
  for (let k = 1; k < pages; k++) first.push([`almanac/p${Math.floor(k / 500)}/page-${k}.md`, blob(pageText(k, random))]);
  commit(0, first);
  for (let n = 1; n < commits; n++) {
    const changes = [];
    const touched = 1 + Math.floor(random() * 3);
    for (let t = 0; t < touched; t++) {
      const i = Math.floor(random() * HOT_FILES);
      versions[i]++;
      changes.push([`src/mod${i}.ts`, blob(fileText(i, versions[i]))]);
    }
    if (n % 50 === 0) {
      const k = 1 + Math.floor(random() * (pages - 1));
      changes.push([`almanac/p${Math.floor(k / 500)}/page-${k}.md`, blob(pageText(k, random) + `\nRevised in change ${n}.\n`)]);
    }
    commit(n, changes);
  }
  run(["fast-import", "--quiet"], chunks.join(""));
  run(["checkout", "-q", "-f", "main"]);
  return root;
}

export async function benchDrift(ctx) {
  const root = join(ctx.tmp, "drift-repo");
  ctx.log("drift: writing 10 000 pages over 5 000 commits");
  generateDriftRepository(root);
  const stateHome = ctx.stateHome("drift");
  ctx.ca(["reindex", "--json"], { cwd: root, stateHome });
  const dropCache = () => {
    const repos = join(stateHome, "repos");
    for (const id of readdirSync(repos)) for (const name of ["drift-cache.json", "drift-history"]) rmSync(join(repos, id, name), { force: true });
  };
  const drifting = (out) => (/\d+ stale/.test(out) && !/^0 stale/m.test(out) ? null : "no page drifted: the generated history should move some evidence");
  const cold = ctx.measure({ label: "drift, cold", args: ["drift"], cwd: root, stateHome, runs: 5, before: dropCache, check: drifting });
  const rerun = ctx.measure({ label: "drift, unchanged rerun", args: ["drift"], cwd: root, stateHome, check: drifting });
  const rerunJson = ctx.measure({ label: "drift --json, unchanged rerun", args: ["drift", "--json"], cwd: root, stateHome });
  const report = JSON.parse(ctx.ca(["drift", "--json"], { cwd: root, stateHome }));
  ctx.target("drift_cold_10k", { measurement: cold, limitMs: 3000, figure: "drift.cold" });
  ctx.target("drift_unchanged_rerun_10k", { measurement: rerun, marginMs: 150, figure: "drift.unchanged_rerun" });
  return {
    pages: 10_000,
    sources_per_page: SOURCES_PER_PAGE,
    commits: 5_000,
    drifting_pages: report.pages.length,
    json_bytes: Buffer.byteLength(JSON.stringify(report, null, 2)),
    cold,
    unchanged_rerun: rerun,
    unchanged_rerun_json: rerunJson,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const at = process.argv.indexOf(name);
    return at < 0 ? fallback : process.argv[at + 1];
  };
  const out = arg("--out", null);
  if (!out) throw new Error("usage: node bench/drift.mjs --out DIR [--pages N] [--commits N]");
  generateDriftRepository(out, { pages: Number(arg("--pages", 10_000)), commits: Number(arg("--commits", 5_000)) });
  writeFileSync(join(out, ".generated"), "");
}
