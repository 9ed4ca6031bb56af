// The `lifecycle` section of bench/run.mjs: what one agent run costs us, apart from the
// agent, on a 10 000-page wiki, and how big the prompts get.
//
//   1. overhead per run: `ca garden --using claude --wait` with the no-op fake agent
//      (test/fixtures/bin/claude, FAKE_CLAUDE_DELAY_MS=0) in a git repository holding the
//      generated wiki. Overhead = (finished_at − created_at of the run) − (the agent's own
//      time: from the `starting claude …` event to the agent's terminal `done` event).
//      It covers the worker and executor start, readiness, the index baseline and health
//      findings, the garden context, both git snapshots, the refresh, the gate and the
//      ledger writes.
//   2. prompt sizes: the garden prompt on that wiki, the build prompt on a repository of
//      10 000 files, and an ingest prompt whose source is larger than the source budget,
//      each beside its budget (read from the fake agent's prompt file).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { homeEnv } from "./env.mjs";

const FAKE_BIN = fileURLToPath(new URL("../test/fixtures/bin", import.meta.url));
const PAGES = 10_000;
const OVERHEAD_RUNS = 7;
/** Mirrors src/lifecycle/prompts.ts. */
const BUDGETS = { garden: 24_000, build: 16_000, sources: 60_000 };


function git(cwd, ...args) {
  execFileSync("git", args, {
    cwd,
    stdio: "ignore",
    env: { ...process.env, GIT_AUTHOR_NAME: "bench", GIT_AUTHOR_EMAIL: "b@x", GIT_COMMITTER_NAME: "bench", GIT_COMMITTER_EMAIL: "b@x" },
  });
}

function commitAll(root) {
  git(root, "init", "-q", "-b", "main");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "bench");
}

export async function benchLifecycle(ctx) {
  const { default: Database } = await import("better-sqlite3");
  const home = join(ctx.tmp, "lifecycle-home");
  mkdirSync(home, { recursive: true });
  const promptFile = join(ctx.tmp, "lifecycle-prompt.txt");
  const env = { ...homeEnv(home), PATH: `${FAKE_BIN}${delimiter}${process.env.PATH ?? ""}`, FAKE_CLAUDE_PROMPT_FILE: promptFile };
  for (const key of Object.keys(process.env)) if (key.startsWith("FAKE_CLAUDE_")) env[key] ??= undefined;
  Object.assign(env, { FAKE_CLAUDE_SCENARIO: "success", FAKE_CLAUDE_DELAY_MS: "0" });
  const result = { pages: PAGES, agent: "test/fixtures/bin/claude, FAKE_CLAUDE_DELAY_MS=0", budgets_chars: BUDGETS };

  // The wiki, committed, and its index built once (a full build is not per-run overhead).
  const root = join(ctx.tmp, "lifecycle-repo");
  const gen = ctx.generate(root, PAGES, ctx.opts.seed);
  commitAll(root);
  const stateHome = ctx.stateHome("lifecycle");
  ctx.ca(["reindex", "--json"], { cwd: root, stateHome, env });
  const run = (args, cwd = root) => JSON.parse(ctx.ca([...args, "--wait", "--json"], { cwd, stateHome, env }));

  const db = new Database(join(stateHome, "codealmanac.db"), { readonly: true });
  try {
    const eventAt = db.prepare("SELECT created_at FROM run_events WHERE run_id = ? AND message LIKE ? ORDER BY seq LIMIT 1").pluck();
    const doneAt = db
      .prepare("SELECT created_at FROM run_events WHERE run_id = ? AND json_extract(payload_json, '$.kind') = 'done' ORDER BY seq DESC LIMIT 1")
      .pluck();
    const times = db.prepare("SELECT created_at, finished_at, status FROM runs WHERE run_id = ?");
    const overhead = [];
    const agent = [];
    const wall = [];
    for (let i = 0; i < OVERHEAD_RUNS + 1; i++) {
      const started = performance.now();
      const record = run(["garden", "--using", "claude"]);
      const elapsed = performance.now() - started;
      const row = times.get(record.run_id);
      if (row.status !== "done") throw new Error(`lifecycle bench: garden run ended ${row.status}: ${record.error}`);
      const agentMs = doneAt.get(record.run_id) - eventAt.get(record.run_id, "starting claude%");
      if (i === 0) continue; // warm-up: the first run also writes the compile cache
      agent.push(agentMs);
      overhead.push(row.finished_at - row.created_at - agentMs);
      wall.push(elapsed);
    }
    result.overhead = ctx.figure({ label: "lifecycle overhead per run (10k wiki)", what: "enqueue → done minus the agent's own time", samples: overhead });
    result.agent_time = ctx.figure({ label: "lifecycle agent time (no-op fake)", what: "starting event → agent done", samples: agent });
    result.wait_wall = ctx.figure({ label: "ca garden --wait wall time (10k wiki)", what: "whole `ca garden --wait` process", samples: wall });
    ctx.target("run_overhead_10k", { measurement: result.overhead, limitMs: 1500, figure: "lifecycle.overhead" });
    result.garden_prompt_chars = readFileSync(promptFile, "utf8").length;
    result.garden_context_chars = contextChars(readFileSync(promptFile, "utf8"), "garden");

    // An ingest whose one source is four times the source budget: the prompt stays bounded.
    writeFileSync(join(root, "big-notes.md"), `# Big notes\n\n${"The queue drains first in, first out. ".repeat(6_500)}\n`);
    run(["ingest", "big-notes.md", "--using", "claude"]);
    const ingestPrompt = readFileSync(promptFile, "utf8");
    result.ingest_prompt_chars = ingestPrompt.length;
    result.ingest_source_chars = statSync(join(root, "big-notes.md")).size;
  } finally {
    db.close();
  }

  // A repository of 10 000 files (the generated pages as ordinary docs) gets its first build.
  const repo = join(ctx.tmp, "lifecycle-build");
  ctx.generate(repo, PAGES, ctx.opts.seed);
  renameSync(join(repo, "almanac"), join(repo, "docs"));
  commitAll(repo);
  run(["init", "--using", "claude"], repo);
  const buildPrompt = readFileSync(promptFile, "utf8");
  result.build_prompt_chars = buildPrompt.length;
  result.build_context_chars = contextChars(buildPrompt, "repository_inventory");
  result.build_files = gen.pages;
  ctx.log(
    `prompts: garden ${result.garden_prompt_chars} chars (context ${result.garden_context_chars} / ${BUDGETS.garden}), ` +
      `build ${result.build_prompt_chars} (inventory ${result.build_context_chars} / ${BUDGETS.build}), ` +
      `ingest ${result.ingest_prompt_chars} for a ${result.ingest_source_chars}-char source (budget ${BUDGETS.sources})`,
  );
  rmSync(repo, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
  return result;
}

/** Characters of one key of the prompt's runtime context, serialized as the prompt has it. */
function contextChars(prompt, key) {
  const start = prompt.indexOf("Runtime context:\n");
  if (start < 0) return null;
  const json = prompt.slice(start + "Runtime context:\n".length).split("\n\nSource material:")[0];
  const context = JSON.parse(json);
  return context[key] === undefined ? null : JSON.stringify(context[key], null, 2).length;
}
