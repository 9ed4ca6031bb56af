/**
 * Our Claude adapter against the REAL Claude Code CLI (`@anthropic-ai/claude-code`, pinned
 * devDependency), offline: the CLI talks to a scripted local stand-in for the Anthropic
 * Messages API (./anthropic-stand-in.ts) through `ANTHROPIC_BASE_URL`. Everything else is
 * real: `ca ingest --wait` queues a run, the background worker starts an executor, the
 * executor runs `claude -p --output-format stream-json …`, the CLI executes real tool calls
 * and writes a real transcript under `CLAUDE_CONFIG_DIR`.
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileLines, rangeFingerprint } from "../../src/wiki/evidence.js";
import type { Sandbox } from "../support/cli.js";
import { waitForIdle } from "../queue/support.js";
import { bashScript, startAnthropicStandIn, toolResults, type AnthropicStandIn, type StandInReply } from "./anthropic-stand-in.js";
import {
  committed,
  pageCitingNotes,
  pathWithout,
  permittedCommands,
  repoWithStalePage,
  requestText,
  CLAUDE_VERSION,
  OFFLINE_CLAUDE_ENV,
  probeClaude,
  realSandbox,
  repoWithNotes,
  runTimeout,
  settledProcesses,
  stageUserFile,
  type JobRecord,
  type LogEntry,
} from "./support.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const probe = probeClaude();
if (probe.skip) console.warn(`[real-agents] skipping the real Claude Code tests: ${probe.skip}`);

/** Fails the test with the probe's reason when the CLI should run here but does not. */
function requireClaude(): void {
  if (probe.broken) throw new Error(probe.broken);
}

let box: Sandbox | undefined;
let standIn: AnthropicStandIn | undefined;

afterEach(async (context) => {
  if (box) {
    // Let the worker finish and exit before its state directory disappears (a failed
    // test may have left a run that never ends: the cleanup kills it instead).
    if (context.task.result?.state !== "fail") await waitForIdle(box);
    box.cleanup();
    box = undefined;
  }
  await standIn?.close();
  standIn = undefined;
});

/** A sandbox with the real claude first on PATH, pointed at the stand-in, every Claude Code file inside it. */
function claudeSandbox(api: AnthropicStandIn): { box: Sandbox; configDir: string } {
  const made = realSandbox({
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "sk-ant-stand-in-not-a-real-key",
    // One failed request ends the run instead of ten retries over minutes.
    CLAUDE_CODE_MAX_RETRIES: "0",
    // No telemetry, error reports, title generation or update checks: nothing leaves 127.0.0.1.
    ...OFFLINE_CLAUDE_ENV,
  });
  const configDir = join(made.dir, "claude-config");
  mkdirSync(configDir, { recursive: true });
  made.env.CLAUDE_CONFIG_DIR = configDir;
  return { box: made, configDir };
}

/** What happened, for a failing assertion's message. */
function diagnostics(sandboxed: Sandbox, runId: string, api: AnthropicStandIn): string {
  const logs = sandboxed.run(["jobs", "logs", runId, "--json"]);
  return [
    `jobs logs: ${logs.stdout || logs.stderr}`,
    `stand-in requests: ${api.requests.map((r) => `${r.method} ${r.url} [${r.role}${r.turn !== undefined ? ` turn ${r.turn}` : ""}]`).join(", ")}`,
  ].join("\n");
}

const PAGE = [
  "---",
  "title: Real agent",
  "summary: A page written by the real Claude Code CLI through a local API stand-in.",
  "topics: [concepts]",
  "sources: []",
  "---",
  "",
  "# Real agent",
  "",
  "The quetzalcoatl marker proves this page came from a real Write tool call.",
  "",
].join("\n");

const suiteName = probe.skip ? `real Claude Code CLI (skipped: ${probe.skip})` : `real Claude Code CLI ${CLAUDE_VERSION}`;

describe.skipIf(probe.skip !== null)(suiteName, () => {
  test("is installed from the lockfile and runnable", () => {
    requireClaude();
  });

  test("ingest --wait: the real CLI writes a page through Write, the run ends done, and its transcript is where we said", { timeout: 60_000 }, async () => {
    requireClaude();
    const toolId = "toolu_standin_write_page";
    const script: StandInReply[] = []; // filled in once the repository path is known
    standIn = await startAnthropicStandIn({ script });
    const made = claudeSandbox(standIn);
    box = made.box;
    const root = repoWithNotes(box);
    const pagePath = join(root, "almanac", "concepts", "real-agent.md");
    script.push(
      { type: "tool_use", id: toolId, text: "I'll add a concept page.", name: "Write", input: { file_path: pagePath, content: PAGE } },
      { type: "text", text: "Added concepts/real-agent: a page about the real agent." },
    );

    const result = await box.runAsync(["ingest", "notes.md", "--using", "claude", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");
    expect(result.code).toBe(0);

    // The page the CLI's own Write tool created, byte for byte, recorded as created and searchable.
    expect(readFileSync(pagePath, "utf8")).toBe(PAGE);
    expect(show).toMatchObject({ error: null, failure_category: null, summary: "Added concepts/real-agent: a page about the real agent." });
    expect(show.page_changes?.created).toEqual(["concepts/real-agent"]);
    const hits = box.run(["search", "quetzalcoatl", "--json"], { cwd: root }).json<{ slug: string; title: string }[]>();
    expect(hits.map((hit) => hit.slug)).toEqual(["concepts/real-agent"]);

    // The log has the Write as a completed tool step, plus the model's text.
    const logs = box.run(["jobs", "logs", show.run_id, "--json"]).json<LogEntry[]>();
    const tools = logs.filter((entry) => entry.kind === "tool");
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ tool: "write", status: "completed", target: "almanac/concepts/real-agent.md", error: false });
    expect(JSON.parse(tools[0]!.input ?? "{}")).toEqual({ file_path: pagePath, content: PAGE });

    // The session id we chose, and the real transcript at the predicted path under CLAUDE_CONFIG_DIR.
    const transcript = show.harness_transcript;
    expect(transcript?.kind).toBe("claude");
    const sessionId = transcript?.session_id ?? "";
    expect(sessionId).toMatch(UUID);
    const expectedPath = join(made.configDir, "projects", root.replace(/[^A-Za-z0-9]/g, "-"), `${sessionId}.jsonl`);
    expect(transcript?.transcript_path).toBe(expectedPath);
    const lines = readFileSync(expectedPath, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const entries = lines.filter((line) => line.type === "user" || line.type === "assistant");
    expect(entries.length).toBeGreaterThanOrEqual(4); // prompt, tool_use, tool_result, answer
    for (const entry of entries) expect(entry).toMatchObject({ sessionId, cwd: root, entrypoint: "codealmanac", version: CLAUDE_VERSION });
    expect(existsSync(join(box.home, ".claude", "projects"))).toBe(false);

    // Sync sees the real transcript of our own run and never queues it.
    const sync = box.run(["sync", "status", "--json"], { cwd: root }).json<{ ready: unknown[]; skipped: { transcript_path: string; reason: string }[] }>();
    expect(sync.ready).toEqual([]);
    expect(sync.skipped).toContainEqual(expect.objectContaining({ transcript_path: expectedPath, reason: "own-run" }));

    // What the stand-in saw: two agent turns carrying our prompt, with the notes as source material.
    const agent = standIn.requests.filter((request) => request.role === "agent");
    expect(agent.map((request) => request.turn)).toEqual([0, 1]);
    for (const request of agent) {
      expect(request.headers["x-claude-code-session-id"]).toBe(sessionId);
      const body = JSON.parse(request.body) as { model: string; tools: { name: string }[] };
      expect(body.model).toBe("claude-sonnet-5");
      expect(body.tools.map((tool) => tool.name)).toContain("Write");
    }
    expect(agent[0]!.body).toContain(`run_id: ${show.run_id}`);
    expect(agent[0]!.body).toContain("The quetzalcoatl queue drains first in, first out.");
    expect(standIn.unknown.map((request) => `${request.method} ${request.url}`)).toEqual([]);
  });

  test("a finished run stamps the page the real CLI wrote: the fingerprint of the lines it cites and the HEAD it read them at", { timeout: 60_000 }, async () => {
    requireClaude();
    const script: StandInReply[] = [];
    standIn = await startAnthropicStandIn({ script });
    box = claudeSandbox(standIn).box;
    const root = repoWithNotes(box);
    const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
    const pagePath = join(root, "almanac", "concepts", "real-agent.md");
    const page = pageCitingNotes("Real agent", "quetzalcoatl");
    script.push(
      { type: "tool_use", id: "toolu_standin_write_cited", name: "Write", input: { file_path: pagePath, content: page } },
      { type: "text", text: "Added concepts/real-agent, citing the notes." },
    );
    const result = await box.runAsync(["ingest", "notes.md", "--using", "claude", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");

    const print = rangeFingerprint(fileLines(readFileSync(join(root, "notes.md"), "utf8")), { start: 3, end: 3 })!;
    const stamped = page.replace("lines: 3}", `lines: 3, fingerprint: ${print}, verified_at: ${head}}`);
    expect(readFileSync(pagePath, "utf8")).toBe(stamped);
    expect(spawnSync("git", ["show", "HEAD:almanac/concepts/real-agent.md"], { cwd: root, encoding: "utf8" }).stdout).toBe(stamped);
    const drift = box.run(["drift", "--all", "--json"], { cwd: root }).json<{ pages: { slug: string; status: string }[] }>();
    expect(drift.pages.find((p) => p.slug === "concepts/real-agent")?.status).toBe("fresh");
  });

  test("garden --stale: the model is asked about the stale page alone, with its diff; left as it is, the page is confirmed and fresh", { timeout: 60_000 }, async () => {
    requireClaude();
    standIn = await startAnthropicStandIn({ script: [{ type: "text", text: "Confirmed concepts/alpaca: the page still holds." }] });
    box = claudeSandbox(standIn).box;
    const { root, verified, stale, fresh } = repoWithStalePage(box);
    const result = await box.runAsync(["garden", "--stale", "--using", "claude", "--wait", "--json"], { cwd: root });
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

  test("the codealmanac commands the prompt names pass Claude Code's permissions; the product commits the page, and only the page", { timeout: 60_000 }, async () => {
    requireClaude();
    const script: StandInReply[] = [];
    standIn = await startAnthropicStandIn({ script });
    box = claudeSandbox(standIn).box;
    const root = repoWithNotes(box);
    const staged = stageUserFile(root);
    const pagePath = join(root, "almanac", "concepts", "real-agent.md");
    const commands = permittedCommands("concepts/real-agent", "quetzalcoatl").map((check, index) => ({ ...check, id: `toolu_standin_cmd_${index}` }));
    script.push(
      { type: "tool_use", id: "toolu_standin_write_page", name: "Write", input: { file_path: pagePath, content: PAGE } },
      // Refused by the permissions, so the product is the only one to commit.
      { type: "tool_use", id: "toolu_standin_git_commit", name: "Bash", input: { command: "git commit -am sneaky", description: "commit" } },
      ...bashScript(commands, "Added concepts/real-agent: a page about the real agent."),
    );

    const result = await box.runAsync(["ingest", "notes.md", "--using", "claude", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");

    const results = toolResults(standIn);
    for (const { id, command, shows } of commands) {
      const answer = results.get(id);
      expect(answer, `${command}: ${JSON.stringify(answer)}`).toMatchObject({ isError: false });
      expect(answer?.text, command).toContain(shows);
    }
    expect(results.get("toolu_standin_git_commit")).toMatchObject({ isError: true });

    expect(show.wiki_commit).toMatchObject({ subject: "almanac: Added concepts/real-agent: a page about the real agent.", files: 1 });
    expect(committed(root)).toEqual({ subject: show.wiki_commit!.subject, files: ["almanac/concepts/real-agent.md"], staged: [staged] });
    expect(show.commits).toEqual([]);
  });

  test("a Write outside the repository is blocked by Claude Code itself; the run still ends done", { timeout: 60_000 }, async () => {
    requireClaude();
    const script: StandInReply[] = [];
    standIn = await startAnthropicStandIn({ script });
    box = claudeSandbox(standIn).box;
    const root = repoWithNotes(box);
    const outside = join(box.dir, "elsewhere", "outside.md");
    mkdirSync(join(box.dir, "elsewhere"));
    script.push(
      { type: "tool_use", id: "toolu_standin_outside", name: "Write", input: { file_path: outside, content: "escaped\n" } },
      { type: "text", text: "Nothing durable to add." },
    );
    const result = await box.runAsync(["ingest", "notes.md", "--using", "claude", "--wait", "--json"], { cwd: root });
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("done");
    expect(existsSync(outside)).toBe(false);
    const tool = box.run(["jobs", "logs", show.run_id, "--json"]).json<LogEntry[]>().find((entry) => entry.kind === "tool");
    expect(tool).toMatchObject({ tool: "write", status: "failed", error: true });
    expect(tool?.body).toMatch(/blockWritesOutsideWorkingDirectories/);
  });

  test("the API rejects the key (401) → the run fails fast in provider_execution with the fix line", { timeout: 60_000 }, async () => {
    requireClaude();
    standIn = await startAnthropicStandIn({
      script: [{ type: "http_error", status: 401, errorType: "authentication_error", message: "invalid x-api-key" }],
    });
    box = claudeSandbox(standIn).box;
    const root = repoWithNotes(box);
    const result = await box.runAsync(["ingest", "notes.md", "--using", "claude", "--wait", "--json"], { cwd: root });
    expect(result.code).toBe(1);
    const show = result.json<JobRecord>();
    expect(show.status, diagnostics(box, show.run_id, standIn)).toBe("failed");
    expect(show.failure_category).toBe("provider_execution");
    expect(show.error).toMatch(/^harness claude failed: Invalid API key.* \(run `claude auth login` or set ANTHROPIC_API_KEY\)$/);
    // CLAUDE_CODE_MAX_RETRIES=0: one rejected request, no retry loop.
    expect(standIn.requests.filter((request) => request.role === "agent")).toHaveLength(1);
    expect(existsSync(join(root, "almanac", "concepts"))).toBe(false);
  });

  test("a model that never answers ends as timeout, with no process left behind", { timeout: 60_000 }, async () => {
    requireClaude();
    standIn = await startAnthropicStandIn({ script: [{ type: "hang" }] });
    box = claudeSandbox(standIn).box;
    const root = repoWithNotes(box);
    runTimeout(box, 3_000);
    const result = await box.runAsync(["ingest", "notes.md", "--using", "claude", "--wait", "--json"], { cwd: root });
    expect(result.code).toBe(1);
    const show = result.json<JobRecord>();
    expect(show).toMatchObject({ status: "failed", failure_category: "timeout", error: expect.stringMatching(/^run exceeded runs\.timeout \(3s\)$/) });
    expect(standIn.requests.filter((request) => request.role === "agent")).toHaveLength(1);
    // The worker goes idle and exits; the agent and everything it started are gone with it.
    expect(await settledProcesses(box)).toEqual([]);
  });

  test("a model that never answers is stopped once, at runs.idle_timeout, printed once, with no process left behind", { timeout: 60_000 }, async () => {
    requireClaude();
    standIn = await startAnthropicStandIn({ script: [{ type: "hang" }] });
    box = claudeSandbox(standIn).box;
    const root = repoWithNotes(box);
    box.env.CODEALMANAC_TEST_RUN_LIMITS = JSON.stringify({ runIdleTimeoutMs: 3_000 });
    const result = await box.runAsync(["ingest", "notes.md", "--using", "claude", "--wait"], { cwd: root });
    expect(result.code).toBe(1);
    expect(result.stdout.match(/produced no output/g)).toHaveLength(1);
    expect(result.stdout).toContain("✕ Error\n  claude produced no output for 3 s\n  fix: check that the model provider answers, or raise runs.idle_timeout\n");
    const runId = /^queued ingest (\S+) /.exec(result.stderr)![1]!;
    expect(box.run(["jobs", "show", runId, "--json"]).json<JobRecord>()).toMatchObject({ status: "failed", failure_category: "timeout" });
    expect(await settledProcesses(box)).toEqual([]);
  });

  test("with claude missing from PATH, the run is refused when queued, with the install line", () => {
    requireClaude();
    box = realSandbox({});
    const root = repoWithNotes(box);
    const result = box.run(["ingest", "notes.md", "--using", "claude", "--wait"], { cwd: root, env: { PATH: pathWithout(box, "claude") } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^codealmanac: claude not found on PATH: install Claude Code: npm install -g @anthropic-ai\/claude-code/);
    expect(box.run(["jobs", "--json"]).json()).toEqual([]);
  });
});
