#!/usr/bin/env node
// The package as a user gets it: `npm pack` this checkout, check what the tarball holds,
// install it with `npm install -g` into an empty prefix under a fresh HOME, and use that
// install (never the clone): `--version`, reads and the viewer on a small wiki, `init`
// (whose agent reads the packaged manual; `--with-manual` copies it) and a queued ingest
// run with the fake Claude Code.
// Exits 1 with one line per problem. Run by .ci/run after the tests; described in
// almanac/guides/packaging.md.
import { spawn, spawnSync } from "node:child_process";
import { builtinModules, createRequire } from "node:module";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { performance } from "node:perf_hooks";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Node 20's built-in fetch (not among the globals the lint config declares). */
const { fetch } = globalThis;
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
/** What the runtime loads by path from inside the package (src/wiki/scaffold.ts, src/viewer/static.ts, src/index/parse-pool.ts). */
const REQUIRED = [
  "package.json",
  "README.md",
  "dist/bin.js",
  "dist/package.json",
  "dist/parse-worker.js",
  "dist/manual/README.md",
  "dist/viewer/assets/index.html",
  "dist/viewer/assets/app.js",
  "dist/viewer/assets/vendor/cytoscape.min.js",
];
/** Files a user never needs: sources, tests and fixtures, source maps, our own wiki and tooling. */
const UNWANTED = [
  /^(src|test|tests|bench|verify|scripts|almanac|coverage|node_modules|\.ci)\//,
  /(^|\/)(__tests__|fixtures)\//,
  /\.(map|tsx?)$/,
  /\.(test|spec)\.[cm]?js$/,
];
const TOP_LEVEL = /^(package\.json|README\.md|LICENSE(\.md|\.txt)?|dist\/.+)$/;

const work = realpathSync(mkdtempSync(join(tmpdir(), "ca-pack-check-")));
const home = join(work, "home");
const state = join(work, "state");
const prefix = join(work, "prefix");
const problems = [];

async function main() {
  mkdirSync(home, { recursive: true });
  // A git identity, as a user's machine has one: the run's product commit needs it.
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Pack Check\n\temail = pack-check@codealmanac.invalid\n");
  const npmEnv = npmEnvironment();
  const tarball = timed("pack", () => pack(npmEnv));
  if (problems.length > 0) return;
  timed("install", () => install(npmEnv, tarball));
  checkBundleRequires();
  const env = productEnvironment();
  timed("version", () => checkVersion(env));
  await timedAsync("read", () => checkReads(env));
  timed("init", () => checkInit(env));
  timed("queued run", () => checkQueuedRun(env));
  await timedAsync("settle", () => settled());
}

// ---------------------------------------------------------------------------
// Pack and install

/**
 * npm with a fresh HOME. Its cache is the caller's `npm_config_cache` (CI's scratch cache),
 * else one in the scratch folder, so the real ~/.npm is never read or written.
 */
function npmEnvironment() {
  const env = { ...process.env, HOME: home, CODEALMANAC_HOME: state };
  env.npm_config_cache = process.env.npm_config_cache || join(work, "npm-cache");
  // Where better-sqlite3 has no prebuilt addon to download (or GitHub is out of reach), it
  // compiles with node-gyp, which fetches Node's headers from nodejs.org unless it is told
  // where they are: this Node's own headers, when it ships them, keep the install offline
  // but for the npm registry.
  const nodePrefix = dirname(dirname(process.execPath));
  if (!env.npm_config_nodedir && existsSync(join(nodePrefix, "include", "node", "node_api.h"))) env.npm_config_nodedir = nodePrefix;
  // Settings of an enclosing `npm run` would point npm back at this checkout.
  for (const key of Object.keys(env)) if (/^npm_(package_|lifecycle_|config_(local_)?prefix$)/i.test(key)) delete env[key];
  return env;
}

function pack(env) {
  const result = npm(["pack", "--json", "--pack-destination", work], { env, cwd: ROOT });
  const report = lastJson(result.stdout);
  if (!report) throw new Error(`npm pack printed no JSON report (exit ${result.status}): ${firstLine(result.stderr)}`);
  const [entry] = report;
  const paths = entry.files.map((file) => file.path);
  console.log(`pack-check: ${entry.filename}: packed ${kilobytes(entry.size)}, unpacked ${kilobytes(entry.unpackedSize)}, ${entry.entryCount} files`);
  for (const path of paths) {
    if (UNWANTED.some((pattern) => pattern.test(path)) || !TOP_LEVEL.test(path)) problems.push(`the tarball holds ${path}, which a user never needs`);
  }
  for (const path of REQUIRED) if (!paths.includes(path)) problems.push(`the tarball lacks ${path}`);
  return join(work, entry.filename);
}

function install(env, tarball) {
  // npm 11.16+ asks for install scripts to be approved (npm 12 skips the rest); better-sqlite3's builds its addon.
  const result = npm(["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", "--allow-scripts=better-sqlite3", tarball], { env, cwd: work });
  if (result.status !== 0) throw new Error(`npm install -g of the tarball failed (exit ${result.status}): ${lastLines(result.stderr)}`);
  const installed = installedPackage();
  const modules = existsSync(join(installed, "node_modules")) ? readdirSync(join(installed, "node_modules")).filter((name) => !name.startsWith(".")) : [];
  console.log(`pack-check: installed into ${prefix} (${modules.length} top-level dependencies)`);
  if (!existsSync(join(installed, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"))) {
    throw new Error("the install has no better-sqlite3 addon (its install script did not build or download it)");
  }
}

/**
 * esbuild bundles every package but the ones it is told to leave out, so the bundle's
 * `require("<package>")` calls are all the runtime loads from node_modules: each must
 * resolve inside the install (the runtime dependencies, and what they depend on).
 */
function checkBundleRequires() {
  const installed = installedPackage();
  const requireFromBundle = createRequire(join(installed, "dist", "bin.js"));
  const builtins = new Set(builtinModules);
  const wanted = new Set();
  for (const file of jsFiles(join(installed, "dist"))) {
    // A bare require() outside a string (ajv keeps `'require("ajv/...")'` as code it generates),
    // esbuild's __require, or createRequire(…).resolve (the SQLite addon, src/core/sqlite.ts).
    const pattern = /(?<![\w$.'"`])require\("([^"]+)"\)|\.__require\)\("([^"]+)"\)|\)\.resolve\("([^"]+)"\)/g;
    for (const match of readFileSync(file, "utf8").matchAll(pattern)) {
      const spec = match[1] ?? match[2] ?? match[3];
      if (!spec.startsWith(".") && !spec.startsWith("node:") && !builtins.has(spec)) wanted.add(spec);
    }
  }
  for (const spec of wanted) {
    try {
      requireFromBundle.resolve(spec);
    } catch {
      problems.push(`the bundle requires ${spec}, which the install cannot resolve (add it to dependencies, or bundle it)`);
    }
  }
  console.log(`pack-check: the bundle loads ${[...wanted].sort().join(", ") || "nothing"} from node_modules`);
}

function jsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}

function installedPackage() {
  const lib = process.platform === "win32" ? join(prefix, "node_modules") : join(prefix, "lib", "node_modules");
  return join(lib, PKG.name);
}

function npm(args, options) {
  return spawnSync("npm", args, { ...options, encoding: "utf8", shell: process.platform === "win32", stdio: ["ignore", "pipe", "pipe"] });
}

// ---------------------------------------------------------------------------
// Use the install

/**
 * The installed bins first, then the fake agent CLIs (a copy, so nothing is loaded from the
 * clone), then the caller's PATH without any folder of this checkout (its node_modules/.bin
 * holds the real agent CLIs).
 */
function productEnvironment() {
  const fakes = join(work, "fake-bin");
  cpSync(join(ROOT, "test", "fixtures", "bin"), fakes, { recursive: true });
  const rest = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && !dir.startsWith(ROOT));
  const env = { ...process.env, HOME: home, CODEALMANAC_HOME: state, CODEALMANAC_SCHEDULER: "none", NO_COLOR: "1" };
  for (const key of Object.keys(env)) if (/^(npm_|FAKE_|CODEALMANAC_TEST_)/i.test(key)) delete env[key];
  env.PATH = [join(prefix, "bin"), fakes, ...rest].join(delimiter);
  return env;
}

function ca(env, args, options = {}) {
  return spawnSync("ca", args, { cwd: options.cwd ?? work, env: { ...env, ...options.env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function expectExit(result, what, code = 0) {
  if (result.error) throw new Error(`${what}: ${result.error.message}`);
  if (result.status !== code) throw new Error(`${what} exited ${result.status} (wanted ${code}): ${firstLine(result.stderr) || firstLine(result.stdout)}`);
  return result.stdout;
}

function checkVersion(env) {
  const which = spawnSync("sh", ["-c", "command -v ca"], { env, encoding: "utf8" }).stdout.trim();
  if (which !== join(prefix, "bin", "ca")) throw new Error(`\`ca\` on PATH is ${which || "missing"}, not the installed one`);
  for (const bin of ["ca", "codealmanac"]) {
    const out = expectExit(spawnSync(bin, ["--version"], { env, cwd: work, encoding: "utf8" }), `${bin} --version`).trim();
    if (out !== `codealmanac ${PKG.version}`) problems.push(`${bin} --version printed "${out}", wanted "codealmanac ${PKG.version}"`);
  }
}

const PAGE = [
  "---",
  "title: Run queue",
  "summary: How queued runs drain",
  "topics: [concepts]",
  "sources: []",
  "---",
  "",
  "# Run queue",
  "",
  "A detached worker drains the quetzal queue one run at a time.",
  "",
].join("\n");

function smallWiki(name) {
  const root = join(work, name);
  const files = {
    "almanac/README.md": "---\ntitle: Home\nsummary: The landing page\ntopics: [concepts]\nsources: []\n---\n\n# Home\n\nSee [[concepts/run-queue]].\n",
    "almanac/topics.yaml": "topics:\n  - slug: concepts\n    title: Concepts\n    parents: []\n",
    "almanac/concepts/run-queue.md": PAGE,
    "notes.md": "# Notes\n\nThe worker commits what the agent wrote under almanac/.\n",
  };
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "initial");
  return root;
}

function git(cwd, ...args) {
  const result = spawnSync("git", args, { cwd, env: { ...process.env, HOME: home }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${firstLine(result.stderr)}`);
  return result.stdout;
}

async function checkReads(env) {
  const root = smallWiki("reads");
  expectExit(ca(env, ["validate"], { cwd: root }), "ca validate");
  const slugs = expectExit(ca(env, ["search", "quetzal", "--slugs"], { cwd: root }), "ca search");
  if (slugs !== "concepts/run-queue\n") problems.push(`ca search quetzal --slugs printed ${JSON.stringify(slugs)}`);
  const shown = JSON.parse(expectExit(ca(env, ["show", "concepts/run-queue", "--json"], { cwd: root }), "ca show --json"));
  if (shown.title !== "Run queue") problems.push(`ca show --json gave the title ${JSON.stringify(shown.title)}`);
  await checkViewer(env, root);
}

/** The viewer's shell, client and vendored graph library, served from the installed package. */
async function checkViewer(env, root) {
  const server = spawn("ca", ["serve", "--port", "0", "--no-open"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await printedUrl(server);
    const assets = join(installedPackage(), "dist", "viewer", "assets");
    const shell = await fetch(url);
    if (shell.status !== 200 || !(await shell.text()).includes("<title>CodeAlmanac</title>")) problems.push(`the viewer's shell answered ${shell.status}`);
    for (const rel of ["app.js", "vendor/cytoscape.min.js"]) {
      const response = await fetch(new URL(`assets/${rel}`, url));
      const body = Buffer.from(await response.arrayBuffer());
      if (response.status !== 200 || !body.equals(readFileSync(join(assets, rel)))) problems.push(`the viewer served /assets/${rel} with ${response.status}, not the installed file`);
    }
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => (server.exitCode !== null || server.signalCode !== null ? resolve() : server.once("exit", resolve)));
  }
}

function printedUrl(server) {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      const found = /https?:\/\/\S+/.exec(out);
      if (found) resolve(found[0]);
    });
    server.stderr.on("data", (chunk) => (err += chunk));
    server.once("exit", (code) => reject(new Error(`ca serve exited ${code} before printing its address: ${firstLine(err)}`)));
  });
}

/**
 * `init` scaffolds only what the team owns and queues the first build (the fake agent), whose
 * prompt points at the installed package's manual; `init --with-manual` copies that manual.
 */
function checkInit(env) {
  const manual = join(installedPackage(), "dist", "manual");
  const fresh = gitRepository("fresh");
  const promptFile = join(work, "init-prompt.txt");
  const record = JSON.parse(expectExit(ca(env, ["init", "--using", "claude", "--wait", "--json"], { cwd: fresh, env: { FAKE_CLAUDE_PROMPT_FILE: promptFile } }), "ca init --wait"));
  if (record.status !== "done") problems.push(`the build run queued by init ended ${record.status}`);
  if (existsSync(join(fresh, "almanac", "manual"))) problems.push("init copied the manual without --with-manual");
  const prompt = existsSync(promptFile) ? readFileSync(promptFile, "utf8") : "";
  const root = /"manual_root": ("(?:[^"\\]|\\.)*")/.exec(prompt);
  const pointed = root ? JSON.parse(root[1]) : null;
  if (pointed === null || !existsSync(join(pointed, "README.md")) || realpathSync(pointed) !== realpathSync(manual)) {
    problems.push(`the build's prompt points at the manual ${JSON.stringify(pointed)}, not the installed ${manual}`);
  }
  const owned = gitRepository("owned");
  const copied = JSON.parse(expectExit(ca(env, ["init", "--with-manual", "--using", "claude", "--wait", "--json"], { cwd: owned }), "ca init --with-manual --wait"));
  if (copied.status !== "done") problems.push(`the build run queued by init --with-manual ended ${copied.status}`);
  for (const name of readdirSync(manual)) {
    const copy = join(owned, "almanac", "manual", name);
    if (!existsSync(copy) || !readFileSync(copy).equals(readFileSync(join(manual, name)))) problems.push(`init --with-manual did not copy the packaged manual's ${name}`);
  }
}

/** A new git repository under the work folder with one commit. */
function gitRepository(name) {
  const root = join(work, name);
  mkdirSync(root);
  writeFileSync(join(root, "main.js"), "console.log('hi');\n");
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "initial");
  return root;
}

/** A queued ingest run with the fake Claude Code, followed to its end; its page is committed and searchable. */
function checkQueuedRun(env) {
  const root = smallWiki("queued");
  const page = PAGE.replace("title: Run queue", "title: Worker commits").replace("quetzal queue", "axolotl commits").replace("# Run queue", "# Worker commits");
  const writes = JSON.stringify({ "almanac/concepts/worker-commits.md": page });
  const result = ca(env, ["ingest", "notes.md", "--using", "claude", "--wait", "--json"], { cwd: root, env: { FAKE_CLAUDE_WRITE_FILES: writes } });
  const record = JSON.parse(expectExit(result, "ca ingest --wait"));
  if (record.status !== "done") problems.push(`the ingest run ended ${record.status}`);
  if (!record.page_changes?.created?.includes("concepts/worker-commits")) problems.push(`the ingest run recorded ${JSON.stringify(record.page_changes)}`);
  const slugs = expectExit(ca(env, ["search", "axolotl", "--slugs"], { cwd: root }), "ca search after the run");
  if (slugs !== "concepts/worker-commits\n") problems.push(`the run's page is not searchable: ${JSON.stringify(slugs)}`);
  const subject = git(root, "log", "-1", "--format=%s").trim();
  if (!subject.startsWith("almanac: ")) problems.push(`the run left the commit "${subject}", not its own`);
  const shown = JSON.parse(expectExit(ca(env, ["jobs", "show", record.run_id, "--json"], { cwd: root }), "ca jobs show"));
  if (shown.status !== "done") problems.push(`ca jobs show says ${shown.status}`);
}

/** Waits until no process started for this check is alive (the queue's worker exits once idle). */
async function settled() {
  if (process.platform !== "linux") return;
  while (ourProcesses().length > 0) await new Promise((resolve) => setTimeout(resolve, 25));
}

function ourProcesses() {
  const marker = `CODEALMANAC_HOME=${state}`;
  return readdirSync("/proc").filter((name) => {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) return false;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 1).trim()) && readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(marker);
    } catch {
      return false;
    }
  });
}

// ---------------------------------------------------------------------------
// Reporting

function timed(step, action) {
  const started = performance.now();
  const value = action();
  console.log(`pack-check: ${step}: ${seconds(started)}`);
  return value;
}

async function timedAsync(step, action) {
  const started = performance.now();
  const value = await action();
  console.log(`pack-check: ${step}: ${seconds(started)}`);
  return value;
}

function finish() {
  if (problems.length === 0) {
    rmSync(work, { recursive: true, force: true });
    console.log("pack-check: ok");
    return;
  }
  for (const problem of problems) console.error(`pack-check: ${problem}`);
  console.error(`pack-check: failed; the scratch folder is kept: ${work}`);
  process.exitCode = 1;
}

function lastJson(stdout) {
  const start = stdout.lastIndexOf("\n[");
  try {
    return JSON.parse(start === -1 ? stdout : stdout.slice(start + 1));
  } catch {
    return null;
  }
}

function seconds(started) {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}

function kilobytes(bytes) {
  return `${(bytes / 1024).toFixed(0)} kB (${bytes} bytes)`;
}

function firstLine(text) {
  return (text ?? "").trim().split("\n")[0] ?? "";
}

function lastLines(text) {
  return (text ?? "").trim().split("\n").slice(-3).join(" | ");
}

main().then(
  () => finish(),
  (error) => {
    problems.push(error instanceof Error ? error.message : String(error));
    finish();
  },
);
