/**
 * Our Codex adapter against the REAL Codex CLI (`@openai/codex`, pinned devDependency),
 * offline: codex talks to a scripted local stand-in for the OpenAI Responses API
 * (./openai-stand-in.ts) through a custom `model_provider` in a private CODEX_HOME. The
 * rest is real: `ca ingest --wait` queues a run, the worker starts an executor, the
 * executor runs `codex exec --json … -s workspace-write`, codex applies real patches in its
 * real sandbox and writes a real rollout.
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileLines, rangeFingerprint } from "../../src/wiki/evidence.js";
import type { Sandbox } from "../support/cli.js";
import { waitForIdle } from "../queue/support.js";
import { addFilePatch, codexConfigToml, execScript, startOpenAIStandIn, toolOutputs, type OpenAIStandIn, type OpenAIStandInReply } from "./openai-stand-in.js";
import {
  committed,
  pageCitingNotes,
  pathWithout,
  permittedCommands,
  probeCli,
  repoWithStalePage,
  requestText,
  realSandbox,
  repoWithNotes,
  runTimeout,
  settledProcesses,
  stageUserFile,
  type JobRecord,
  type LogEntry,
} from "./support.js";

const CODEX_VERSION = "0.171.0";

const probe = probeCli(
  {
    bin: "codex",
    name: "@openai/codex",
    version: CODEX_VERSION,
    versionLine: (output) => output.trim() === `codex-cli ${CODEX_VERSION}`,
    nativePackage: (platform) => `@openai/codex-${platform}`,
  },
  { musl: false },
);
if (probe.skip) console.warn(`[real-agents] skipping the real Codex tests: ${probe.skip}`);

function requireCodex(): void {
  if (probe.broken) throw new Error(probe.broken);
}

let box: Sandbox | undefined;
let standIn: OpenAIStandIn | undefined;

afterEach(async () => {
  if (box) {
    await waitForIdle(box);
    box.cleanup();
    box = undefined;
  }
  await standIn?.close();
  standIn = undefined;
});

/** A sandbox with the real codex first on PATH and a CODEX_HOME whose provider is the stand-in. */
function codexSandbox(api: OpenAIStandIn): { box: Sandbox; codexHome: string } {
  const made = realSandbox({ STANDIN_OPENAI_API_KEY: "sk-standin-not-a-real-key" });
  const codexHome = join(made.dir, "codex-home");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, "config.toml"), codexConfigToml(api));
  made.env.CODEX_HOME = codexHome;
  return { box: made, codexHome };
}

function diagnostics(sandboxed: Sandbox, runId: string, api: OpenAIStandIn): string {
  const logs = sandboxed.run(["jobs", "logs", runId, "--json"]);
  return [`jobs logs: ${logs.stdout || logs.stderr}`, `stand-in requests: ${api.requests.map((r) => `${r.method} ${r.url} [${r.role} turn ${r.turn ?? "-"}]`).join(", ")}`].join(
    "\n",
  );
}

const PAGE = [
  "---",
  "title: Real codex",
  "summary: A page written by the real Codex CLI through a local API stand-in.",
  "topics: [concepts]",
  "sources: []",
  "---",
  "",
  "# Real codex",
  "",
  "The axolotl marker proves this page came from a real apply_patch call.",
  "",
].join("\n");

const suiteName = probe.skip ? `real Codex CLI (skipped: ${probe.skip})` : `real Codex CLI ${CODEX_VERSION}`;

describe.skipIf(probe.skip !== null)(suiteName, () => {
  test("is installed from the lockfile and runnable", () => {
    requireCodex();
  });

  test("ingest --wait: codex writes a page with apply_patch, the run ends done, the rollout is recorded", { timeout: 60_000 }, async () => {
    requireCodex();
    const script: OpenAIStandInReply[] = [
      { type: "tools", text: "I'll look at the repository first.", calls: [{ type: "function_call", name: "exec_command", arguments: { cmd: "git status --short" } }] },
      { type: "tools", calls: [{ type: "apply_patch", patch: addFilePatch("almanac/concepts/real-codex.md", PAGE) }] },
      { type: "message", text: "Added concepts/real-codex: a page about the real codex." },
    ];
    standIn = await startOpenAIStandIn({ script });
    const made = codexSandbox(standIn);
    box = made.box;
    const root = repoWithNotes(box);

    const result = await box.runAsync(["ingest", "notes.md", "--using", "codex", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");
    expect(result.code).toBe(0);

    expect(readFileSync(join(root, "almanac", "concepts", "real-codex.md"), "utf8")).toBe(PAGE);
    expect(show).toMatchObject({ error: null, summary: "Added concepts/real-codex: a page about the real codex." });
    expect(show.page_changes?.created).toEqual(["concepts/real-codex"]);
    const hits = box.run(["search", "axolotl", "--json"], { cwd: root }).json<{ slug: string }[]>();
    expect(hits.map((hit) => hit.slug)).toEqual(["concepts/real-codex"]);

    const logs = box.run(["jobs", "logs", show.run_id, "--json"]).json<LogEntry[]>();
    expect(logs.filter((entry) => entry.kind === "tool").map((entry) => [entry.tool, entry.status, entry.target])).toEqual([
      ["shell", "completed", "git status --short"],
      ["write", "completed", "almanac/concepts/real-codex.md"],
    ]);

    // The thread id and the rollout, marked as ours for sync.
    const transcript = show.harness_transcript!;
    expect(transcript.kind).toBe("codex");
    expect(transcript.transcript_path).toMatch(new RegExp(`^${made.codexHome}/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-.*-${transcript.session_id}\\.jsonl$`));
    const meta = JSON.parse(readFileSync(transcript.transcript_path!, "utf8").split("\n")[0]!) as { payload: Record<string, unknown> };
    expect(meta.payload).toMatchObject({ id: transcript.session_id, cwd: root, originator: "codealmanac", thread_source: "codealmanac" });

    // Sync sees the real rollout of our own run and never queues it.
    const sync = box.run(["sync", "status", "--json"], { cwd: root }).json<{ ready: unknown[]; skipped: { transcript_path: string; reason: string }[] }>();
    expect(sync.ready).toEqual([]);
    expect(sync.skipped).toContainEqual(expect.objectContaining({ transcript_path: transcript.transcript_path, reason: "own-run" }));

    const agent = standIn.requests.filter((request) => request.role === "agent");
    expect(agent.map((request) => request.turn)).toEqual([0, 1, 2]);
    expect(agent[0]!.body).toContain(`run_id: ${show.run_id}`);
    expect(agent[0]!.body).toContain("The quetzalcoatl queue drains first in, first out.");
    expect(agent[0]!.tools).toEqual(expect.arrayContaining(["apply_patch", "exec_command"]));
    expect(standIn.unknown.map((request) => `${request.method} ${request.url}`)).toEqual([]);
  });

  test("a finished run stamps the page codex wrote: the fingerprint of the lines it cites and the HEAD it read them at", { timeout: 60_000 }, async () => {
    requireCodex();
    const page = pageCitingNotes("Real codex", "axolotl");
    const script: OpenAIStandInReply[] = [
      { type: "tools", calls: [{ type: "apply_patch", patch: addFilePatch("almanac/concepts/real-codex.md", page) }] },
      { type: "message", text: "Added concepts/real-codex, citing the notes." },
    ];
    standIn = await startOpenAIStandIn({ script });
    box = codexSandbox(standIn).box;
    const root = repoWithNotes(box);
    const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
    const result = await box.runAsync(["ingest", "notes.md", "--using", "codex", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");

    const print = rangeFingerprint(fileLines(readFileSync(join(root, "notes.md"), "utf8")), { start: 3, end: 3 })!;
    const stamped = page.replace("lines: 3}", `lines: 3, fingerprint: ${print}, verified_at: ${head}}`);
    expect(readFileSync(join(root, "almanac", "concepts", "real-codex.md"), "utf8")).toBe(stamped);
    expect(spawnSync("git", ["show", "HEAD:almanac/concepts/real-codex.md"], { cwd: root, encoding: "utf8" }).stdout).toBe(stamped);
    const drift = box.run(["drift", "--all", "--json"], { cwd: root }).json<{ pages: { slug: string; status: string }[] }>();
    expect(drift.pages.find((p) => p.slug === "concepts/real-codex")?.status).toBe("fresh");
  });

  test("garden --stale: the model is asked about the stale page alone, with its diff; left as it is, the page is confirmed and fresh", { timeout: 60_000 }, async () => {
    requireCodex();
    standIn = await startOpenAIStandIn({ script: [{ type: "message", text: "Confirmed concepts/alpaca: the page still holds." }] });
    box = codexSandbox(standIn).box;
    const { root, verified, stale, fresh } = repoWithStalePage(box);
    const result = await box.runAsync(["garden", "--stale", "--using", "codex", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord & { stale_pages: Record<string, string[]> | null }>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");

    const agent = standIn.requests.filter((request) => request.role === "agent");
    expect(agent).toHaveLength(1);
    const prompt = requestText(agent[0]!.body);
    expect(prompt).toContain(`<stale-page n="1" slug="${stale}">\n# ${stale} (almanac/${stale}.md, verified at ${verified.slice(0, 12)})\n\nStale evidence:\n- [@code] src/alpaca.ts lines 2: changed: `);
    expect(prompt).toContain(`\n## src/alpaca.ts since ${verified.slice(0, 12)} (cited by [@code] lines 2)\ndiff --git`);
    expect(prompt).toContain("-export const alpacaLimit = 2;\n+export const alpacaLimit = 20;\n</stale-page>");
    expect(prompt).not.toContain(fresh);
    expect(prompt).not.toContain("okapi");

    expect(show.stale_pages).toEqual({ targeted: [stale], confirmed: [stale], corrected: [], left_stale: [], no_longer_stale: [] });
    expect(box.run(["drift", "--json"], { cwd: root }).json()).toMatchObject({ pages: [] });
  });

  test("the codealmanac commands the prompt names work inside Codex's sandbox; git stays read-only; the product commits the page, and only the page", { timeout: 60_000 }, async () => {
    requireCodex();
    const checks = permittedCommands("concepts/real-codex", "axolotl");
    // Turn 0 writes the page, turn 1 tries to commit (the sandbox keeps .git read-only), then one turn per command.
    const { script: commandTurns, callIds } = execScript(
      checks.map((check) => check.command),
      "Added concepts/real-codex: a page about the real codex.",
      2,
    );
    const script: OpenAIStandInReply[] = [
      { type: "tools", calls: [{ type: "apply_patch", patch: addFilePatch("almanac/concepts/real-codex.md", PAGE) }] },
      { type: "tools", calls: [{ type: "function_call", name: "exec_command", arguments: { cmd: "git commit -am sneaky" } }] },
      ...commandTurns,
    ];
    standIn = await startOpenAIStandIn({ script });
    box = codexSandbox(standIn).box;
    const root = repoWithNotes(box);
    const staged = stageUserFile(root);

    const result = await box.runAsync(["ingest", "notes.md", "--using", "codex", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");

    const outputs = toolOutputs(standIn);
    checks.forEach(({ command, shows }, index) => {
      const output = outputs.get(callIds[index]!) ?? "(no output)";
      expect(output, command).toContain("Process exited with code 0");
      expect(output, command).toContain(shows);
    });
    expect(outputs.get("call_standin_t1_0")).toMatch(/Read-only file system/);

    expect(show.wiki_commit).toMatchObject({ subject: "almanac: Added concepts/real-codex: a page about the real codex.", files: 1 });
    expect(committed(root)).toEqual({ subject: show.wiki_commit!.subject, files: ["almanac/concepts/real-codex.md"], staged: [staged] });
    expect(show.commits).toEqual([]);
  });

  test("writes outside the repository are refused by the sandbox and reported as warnings", { timeout: 60_000 }, async () => {
    requireCodex();
    const script: OpenAIStandInReply[] = [];
    standIn = await startOpenAIStandIn({ script });
    box = codexSandbox(standIn).box;
    const root = repoWithNotes(box);
    const outside = join(box.dir, "elsewhere", "outside.md");
    mkdirSync(join(box.dir, "elsewhere"));
    script.push(
      { type: "tools", calls: [{ type: "apply_patch", patch: addFilePatch(outside, "escaped\n") }] },
      { type: "tools", calls: [{ type: "function_call", name: "exec_command", arguments: { cmd: `echo escaped > ${outside}` } }] },
      { type: "message", text: "Nothing durable to add." },
    );
    const result = await box.runAsync(["ingest", "notes.md", "--using", "codex", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");
    expect(existsSync(outside)).toBe(false);
    const logs = box.run(["jobs", "logs", show.run_id, "--json"]).json<LogEntry[]>();
    expect(logs.filter((entry) => entry.kind === "warning").map((entry) => entry.body)).toContain(
      "Codex sandbox refused a write: writing outside of the project",
    );
  });

  test("the API rejects the key (401) → the run fails fast in provider_execution with the fix line", { timeout: 60_000 }, async () => {
    requireCodex();
    standIn = await startOpenAIStandIn({
      script: [{ type: "http_error", status: 401, message: "Incorrect API key provided: sk-stand****-key.", code: "invalid_api_key" }],
    });
    box = codexSandbox(standIn).box;
    const root = repoWithNotes(box);
    const result = await box.runAsync(["ingest", "notes.md", "--using", "codex", "--wait", "--json"], { cwd: root });
    expect(result.code).toBe(1);
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("failed");
    expect(show.failure_category).toBe("provider_execution");
    // The stand-in is a custom model provider: the fix names the variable it reads, not OPENAI_API_KEY.
    expect(show.error).toMatch(/^harness codex failed: unexpected status 401 Unauthorized: Incorrect API key provided.* \(set STANDIN_OPENAI_API_KEY \(the key Codex's model provider "standin" reads\)\)$/);
    expect(standIn.requests.filter((request) => request.role === "agent")).toHaveLength(1);
  });

  test("a model that never answers ends as timeout, with no process left behind", { timeout: 60_000 }, async () => {
    requireCodex();
    standIn = await startOpenAIStandIn({ script: [{ type: "hang", stage: "before-headers" }] });
    box = codexSandbox(standIn).box;
    const root = repoWithNotes(box);
    runTimeout(box, 3_000);
    const result = await box.runAsync(["ingest", "notes.md", "--using", "codex", "--wait", "--json"], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.json<JobRecord>()).toMatchObject({ status: "failed", failure_category: "timeout", error: "run exceeded runs.timeout (3s)" });
    expect(standIn.requests.filter((request) => request.role === "agent")).toHaveLength(1);
    // Codex on Node 20 is a launcher plus a native child: both must be gone, with everything else.
    expect(await settledProcesses(box)).toEqual([]);
  });

  test("with codex missing from PATH, the run is refused when queued, with the install line", () => {
    requireCodex();
    box = realSandbox({});
    const root = repoWithNotes(box);
    const result = box.run(["ingest", "notes.md", "--using", "codex", "--wait"], { cwd: root, env: { PATH: pathWithout(box, "codex") } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^codealmanac: codex not found on PATH: install Codex: npm install -g @openai\/codex/);
    expect(box.run(["jobs", "--json"]).json()).toEqual([]);
  });
});
