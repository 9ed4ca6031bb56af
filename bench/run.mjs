#!/usr/bin/env node
// Benchmark runner behind `npm run bench` (run from the project root after a build).
//
// Prints ONE JSON document on stdout; progress goes to stderr. Every figure is a
// whole-process wall time (spawnSync of `node dist/bin.js …`) reported beside a bare
// `node -e 0` baseline measured in the same run, because the targets are margins over
// that baseline (see bench/README.md).
//
// Sections live in the `sections` registry below; `--only a,b` runs a subset. A new
// section is `async function benchX(ctx)` returning a JSON-able object; it measures
// with `ctx.measure(...)` and declares targets with `ctx.target(...)`.
import { homeEnv } from "./env.mjs";
import { spawnSync } from "node:child_process";
import { cpus, loadavg, totalmem, tmpdir, platform, arch, release } from "node:os";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchQueue } from "./queue.mjs";
import { benchLifecycle } from "./lifecycle.mjs";
import { benchSync } from "./sync.mjs";
import { benchViewer } from "./viewer.mjs";
import { benchMcp } from "./mcp.mjs";
import { benchDrift } from "./drift.mjs";
import { benchRedact } from "./redact.mjs";

const GENERATOR = fileURLToPath(new URL("./generate-wiki.mjs", import.meta.url));

const MB = 1024 * 1024;
/** Set to 1 in the runner's environment to measure without the CLI's V8 code cache. */
const COMPILE_CACHE_SWITCH = "CODEALMANAC_NO_COMPILE_CACHE";
const round1 = (x) => Math.round(x * 10) / 10;
/** Two words no generated page holds: a search that scans, refreshes and finds nothing to rank. */
const NO_MATCH_QUERY = "qzxvj wkpfh";
const round2 = (x) => Math.round(x * 100) / 100;
const log = (msg) => process.stderr.write(`[bench] ${msg}\n`);

// ---------------------------------------------------------------------------
// Options

const USAGE = `usage: node bench/run.mjs [options]

  --runs N          repetitions per timed command (default 15)
  --build-runs N    repetitions of the full \`reindex\` (default 3)
  --warmup N        unmeasured runs before each timed command (default 1)
  --sizes LIST      wiki sizes in pages, comma-separated (default 1000,10000,50000)
  --seed N          generator seed (default 42)
  --only LIST       sections to run, comma-separated (default: all; known: SECTIONS)
  --cli PATH        CLI entry to benchmark (default dist/bin.js)
  --query TEXT      search query (default: two title words the generator reports)
  --timeout-ms N    per-command timeout (default 180000)
  --samples         include every sample in the output
  --out FILE        also write the JSON document to FILE
  --keep            keep the temporary directory (its path is logged)
  -h, --help        this text
`;

function parseOptions(argv) {
  const opts = {
    runs: 15,
    buildRuns: 3,
    warmup: 1,
    sizes: [1000, 10000, 50000],
    seed: 42,
    only: null,
    cli: "dist/bin.js",
    query: null,
    timeoutMs: 180_000,
    samples: false,
    out: null,
    keep: false,
  };
  const int = (name, text, min) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new UsageError(`${name} must be an integer >= ${min}, got ${JSON.stringify(text)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new UsageError(`${arg} needs a value`);
      return argv[++i];
    };
    switch (arg) {
      case "--runs":
        opts.runs = int(arg, value(), 1);
        break;
      case "--build-runs":
        opts.buildRuns = int(arg, value(), 1);
        break;
      case "--warmup":
        opts.warmup = int(arg, value(), 0);
        break;
      case "--sizes":
        opts.sizes = value()
          .split(",")
          .map((s) => int("--sizes", s.trim().replace(/k$/i, "000"), 1));
        break;
      case "--seed":
        opts.seed = int(arg, value(), 0);
        break;
      case "--only":
        opts.only = value()
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case "--cli":
        opts.cli = value();
        break;
      case "--query":
        opts.query = value();
        break;
      case "--timeout-ms":
        opts.timeoutMs = int(arg, value(), 1);
        break;
      case "--samples":
        opts.samples = true;
        break;
      case "--out":
        opts.out = value();
        break;
      case "--keep":
        opts.keep = true;
        break;
      case "-h":
      case "--help":
        opts.help = true;
        break;
      default:
        throw new UsageError(`unknown option: ${arg}`);
    }
  }
  return opts;
}

class UsageError extends Error {}

/** A benchmarked command exited non-zero (or was killed, or timed out). */
class CommandFailed extends Error {
  constructor(command, cwd, result) {
    const how = result.error
      ? `could not run: ${result.error.message}`
      : result.signal
        ? `killed by ${result.signal}`
        : `exit code ${result.status}`;
    super(`command failed (${how}): ${command}\n  cwd: ${cwd}`);
    this.stderr = result.stderr ?? "";
    this.stdout = result.stdout ?? "";
  }
}

// ---------------------------------------------------------------------------
// Statistics

function summarize(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  const p90 = s[Math.max(0, Math.ceil(0.9 * n) - 1)]; // nearest rank
  return { median: round1(median), p90: round1(p90), min: round1(s[0]), max: round1(s[n - 1]) };
}

// ---------------------------------------------------------------------------
// Context: temp dirs, environment, measurement

const RSS_ENV = "CA_BENCH_RSS_FILE";
const PRELOAD = `'use strict';
// Injected by bench/run.mjs through NODE_OPTIONS: on exit, record this process's
// peak resident set size (KB on Linux) so the runner can report memory per command.
const fs = require('fs');
const file = process.env.${RSS_ENV};
if (file) {
  process.on('exit', () => {
    try { fs.appendFileSync(file, process.pid + ' ' + process.resourceUsage().maxRSS + '\\n'); } catch {}
  });
}
`;

/** "1k", "10k", or "300p" (never a bare number, so object keys keep their order). */
function sizeLabel(pages) {
  return pages >= 1000 && pages % 1000 === 0 ? `${pages / 1000}k` : `${pages}p`;
}

/** Sum of the regular files under `dir`, plus a per-file breakdown (relative paths). */
function diskUsage(dir) {
  let bytes = 0;
  const files = {};
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const size = statSync(full).size;
        bytes += size;
        files[relative(dir, full)] = size;
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return { bytes, files };
}

/** Every `.md` file under `<root>/almanac`, as sorted repo-relative paths. */
function listPages(root) {
  const out = [];
  const walk = (dir, rel) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const r = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), r);
      else if (entry.name.endsWith(".md")) out.push(r);
    }
  };
  walk(join(root, "almanac"), "almanac");
  return out.sort();
}

function createContext(opts) {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "ca-bench-")));
  const home = join(tmp, "home");
  const rssDir = join(tmp, "rss");
  mkdirSync(home, { recursive: true });
  mkdirSync(rssDir, { recursive: true });
  const preload = join(tmp, "rss-preload.cjs");
  writeFileSync(preload, PRELOAD);

  // One clean environment for every child: temporary HOME, no inherited CodeAlmanac
  // or Node settings (except the switch that measures cold compilation), and the RSS preload.
  const baseEnv = { ...process.env };
  for (const key of Object.keys(baseEnv)) {
    if (key === COMPILE_CACHE_SWITCH) continue;
    if (key.startsWith("CODEALMANAC_") || key === "NODE_OPTIONS" || key.startsWith("XDG_")) delete baseEnv[key];
  }
  Object.assign(baseEnv, {
    ...homeEnv(home),
    NO_COLOR: "1",
    NODE_OPTIONS: `--require ${JSON.stringify(preload)}`,
  });
  const defaultState = join(tmp, "state-default");
  mkdirSync(defaultState, { recursive: true });

  let rssSeq = 0;
  const cleanups = [];
  const measurements = [];
  const targets = [];
  const warnings = [];

  /** The environment of one child: the clean base, its state home, and per-section extras. */
  function childEnv({ stateHome, env } = {}) {
    return { ...baseEnv, CODEALMANAC_HOME: stateHome ?? defaultState, ...(env ?? {}) };
  }

  /** Runs `node <args>` once; returns wall ms, peak RSS (KB) and stdout. Throws on failure. */
  function runOnce(args, { cwd, stateHome, env: extraEnv, display, status = 0 }) {
    const rssFile = join(rssDir, `${rssSeq++}.txt`);
    const env = { ...childEnv({ stateHome, env: extraEnv }), [RSS_ENV]: rssFile };
    const started = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, {
      cwd,
      env,
      encoding: "utf8",
      maxBuffer: 512 * MB,
      timeout: opts.timeoutMs,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.error || result.status !== status) throw new CommandFailed(display, cwd, result);
    let rssKb = null;
    if (existsSync(rssFile)) {
      for (const line of readFileSync(rssFile, "utf8").split("\n")) {
        const [pid, kb] = line.split(" ").map(Number);
        if (pid === result.pid) rssKb = kb;
        else if (rssKb === null && Number.isFinite(kb)) rssKb = kb; // fallback: any process
      }
      unlinkSync(rssFile);
    }
    return { ms, rssKb, stdout: result.stdout, stderr: result.stderr };
  }

  const ctx = {
    opts,
    tmp,
    home,
    cli: null,
    baseline: null,
    log,
    sizeLabel,
    diskUsage,

    /** A fresh, empty CODEALMANAC_HOME for one scenario. */
    stateHome(label) {
      const dir = join(tmp, `state-${label}`);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      return dir;
    },

    /**
     * Registers a synchronous cleanup (stop child processes, release a lock). All of
     * them run, newest first, before the temporary directory is deleted: at the end,
     * on an error, and on SIGINT/SIGTERM. Returns a function that unregisters it.
     */
    defer(fn) {
      cleanups.push(fn);
      return () => {
        const at = cleanups.indexOf(fn);
        if (at >= 0) cleanups.splice(at, 1);
      };
    },

    runCleanups() {
      while (cleanups.length) {
        const fn = cleanups.pop();
        try {
          fn();
        } catch (error) {
          log(`cleanup failed: ${error.message}`);
        }
      }
    },

    warn(message) {
      warnings.push(message);
      log(`WARNING: ${message}`);
    },

    /**
     * Generates a wiki in a child process, so the runner's own heap stays small and
     * equal for every spawn it times. Returns the generator's summary line.
     */
    generate(root, pages, seed) {
      const args = [GENERATOR, "--pages", String(pages), "--out", root, "--seed", String(seed)];
      const result = spawnSync(process.execPath, args, { env: baseEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      if (result.error || result.status !== 0) throw new CommandFailed(`node ${args.map(quoteArg).join(" ")}`, process.cwd(), result);
      return JSON.parse(result.stdout);
    },

    /** One untimed CLI call whose stderr matters too (a trace): `{ ms, stdout, stderr }`. */
    run(args, { cwd = tmp, stateHome, env } = {}) {
      return runOnce([ctx.cli, ...args], { cwd, stateHome, env, display: `ca ${args.join(" ")}` });
    },

    /** One untimed CLI call (setup, sanity checks). `env` adds or overrides variables. */
    ca(args, { cwd = tmp, stateHome, env } = {}) {
      return runOnce([ctx.cli, ...args], { cwd, stateHome, env, display: `ca ${args.join(" ")}` }).stdout;
    },

    /**
     * The environment a child of this run gets (for processes a section spawns itself,
     * e.g. a long-running `ca jobs attach`): the clean base, `CODEALMANAC_HOME`, and `env`.
     */
    childEnv({ stateHome, env } = {}) {
      return childEnv({ stateHome, env });
    },

    /**
     * Times `node <args>` (or the CLI when `ca` is set) `runs` times after `warmup`
     * unmeasured runs. `before(i)` runs untimed before each run (warm-ups included,
     * numbered from 0); `after(i, { ms, stdout, stderr })` runs untimed after each one;
     * `check(stdout, stderr)` may return a warning string; `env` adds or overrides variables;
     * `status` is the exit code every run must end with (0 unless a failure is measured).
     * Each timed run is followed by a `node -e 0` (`paired_baseline`), and the measurement's
     * margins are taken over those: this machine's speed drifts by a third from one minute
     * to the next, and a baseline from the start and end of a long run does not see it.
     */
    measure({ label, ca = true, args, cwd = tmp, stateHome, env, runs = opts.runs, warmup = opts.warmup, before, after, check, baseline = false, status = 0 }) {
      const display = ca ? `ca ${args.map(quoteArg).join(" ")}` : `node ${args.map(quoteArg).join(" ")}`;
      const argv = ca ? [ctx.cli, ...args] : args;
      const samples = [];
      const paired = [];
      let peakKb = 0;
      let firstMs = null;
      let checked = false;
      for (let i = 0; i < warmup + runs; i++) {
        if (before) before(i);
        const r = runOnce(argv, { cwd, stateHome, env, display, status });
        if (after) after(i, r);
        if (check && !checked) {
          const problem = check(r.stdout, r.stderr);
          if (problem) ctx.warn(`${display}: ${problem}`);
          checked = true;
        }
        if (firstMs === null) firstMs = r.ms;
        if (i < warmup) continue;
        samples.push(r.ms);
        if (r.rssKb !== null) peakKb = Math.max(peakKb, r.rssKb);
        if (!baseline) paired.push(runOnce(["-e", "0"], { cwd: tmp, display: "node -e 0" }).ms);
      }
      const stats = summarize(samples);
      const m = {
        command: display,
        runs,
        median_ms: stats.median,
        p90_ms: stats.p90,
        min_ms: stats.min,
        max_ms: stats.max,
        first_ms: round1(firstMs),
        peak_rss_mb: peakKb ? round1(peakKb / 1024) : null,
      };
      if (opts.samples) m.samples_ms = samples.map(round1);
      Object.defineProperty(m, "raw", { value: samples, enumerable: false });
      if (!baseline) {
        const base = summarize(paired);
        m.paired_baseline = { median_ms: base.median, p90_ms: base.p90, min_ms: base.min };
        Object.defineProperty(m, "pairedBase", { value: base, enumerable: false });
        measurements.push(m);
      }
      log(`${label ?? display}: median ${m.median_ms} ms, p90 ${m.p90_ms} ms, min ${m.min_ms} ms, rss ${m.peak_rss_mb} MB`);
      return m;
    },

    /**
     * A figure that is not a process wall time (a latency read from the ledger, a
     * throughput): `samples` (ms) are summarized like `measure`'s, `fields` are added
     * as they are. It gets the baseline (and, with samples, the margins) like any other.
     */
    figure({ label, what, samples, fields = {}, inProcess = false }) {
      const m = { what };
      // In-process milliseconds (a span of a trace) have no `node -e 0` start-up in them to be a margin over.
      if (inProcess) Object.defineProperty(m, "inProcess", { value: true, enumerable: false });
      if (samples?.length) {
        const stats = summarize(samples);
        Object.assign(m, { runs: samples.length, median_ms: stats.median, p90_ms: stats.p90, min_ms: stats.min, max_ms: stats.max });
        if (opts.samples) m.samples_ms = samples.map(round1);
        Object.defineProperty(m, "raw", { value: samples, enumerable: false });
      }
      Object.assign(m, fields);
      measurements.push(m);
      const shown = samples?.length
        ? `median ${m.median_ms} ms, p90 ${m.p90_ms} ms, min ${m.min_ms} ms, max ${m.max_ms} ms`
        : Object.entries(fields)
            .filter(([, v]) => typeof v === "number")
            .map(([k, v]) => `${k} ${v}`)
            .join(", ");
      log(`${label ?? what}: ${shown}`);
      return m;
    },

    /**
     * Declares a target on a measurement. `marginMs`: value ≤ baseline + marginMs;
     * `limitMs`: value ≤ limitMs. `stat` picks the figure (median by default).
     * `atLeast` (with `unit`, e.g. "runs/s"): a rate per second that must be ≥ atLeast;
     * `stat` then names the field of the measurement that holds the rate.
     */
    target(name, { measurement, stat = "median", marginMs, limitMs, atLeast, unit, figure }) {
      targets.push({ name, measurement, stat, marginMs, limitMs, atLeast, unit, figure });
    },

    /** Attaches the baseline and margins to every measurement and evaluates targets. */
    finish(baselineSamples) {
      const base = summarize(baselineSamples);
      for (const m of measurements) {
        const own = m.pairedBase ?? base;
        m.baseline_median_ms = own.median;
        if (m.median_ms === undefined || m.inProcess) continue;
        m.margin_ms = {
          median: round1(m.median_ms - own.median),
          p90: round1(m.p90_ms - own.p90),
          min: round1(m.min_ms - own.min),
        };
      }
      const out = {};
      for (const t of targets) {
        if (t.atLeast !== undefined) {
          // A rate: shown as itself and as the time per item it implies, so every
          // entry still has value_ms/limit_ms beside the baseline.
          const rate = t.measurement[t.stat];
          const entry = { figure: t.figure, stat: t.stat, value: rate, unit: t.unit };
          entry.value_ms = rate > 0 ? round1(1000 / rate) : null;
          entry.baseline_ms = base.median;
          entry.margin_ms = entry.value_ms === null ? null : round1(entry.value_ms - base.median);
          entry.limit = `≥ ${t.atLeast} ${t.unit}`;
          entry.limit_value = t.atLeast;
          entry.limit_ms = round1(1000 / t.atLeast);
          entry.pass = rate >= t.atLeast;
          out[t.name] = entry;
          continue;
        }
        const value = t.measurement[`${t.stat}_ms`];
        // A margin compares like with like (median with median, p90 with p90); an
        // absolute limit on the worst run is shown beside the baseline median.
        const baseStat = t.stat === "max" ? "median" : t.stat;
        // A difference of two commands has no baseline of its own: its limit is on the difference.
        const baseline = t.stat === "difference" ? null : (t.measurement.pairedBase ?? base)[baseStat];
        const entry = { figure: t.figure, stat: t.stat, value_ms: value, baseline_ms: baseline };
        entry.margin_ms = baseline === null ? null : round1(value - baseline);
        if (t.marginMs !== undefined) {
          entry.limit = `baseline + ${t.marginMs} ms`;
          entry.limit_ms = round1(entry.baseline_ms + t.marginMs);
        } else {
          entry.limit = `${t.limitMs} ms`;
          entry.limit_ms = t.limitMs;
        }
        entry.pass = value <= entry.limit_ms;
        out[t.name] = entry;
      }
      return { targets: out, warnings };
    },
  };
  return ctx;
}

function quoteArg(a) {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(a) ? a : JSON.stringify(a);
}

function parseJson(text) {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: `stdout is not JSON (${error.message}): ${text.slice(0, 200)}` };
  }
}

// ---------------------------------------------------------------------------
// Sections

/** Start-up cost: `ca --version` must stay close to a bare Node start. */
export async function benchStartup(ctx) {
  const version = ctx.measure({
    label: "ca --version",
    args: ["--version"],
    check: (out) => (/^codealmanac \S+/.test(out) ? null : `unexpected output ${JSON.stringify(out.slice(0, 80))}`),
  });
  ctx.target("version", { measurement: version, marginMs: 40, figure: "startup.version" });
  return { version };
}

/** Index build, warm search, show, and search after touching one page, per wiki size. */
export async function benchIndex(ctx) {
  const { opts } = ctx;
  const result = {};
  for (const pages of opts.sizes) {
    const label = ctx.sizeLabel(pages);
    const root = join(ctx.tmp, `wiki-${label}`);
    ctx.log(`${label}: generating ${pages} pages (seed ${opts.seed})`);
    const gen = ctx.generate(root, pages, opts.seed);
    ctx.log(`${label}: generated ${gen.pages} pages, ${round1(gen.bytes / MB)} MB in ${gen.ms} ms`);
    const stateHome = ctx.stateHome(label);
    const query = opts.query ?? gen.query;
    const broadQuery = gen.broad_query;
    const slug = gen.show;
    const entry = {
      pages: gen.pages,
      topics: gen.topics,
      wiki_mb: round2(gen.bytes / MB),
      shape: gen.shape,
      generate_ms: gen.ms,
      query,
      broad_query: broadQuery,
      broad_query_word_pages: gen.broad_query_pages,
      show_slug: slug,
    };
    result[label] = entry;

    // Full build. The first run also registers the wiki and creates the index.
    entry.reindex = ctx.measure({
      label: `${label} reindex`,
      args: ["reindex", "--json"],
      cwd: root,
      stateHome,
      runs: opts.buildRuns,
      warmup: 0,
      check: (out) => {
        const { value, error } = parseJson(out);
        if (error) return error;
        if (value?.pages_indexed !== gen.pages) return `pages_indexed is ${value?.pages_indexed}, expected ${gen.pages}`;
        return null;
      },
    });

    const usage = ctx.diskUsage(join(stateHome, "repos"));
    entry.index_mb = round2(usage.bytes / MB);
    entry.index_files = Object.fromEntries(Object.entries(usage.files).map(([k, v]) => [k, round2(v / MB)]));
    ctx.log(`${label}: index ${entry.index_mb} MB`);

    entry.search = ctx.measure({
      label: `${label} search (unchanged)`,
      args: ["search", query, "--json"],
      cwd: root,
      stateHome,
      check: (out) => {
        const { value, error } = parseJson(out);
        if (error) return error;
        if (!Array.isArray(value)) return "expected a JSON array";
        if (value.length === 0) return `no results for ${JSON.stringify(query)}`;
        return null;
      },
    });

    // A query whose words are each on most pages: what agents ask, and the costliest to rank.
    entry.search_broad = ctx.measure({
      label: `${label} broad search (unchanged)`,
      args: ["search", broadQuery, "--json"],
      cwd: root,
      stateHome,
      check: (out) => {
        const { value, error } = parseJson(out);
        if (error) return error;
        if (!Array.isArray(value) || value.length !== 50) return `expected the best 50 for ${JSON.stringify(broadQuery)}`;
        return null;
      },
    });
    entry.search_broad.matching_pages = matchingPages(ctx, broadQuery, { cwd: root, stateHome });
    // The same process with nothing to rank: what a broad query adds is the difference.
    entry.search_none = ctx.measure({
      label: `${label} search matching nothing`,
      args: ["search", NO_MATCH_QUERY, "--json"],
      cwd: root,
      stateHome,
      check: (out) => {
        const { value, error } = parseJson(out);
        if (error) return error;
        return Array.isArray(value) && value.length === 0 ? null : `expected no results for ${JSON.stringify(NO_MATCH_QUERY)}`;
      },
    });
    entry.search_broad_added = difference(ctx, `${label} broad search over one matching nothing`, entry.search_broad, entry.search_none);
    entry.freshness_scan = traceSpan(ctx, ["search", query, "--json"], { cwd: root, stateHome }, {
      label: "freshness scan",
      what: "stat scan of every page file in a read, from the trace",
      from: "refresh: snapshot read",
      to: "refresh: scanned \\d+ files",
    });
    entry.module_loading = traceSpan(ctx, ["search", query, "--json"], { cwd: root, stateHome }, {
      label: "module loading",
      what: "a search's start-up after Node is up, to its modules loaded, from the trace",
      from: "node up",
      to: "modules loaded",
    });

    entry.show = ctx.measure({
      label: `${label} show`,
      args: ["show", slug, "--json"],
      cwd: root,
      stateHome,
      check: (out) => {
        const { value, error } = parseJson(out);
        if (error) return error;
        if (!value || typeof value !== "object" || Array.isArray(value)) return "expected a JSON object";
        return null;
      },
    });

    // An unknown slug one letter off a real one: the not-found path with did-you-mean suggestions.
    const missing = slug.slice(0, -1);
    entry.show_miss = ctx.measure({
      label: `${label} show (unknown page, did-you-mean)`,
      args: ["show", missing, "--json"],
      cwd: root,
      stateHome,
      status: 1,
      check: (_out, err) => {
        const { value, error } = parseJson(err);
        if (error) return error;
        if (value?.error?.code !== "not_found") return "expected a not_found error";
        if (!String(value.error.message).includes(slug)) return `no suggestion of ${slug}`;
        return null;
      },
    });

    // Touch one page before every run (alternating between two pages, always a new
    // content change), so each run includes an incremental refresh.
    const touchable = listPages(root).filter((f) => !f.endsWith("/README.md"));
    const touched = [touchable[Math.floor(touchable.length / 3)], touchable[Math.floor((2 * touchable.length) / 3)]];
    const originals = touched.map((f) => readFileSync(join(root, f), "utf8"));
    entry.touched_pages = touched;
    entry.refresh_search = ctx.measure({
      label: `${label} search after touching one page`,
      args: ["search", query, "--json"],
      cwd: root,
      stateHome,
      before: (i) => {
        const k = i % touched.length;
        // The size changes as well as the content, so no change detector can miss it.
        const note = " The refresh probe rewrote this paragraph.".repeat(1 + (i % 3));
        writeFileSync(join(root, touched[k]), `${originals[k]}\nBenchmark edit ${i}:${note}\n`);
      },
      check: (out) => {
        const { value, error } = parseJson(out);
        if (error) return error;
        return Array.isArray(value) ? null : "expected a JSON array";
      },
    });
    touched.forEach((f, k) => writeFileSync(join(root, f), originals[k]));
    entry.show_miss_added = difference(ctx, `${label} show of an unknown page over a found one`, entry.show_miss, entry.show);

    if (pages === 10000) {
      ctx.target("broad_search_10k", { measurement: entry.search_broad, marginMs: 100, figure: "index.10k.search_broad" });
      ctx.target("search_unchanged_10k", { measurement: entry.search, marginMs: 100, figure: "index.10k.search" });
      ctx.target("refresh_one_page_10k", { measurement: entry.refresh_search, marginMs: 200, figure: "index.10k.refresh_search" });
      ctx.target("full_build_10k", { measurement: entry.reindex, stat: "max", limitMs: 5_000, figure: "index.10k.reindex" });
      ctx.target("show_miss_10k", { measurement: entry.show_miss_added, stat: "difference", limitMs: 60, figure: "index.10k.show_miss_added" });
      ctx.target("broad_search_added_10k", { measurement: entry.search_broad_added, stat: "difference", limitMs: 20, figure: "index.10k.search_broad_added" });
      ctx.target("module_loading_10k", { measurement: entry.module_loading, limitMs: 15, figure: "index.10k.module_loading" });
    }
    rmSync(root, { recursive: true, force: true }); // free the disk before the next size
  }
  return result;
}

/** How many pages the broad query matches (the total the text output reports). */
function matchingPages(ctx, query, where) {
  const json = ctx.ca(["search", query, "--all", "--slugs", "--json"], where);
  return JSON.parse(json).length;
}

/**
 * The time between two marks of a command's trace (CODEALMANAC_TRACE=1): in-process
 * milliseconds, one sample a run. `to` may be a regular expression's source.
 */
function traceSpan(ctx, args, where, { label, what, from, to }) {
  const samples = [];
  for (let i = 0; i < ctx.opts.runs; i++) {
    const { stderr } = ctx.run(args, { ...where, env: { CODEALMANAC_TRACE: "1" } });
    const at = (mark) => Number(stderr.match(new RegExp(`([\\d.]+) ms  ${mark}\n`))?.[1]);
    const ms = at(to) - at(from);
    if (Number.isFinite(ms)) samples.push(ms);
  }
  return ctx.figure({ label: `${label} (${where.stateHome.split("/").pop()})`, what, samples, inProcess: true });
}

/**
 * What one command costs over another: the difference of their median margins, each over
 * its own paired baseline, so a machine that slowed down between the two does not count.
 */
function difference(ctx, label, measurement, over) {
  const margin = (m) => m.median_ms - m.pairedBase.median;
  const ms = round1(margin(measurement) - margin(over));
  return ctx.figure({ label, what: `median margin of \`${measurement.command}\` minus that of \`${over.command}\``, fields: { difference_ms: ms } });
}

const SCALED_FIGURES = ["reindex", "search", "search_broad", "show", "show_miss", "refresh_search"];

/**
 * Growth between consecutive sizes: each figure's median margin over the baseline, and
 * whether it grew faster than the page count did (more than 10% beyond it, for noise).
 */
export function scaling(ctx, result) {
  const sizes = Object.values(result).filter((entry) => entry && typeof entry.pages === "number").sort((a, b) => a.pages - b.pages);
  if (sizes.length < 2) return null;
  const out = {};
  for (const name of SCALED_FIGURES) {
    // Margins exist once the run's baseline is known (after ctx.finish).
    const points = sizes.map((entry) => ({ pages: entry.pages, ms: name === "reindex" ? entry[name].median_ms : entry[name].margin_ms.median }));
    const steps = points.slice(1).map((point, i) => {
      const before = points[i];
      const growth = before.ms > 0 ? round2(point.ms / before.ms) : null;
      const pagesGrowth = round2(point.pages / before.pages);
      return { from: before.pages, to: point.pages, growth, pages_growth: pagesGrowth, faster_than_pages: growth !== null && growth > pagesGrowth * 1.1 };
    });
    out[name] = { stat: name === "reindex" ? "median" : "median margin", points, steps, faster_than_pages: steps.some((step) => step.faster_than_pages) };
    if (out[name].faster_than_pages) ctx.warn(`${name} grows faster than the page count: ${steps.map((s) => `${s.from}→${s.to}: ×${s.growth} (pages ×${s.pages_growth})`).join(", ")}`);
  }
  return out;
}

/** Registry: name → async (ctx) => figures. Order here is run order. */
export const sections = {
  startup: benchStartup,
  index: benchIndex,
  queue: benchQueue,
  lifecycle: benchLifecycle,
  sync: benchSync,
  viewer: benchViewer,
  mcp: benchMcp,
  drift: benchDrift,
  redact: benchRedact,
};

// ---------------------------------------------------------------------------
// Main

export async function main(argv = process.argv.slice(2)) {
  let opts;
  try {
    opts = parseOptions(argv);
    if (opts.only) {
      const unknown = opts.only.filter((s) => !(s in sections));
      if (unknown.length) throw new UsageError(`unknown section(s): ${unknown.join(", ")}; known: ${Object.keys(sections).join(", ")}`);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`bench: ${error.message}\n\n${USAGE.replace("SECTIONS", Object.keys(sections).join(", "))}`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(USAGE.replace("SECTIONS", Object.keys(sections).join(", ")));
    return 0;
  }
  const cli = resolve(opts.cli);
  if (!existsSync(cli)) {
    process.stderr.write(`bench: ${cli} does not exist; run \`npm run build\` first or pass --cli <path>\n`);
    return 1;
  }

  const ctx = createContext(opts);
  ctx.cli = cli;
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    ctx.runCleanups();
    if (opts.keep) log(`kept ${ctx.tmp}`);
    else rmSync(ctx.tmp, { recursive: true, force: true });
  };
  process.once("exit", cleanup);
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      cleanup();
      process.exit(130);
    });
  }

  try {
    const started = Date.now();
    const load = { start: loadavg().map(round2) };
    log(`temp dir ${ctx.tmp}`);
    const fingerprint = buildFingerprint(cli);
    const version = ctx.ca(["--version"]).trim();
    log(`${version} (${cli})`);

    // The baseline is measured at the start and again at the end; the pooled samples
    // are the baseline, and the difference between the halves shows drift.
    const baselineArgs = { label: "baseline node -e 0", ca: false, args: ["-e", "0"], runs: Math.max(opts.runs, 15), baseline: true };
    const baseStart = ctx.measure(baselineArgs);
    const bodies = {};
    const selected = Object.keys(sections).filter((name) => !opts.only || opts.only.includes(name));
    for (const name of selected) {
      log(`section ${name}`);
      bodies[name] = await sections[name](ctx);
    }
    const baseEnd = ctx.measure(baselineArgs);
    if (buildFingerprint(cli) !== fingerprint) {
      ctx.warn(`${relative(process.cwd(), cli) || cli} changed while the benchmark ran (a rebuild?); figures may mix builds, and runs may have failed`);
    }
    const pooled = pooledBaseline(ctx, baseStart, baseEnd);
    ctx.baseline = pooled;
    const { targets, warnings } = ctx.finish([...baseStart.raw, ...baseEnd.raw]);
    if (bodies.index) bodies.index.scaling = scaling(ctx, bodies.index);
    load.end = loadavg().map(round2);

    const doc = {
      schema: 1,
      generated_at: new Date().toISOString(),
      duration_s: round1((Date.now() - started) / 1000),
      machine: {
        node: process.version,
        platform: `${platform()} ${release()} ${arch()}`,
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model ?? null,
        memory_gb: round1(totalmem() / 1024 ** 3),
        load_avg: load,
      },
      cli: {
        path: cli.startsWith(process.cwd() + "/") ? relative(process.cwd(), cli) : cli,
        version,
        compile_cache: process.env[COMPILE_CACHE_SWITCH] !== "1",
      },
      options: {
        runs: opts.runs,
        build_runs: opts.buildRuns,
        warmup: opts.warmup,
        sizes: opts.sizes,
        seed: opts.seed,
        sections: selected,
      },
      baseline: pooled,
      sections: bodies,
      targets,
      all_targets_pass: Object.values(targets).every((t) => t.pass),
      warnings,
    };
    const text = JSON.stringify(doc, null, 2) + "\n";
    if (opts.out) writeFileSync(opts.out, text);
    process.stdout.write(text);
    for (const [name, t] of Object.entries(targets)) {
      const shown = t.unit
        ? `${t.value} ${t.unit} (${t.value_ms} ms each) vs ${t.limit} (${t.limit_ms} ms each)`
        : `${t.value_ms} ms (${t.stat}) vs ${t.limit} = ${t.limit_ms} ms`;
      log(`target ${name}: ${shown}, baseline ${t.baseline_ms} ms → ${t.pass ? "pass" : "FAIL"}`);
    }
    return 0;
  } catch (error) {
    if (error instanceof CommandFailed) {
      process.stderr.write(`bench: ${error.message}\n`);
      if (error.stderr) process.stderr.write(`--- stderr ---\n${error.stderr.slice(-20_000)}\n`);
      if (error.stdout) process.stderr.write(`--- stdout (first 2000 chars) ---\n${error.stdout.slice(0, 2000)}\n`);
      return 1;
    }
    throw error;
  } finally {
    cleanup();
  }
}

/**
 * What identifies the build under test: the entry's inode, size and mtime, plus the
 * listing of a sibling `chunks/` folder (esbuild's split output). A rebuild while the
 * benchmark runs changes it, and then the figures mix two builds (or runs fail).
 */
function buildFingerprint(cli) {
  const parts = [];
  try {
    const st = statSync(cli);
    parts.push(`${st.ino}:${st.size}:${st.mtimeMs}`);
  } catch {
    parts.push("missing");
  }
  try {
    parts.push(readdirSync(join(cli, "..", "chunks")).sort().join(","));
  } catch {
    // no chunks folder
  }
  return parts.join("|");
}

/** The baseline figure: both halves pooled, with each half's median and the drift. */
function pooledBaseline(ctx, start, end) {
  const samples = [...start.raw, ...end.raw];
  const s = summarize(samples);
  return {
    command: "node -e 0",
    runs: samples.length,
    median_ms: s.median,
    p90_ms: s.p90,
    min_ms: s.min,
    max_ms: s.max,
    peak_rss_mb: Math.max(start.peak_rss_mb ?? 0, end.peak_rss_mb ?? 0) || null,
    start_median_ms: start.median_ms,
    end_median_ms: end.median_ms,
    drift_ms: round1(end.median_ms - start.median_ms),
    ...(ctx.opts.samples ? { samples_ms: samples.map(round1) } : {}),
  };
}

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`bench: internal error: ${error.stack ?? error}\n`);
      process.exitCode = 1;
    },
  );
}
