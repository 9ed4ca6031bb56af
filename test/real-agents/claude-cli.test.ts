/**
 * The Claude adapter against the REAL Claude Code CLI (`@anthropic-ai/claude-code`, pinned
 * devDependency), offline: the CLI talks to a scripted local stand-in for the Anthropic
 * Messages API (./anthropic-stand-in.ts) through `ANTHROPIC_BASE_URL`. Everything else is
 * real: `ca garden` queues a run, the background worker starts an executor, the executor
 * runs `claude -p --output-format stream-json …`, the CLI executes a real `Write` tool call
 * and writes a real transcript under `CLAUDE_CONFIG_DIR`.
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { FAKE_BIN, ROOT, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { waitForIdle, waitForStatus } from "../queue/support.js";
import { startAnthropicStandIn, type AnthropicStandIn, type StandInReply } from "./anthropic-stand-in.js";

const CLAUDE_VERSION = "2.1.197";
const REAL_BIN = join(ROOT, "node_modules", ".bin");
const REAL_CLAUDE = join(REAL_BIN, "claude");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// ---------------------------------------------------------------------------
// Can the real CLI run here?

interface Probe {
  /** Set only when the binary genuinely cannot run on this platform: the suite is skipped. */
  skip: string | null;
  /** Set when it should run but does not (not installed, wrong version): the suite fails with this. */
  broken: string | null;
}

/** Platform keys the package ships a native binary for (mirrors its install.cjs). */
function platformKey(): string {
  if (process.platform !== "linux") return `${process.platform}-${process.arch}`;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return `linux-${process.arch}${header?.glibcVersionRuntime === undefined ? "-musl" : ""}`;
}

function probeClaude(): Probe {
  const manifest = join(ROOT, "node_modules", "@anthropic-ai", "claude-code", "package.json");
  if (existsSync(manifest)) {
    const optional = Object.keys(
      (JSON.parse(readFileSync(manifest, "utf8")) as { optionalDependencies?: Record<string, string> }).optionalDependencies ?? {},
    );
    const wanted = `@anthropic-ai/claude-code-${platformKey()}`;
    if (!optional.includes(wanted)) {
      return { skip: `Claude Code ships no native binary for ${platformKey()}`, broken: null };
    }
  }
  if (!existsSync(REAL_CLAUDE)) {
    return { skip: null, broken: `${REAL_CLAUDE} is missing: run \`npm ci\` (devDependency @anthropic-ai/claude-code)` };
  }
  const run = spawnSync(REAL_CLAUDE, ["--version"], { encoding: "utf8", timeout: 20_000, env: { ...process.env, CLAUDECODE: "" } });
  const code = (run.error as NodeJS.ErrnoException | undefined)?.code;
  // The OS refused to execute it, or it died on a signal (e.g. SIGILL on a CPU without AVX).
  if (code === "ENOEXEC" || code === "EACCES" || code === "EBADARCH" || (run.signal && run.signal !== "SIGTERM")) {
    return { skip: `the claude binary cannot run here (${code ?? run.signal})`, broken: null };
  }
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`.trim();
  // A dynamic-loader failure (too old a libc, …) is the platform's, not the install's.
  if (/GLIBC_|GLIBCXX_|cannot execute binary file|Exec format error|error while loading shared libraries/.test(output)) {
    return { skip: `the claude binary cannot run here: ${output.split("\n")[0]}`, broken: null };
  }
  if (!output.startsWith(`${CLAUDE_VERSION} `)) {
    return {
      skip: null,
      broken: `\`claude --version\` gave ${JSON.stringify(output.split("\n")[0] ?? "")} (exit ${run.status ?? run.signal ?? code}); expected ${CLAUDE_VERSION} — run \`npm ci\``,
    };
  }
  return { skip: null, broken: null };
}

const probe = probeClaude();
if (probe.skip) console.warn(`[real-agents] skipping the real Claude Code tests: ${probe.skip}`);

/** Fails the test with the probe's reason when the CLI should run here but does not. */
function requireClaude(): void {
  if (probe.broken) throw new Error(probe.broken);
}

// ---------------------------------------------------------------------------
// Fixtures

let box: Sandbox | undefined;
let standIn: AnthropicStandIn | undefined;

afterEach(async () => {
  if (box) {
    // Let the worker finish and exit before its state directory disappears.
    await waitForIdle(box, 20_000).catch(() => undefined);
    box.cleanup();
    box = undefined;
  }
  await standIn?.close();
  standIn = undefined;
});

interface Receipt {
  run_id: string;
  status: string;
}

interface JobShow {
  status: string;
  error: string | null;
  failure_category: string | null;
  summary: string | null;
  page_changes: { created: string[]; updated: string[]; deleted: string[] } | null;
  harness_transcript: { kind: string; session_id: string | null; transcript_path: string | null } | null;
}

interface LogEntry {
  kind: string;
  title: string;
  body?: string;
  tool?: string;
  status?: string;
  target?: string;
  input?: string;
  error: boolean;
}

/**
 * A sandbox whose `ca` finds the real `claude` first on PATH (the fake is removed from it),
 * pointed at the stand-in, with every Claude Code file under the sandbox.
 */
function realClaudeSandbox(api: AnthropicStandIn): { box: Sandbox; configDir: string } {
  const created = sandbox();
  const configDir = join(created.dir, "claude-config");
  mkdirSync(configDir, { recursive: true });
  const env = created.env;
  // Nothing from the caller's own Claude / Anthropic / proxy setup may leak in.
  for (const key of Object.keys(env)) {
    if (/^(ANTHROPIC_|CLAUDE_|CLAUDECODE$|FAKE_CLAUDE_|AWS_|GOOGLE_|VERTEX_)/i.test(key)) delete env[key];
    if (/^(https?|all)_proxy$/i.test(key)) delete env[key];
  }
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir !== "" && dir !== FAKE_BIN);
  Object.assign(env, {
    PATH: [REAL_BIN, ...path].join(delimiter),
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "sk-ant-stand-in-not-a-real-key",
    CLAUDE_CONFIG_DIR: configDir,
    // One failed request ends the run instead of ten retries over minutes (agent-cli-formats.md §1.3).
    CLAUDE_CODE_MAX_RETRIES: "0",
    // No telemetry, error reports, title generation or update checks: nothing leaves 127.0.0.1.
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    NO_PROXY: "127.0.0.1,localhost",
  });
  return { box: created, configDir };
}

function repoWithWiki(sandboxed: Sandbox): string {
  const root = join(sandboxed.dir, "repo");
  mkdirSync(root, { recursive: true });
  writeWiki(root, {});
  return root;
}

/** What happened, for a failing assertion's message. */
function diagnostics(sandboxed: Sandbox, runId: string, root: string, api: AnthropicStandIn): string {
  const logs = sandboxed.run(["jobs", "logs", runId, "--json"], { cwd: root });
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

// ---------------------------------------------------------------------------

const suiteName = probe.skip ? `real Claude Code CLI (skipped: ${probe.skip})` : `real Claude Code CLI ${CLAUDE_VERSION}`;

describe.skipIf(probe.skip !== null)(suiteName, () => {
  test("is installed from the lockfile and runnable", () => {
    requireClaude();
  });

  test(
    "garden: the real CLI writes a page through Write, the run ends done, and its transcript is where we said",
    { timeout: 30_000 },
    async () => {
      requireClaude();
      const toolId = "toolu_standin_write_page";
      const script: StandInReply[] = []; // filled in once the repository path is known
      standIn = await startAnthropicStandIn({ script });
      const made = realClaudeSandbox(standIn);
      box = made.box;
      const root = repoWithWiki(box);
      const pagePath = join(root, "almanac", "concepts", "real-agent.md");
      script.push(
        {
          type: "tool_use",
          id: toolId,
          text: "I'll add a concept page.",
          name: "Write",
          input: { file_path: pagePath, content: PAGE },
        },
        { type: "text", text: "Added concepts/real-agent: a page about the real agent." },
      );

      const started = Date.now();
      const queued = box.run(["garden", "--using", "claude", "--json"], { cwd: root });
      expect(queued.code, queued.stderr).toBe(0);
      const receipt = queued.json<Receipt>();
      expect(receipt.status).toBe("queued");

      const row = await waitForStatus(box, receipt.run_id, ["done", "failed", "cancelled"], 25_000);
      expect(row.status, diagnostics(box, receipt.run_id, root, standIn)).toBe("done");
      expect(Date.now() - started).toBeLessThan(25_000);

      // The page the CLI's own Write tool created, byte for byte.
      expect(readFileSync(pagePath, "utf8")).toBe(PAGE);

      // The run record.
      const show = box.run(["jobs", "show", receipt.run_id, "--json"], { cwd: root }).json<JobShow>();
      expect(show).toMatchObject({ status: "done", error: null, failure_category: null });
      expect(show.summary).toBe("Added concepts/real-agent: a page about the real agent.");
      expect(show.page_changes?.created).toEqual(["concepts/real-agent"]);

      // Searchable through the index.
      const hits = box.run(["search", "quetzalcoatl", "--json"], { cwd: root }).json<{ slug: string; title: string }[]>();
      expect(hits.map((hit) => hit.slug)).toEqual(["concepts/real-agent"]);
      expect(hits[0]!.title).toBe("Real agent");

      // The log has the Write as a completed tool step, plus the model's text.
      const logs = box.run(["jobs", "logs", receipt.run_id, "--json"], { cwd: root }).json<LogEntry[]>();
      const tools = logs.filter((entry) => entry.kind === "tool");
      expect(tools).toHaveLength(1);
      expect(tools[0]).toMatchObject({
        tool: "write",
        status: "completed",
        target: "almanac/concepts/real-agent.md",
        title: "Write almanac/concepts/real-agent.md",
        error: false,
      });
      expect(JSON.parse(tools[0]!.input ?? "{}")).toEqual({ file_path: pagePath, content: PAGE });
      expect(logs.filter((entry) => entry.kind === "assistant").map((entry) => entry.body)).toEqual([
        "I'll add a concept page.",
        "Added concepts/real-agent: a page about the real agent.",
      ]);

      // The session id we chose, and the real transcript at the predicted path under CLAUDE_CONFIG_DIR.
      const transcript = show.harness_transcript;
      expect(transcript?.kind).toBe("claude");
      const sessionId = transcript?.session_id ?? "";
      expect(sessionId).toMatch(UUID);
      const expectedPath = join(made.configDir, "projects", root.replace(/[^A-Za-z0-9]/g, "-"), `${sessionId}.jsonl`);
      expect(transcript?.transcript_path).toBe(expectedPath);
      expect(existsSync(expectedPath)).toBe(true);
      const lines = readFileSync(expectedPath, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const entries = lines.filter((line) => line.type === "user" || line.type === "assistant");
      expect(entries.length).toBeGreaterThanOrEqual(4); // prompt, tool_use, tool_result, answer
      for (const entry of entries) {
        expect(entry).toMatchObject({ sessionId, cwd: root, entrypoint: "codealmanac", version: CLAUDE_VERSION });
      }
      expect(JSON.stringify(lines)).toContain(toolId);
      // Nothing was written to the sandbox HOME's default ~/.claude.
      expect(existsSync(join(box.home, ".claude", "projects"))).toBe(false);

      // What the stand-in saw: the probe, then exactly two agent turns carrying our prompt and session.
      const agent = standIn.requests.filter((request) => request.role === "agent");
      expect(agent.map((request) => request.turn)).toEqual([0, 1]);
      for (const request of agent) {
        expect(request.url).toMatch(/^\/v1\/messages(\?|$)/);
        expect(request.headers["x-api-key"]).toBe("sk-ant-stand-in-not-a-real-key");
        expect(request.headers["x-claude-code-session-id"]).toBe(sessionId);
        expect(request.headers["user-agent"]).toContain(`claude-cli/${CLAUDE_VERSION}`);
        const body = JSON.parse(request.body) as { model: string; stream: boolean; tools: { name: string }[] };
        expect(body.stream).toBe(true);
        expect(body.model).toBe("claude-sonnet-5");
        expect(body.tools.map((tool) => tool.name)).toContain("Write");
      }
      expect(agent[0]!.body).toContain("Runtime context:");
      expect(agent[0]!.body).toContain(`run_id: ${receipt.run_id}`);
      expect(agent[1]!.body).toContain(`"tool_use_id":"${toolId}"`);
      expect(standIn.unknown.map((request) => `${request.method} ${request.url}`)).toEqual([]);
    },
  );

  test(
    "garden: the API rejects the key (401) → the run fails fast in provider_execution with a one-line error",
    { timeout: 30_000 },
    async () => {
      requireClaude();
      standIn = await startAnthropicStandIn({
        script: [{ type: "http_error", status: 401, errorType: "authentication_error", message: "invalid x-api-key" }],
      });
      box = realClaudeSandbox(standIn).box;
      const root = repoWithWiki(box);

      const started = Date.now();
      const queued = box.run(["garden", "--using", "claude", "--json"], { cwd: root });
      expect(queued.code, queued.stderr).toBe(0);
      const receipt = queued.json<Receipt>();
      const row = await waitForStatus(box, receipt.run_id, ["done", "failed", "cancelled"], 25_000);
      const elapsed = Date.now() - started;
      expect(row.status, diagnostics(box, receipt.run_id, root, standIn)).toBe("failed");
      expect(row.failure_category).toBe("provider_execution");
      // CLAUDE_CODE_MAX_RETRIES=0: one rejected request, no retry loop.
      expect(standIn.requests.filter((request) => request.role === "agent")).toHaveLength(1);
      expect(elapsed).toBeLessThan(15_000);

      const show = box.run(["jobs", "show", receipt.run_id, "--json"], { cwd: root }).json<JobShow>();
      expect(show.status).toBe("failed");
      expect(show.failure_category).toBe("provider_execution");
      const error = show.error ?? "";
      expect(error).not.toContain("\n");
      expect(error).toMatch(/^harness claude failed: Invalid API key/);
      // Classified as an authentication problem, so the error carries the way out.
      expect(error).toContain("ANTHROPIC_API_KEY");
      expect(show.harness_transcript?.session_id ?? "").toMatch(UUID);
      expect(existsSync(join(root, "almanac", "concepts"))).toBe(false);

      const logs = box.run(["jobs", "logs", receipt.run_id, "--json"], { cwd: root }).json<LogEntry[]>();
      expect(logs.filter((entry) => entry.kind === "tool")).toEqual([]);
      expect(logs.some((entry) => entry.error)).toBe(true);
    },
  );
});
