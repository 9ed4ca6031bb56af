/**
 * The Codex adapter against the fake `codex` (test/fixtures/bin): the argv it spawns,
 * stdin handling, the stream projection, every failure class, stopping and the rollout.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { codexArgs, createCodexAdapter } from "../../src/harnesses/codex/adapter.js";
import type { HarnessEvent } from "../../src/harnesses/events.js";
import type { HarnessRunRequest } from "../../src/harnesses/types.js";
import { expectWellFormed, isAlive, killAll, processMark, waitForFile } from "./support.js";

const BIN = fileURLToPath(new URL("../fixtures/bin", import.meta.url));
const FAKE = join(BIN, "codex");

let dir: string;
let repo: string;
let codexHome: string;
let log: string;
const strays: number[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-codex-adapter-")));
  repo = join(dir, "repo");
  codexHome = join(dir, "codex-home");
  mkdirSync(repo);
  mkdirSync(codexHome);
  log = join(dir, "invocations.jsonl");
});

afterEach(() => {
  killAll(strays);
  rmSync(dir, { recursive: true, force: true });
});

function fakeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}`, CODEX_HOME: codexHome };
  for (const key of Object.keys(env)) if (key.startsWith("FAKE_CODEX_")) delete env[key];
  return { ...env, FAKE_CODEX_INVOCATION_LOG: log, ...extra };
}

function request(overrides: Partial<HarnessRunRequest> = {}): HarnessRunRequest {
  return { model: "gpt-5.5", cwd: repo, prompt: "run_id: ingest-1\nRuntime context:\n{}\n", sessionId: "ignored", env: fakeEnv(), ...overrides };
}

interface Invocation {
  pid: number;
  pgid: number | null;
  argv: string[];
  sandbox: string;
  thread_source: string | null;
  prompt_length: number;
  originator: string | null;
  env_execution_id: string | null;
  config: string[];
}

function invocations(): Invocation[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Invocation);
}

async function run(req: HarnessRunRequest, adapter = createCodexAdapter()) {
  const live: HarnessEvent[] = [];
  const result = await adapter.run(req, (event) => live.push(event));
  expectWellFormed(result, live);
  return { result, live };
}




describe("Codex adapter against the fake CLI", () => {
  test("a successful run writes the page, streams tool steps, and answers with the last agent message", async () => {
    const { result } = await run(
      request({ env: fakeEnv({ FAKE_CODEX_WRITE_FILES: JSON.stringify({ "almanac/page.md": "# Page\n" }), FAKE_CODEX_RESULT_TEXT: "Added one page.\nDetails." }) }),
    );
    expect(result).toMatchObject({ kind: "codex", status: "succeeded", summary: "Added one page.", failure: null });
    expect(readFileSync(join(repo, "almanac", "page.md"), "utf8")).toBe("# Page\n");
    const kinds = result.events.map((e) => e.kind);
    expect(kinds[0]).toBe("provider_session");
    expect(result.events.find((e) => e.tool_name === "apply_patch" && e.kind === "tool_use")?.tool_display).toMatchObject({ path: "almanac/page.md" });
    expect(result.usage?.output_tokens).toBeGreaterThan(0);
    expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("spawns the decided argv with stdin closed, marked as ours, in our process group", async () => {
    const { result } = await run(request({ cliVersion: "0.171.0", env: fakeEnv({ CODEALMANAC_EXECUTION_ID: "exec-7" }) }));
    expect(result.status).toBe("succeeded");
    const [call, ...more] = invocations();
    expect(more).toEqual([]);
    expect(call!.argv).toEqual(codexArgs({ cwd: repo, model: "gpt-5.5", version: "0.171.0" }, request().prompt));
    expect(call!.argv.slice(0, 11)).toEqual(["exec", "--json", "--skip-git-repo-check", "-C", repo, "-m", "gpt-5.5", "-s", "workspace-write", "-c", 'approval_policy="never"']);
    expect(call).toMatchObject({ sandbox: "workspace-write", thread_source: "codealmanac", originator: "codealmanac", env_execution_id: "exec-7" });
    expect(call!.config).toEqual(expect.arrayContaining(["sandbox_workspace_write.exclude_slash_tmp=true", "sandbox_workspace_write.exclude_tmpdir_env_var=true"]));
    if (process.platform === "linux") {
      const stat = readFileSync("/proc/self/stat", "utf8");
      const ownGroup = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      expect(call!.pgid).toBe(ownGroup);
    }
  });

  test("before 0.153 there is no --thread-source flag (the originator still marks the run)", () => {
    expect(codexArgs({ cwd: repo, model: "gpt-5.5", version: "0.150.0" }, "p")).not.toContain("--thread-source");
    expect(codexArgs({ cwd: repo, model: "gpt-5.5", version: "0.153.0" }, "p")).toContain("--thread-source");
  });

  test("a prompt too long for one argument goes through stdin as `-`, and arrives whole", async () => {
    const prompt = `run_id: ingest-1\n${"x".repeat(200_000)}\n`;
    const promptFile = join(dir, "prompt.txt");
    const { result } = await run(request({ prompt, env: fakeEnv({ FAKE_CODEX_PROMPT_FILE: promptFile }) }));
    expect(result.status).toBe("succeeded");
    expect(invocations()[0]!.argv.at(-1)).toBe("-");
    expect(readFileSync(promptFile, "utf8")).toBe(prompt);
  });

  test("the rollout path is found and recorded, and it carries our markers", async () => {
    const { result } = await run(request({ cliVersion: "0.171.0" }));
    expect(result.transcriptPath).toMatch(new RegExp(`^${codexHome}/sessions/\\d{4}/\\d{2}/\\d{2}/rollout-.*-${result.sessionId}\\.jsonl$`));
    const meta = JSON.parse(readFileSync(result.transcriptPath!, "utf8").split("\n")[0]!) as { payload: Record<string, unknown> };
    expect(meta.payload).toMatchObject({ id: result.sessionId, originator: "codealmanac", thread_source: "codealmanac" });
  });

  test("a write outside the repository is refused by the sandbox and reported as a warning", async () => {
    const outside = join(dir, "outside", "notes.md");
    const files = { [outside]: "escaped\n", "almanac/page.md": "# Page\n" };
    const { result } = await run(request({ env: fakeEnv({ FAKE_CODEX_WRITE_FILES: JSON.stringify(files) }) }));
    expect(result.status).toBe("succeeded");
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(repo, "almanac", "page.md"))).toBe(true);
    expect(result.events.filter((e) => e.kind === "warning").map((e) => e.message)).toContain(
      "Codex sandbox refused a write: writing outside of the project",
    );
  });
});

describe("Codex failure classes", () => {
  test.each([
    ["unauthorized", "codex.not_authenticated", /codex login/],
    ["model-requires-newer", "codex.model_requires_newer_cli", /npm install -g @openai\/codex@latest/],
    ["model-unsupported", "codex.model_unavailable", /harness\.model/],
    ["reconnect-exhausted", "codex.reconnects_exhausted", /network/],
  ])("%s → %s with its fix line", async (scenario, code, fix) => {
    const { result } = await run(request({ env: fakeEnv({ FAKE_CODEX_SCENARIO: scenario }) }));
    expect(result.status).toBe("failed");
    expect(result.failure?.code).toBe(code);
    expect(result.failure?.fix).toMatch(fix);
  });

  test("a generic failed turn keeps the server's message", async () => {
    const { result } = await run(request({ env: fakeEnv({ FAKE_CODEX_SCENARIO: "turn-failed" }) }));
    expect(result.failure).toMatchObject({ code: "codex.turn_failed", message: expect.stringMatching(/high demand/) });
  });

  test("a pre-0.44 stream is refused with the upgrade line", async () => {
    const { result } = await run(request({ env: fakeEnv({ FAKE_CODEX_SCENARIO: "legacy-json" }) }));
    expect(result.failure).toMatchObject({ code: "codex.cli_too_old", fix: "upgrade Codex: npm install -g @openai/codex@latest" });
  });

  test("a crash explains itself from stderr; exiting without completing the turn is a failure", async () => {
    const crash = await run(request({ env: fakeEnv({ FAKE_CODEX_SCENARIO: "crash" }) }));
    expect(crash.result.failure).toMatchObject({ code: "codex.process_failed", message: "fatal: simulated crash" });
    const early = await run(request({ env: fakeEnv({ FAKE_CODEX_SCENARIO: "no-result" }) }));
    expect(early.result.failure?.message).toBe("codex exited 0 without completing the turn");
  });

  test("a missing executable fails as codex.not_installed without spawning", async () => {
    const empty = join(dir, "empty-bin");
    mkdirSync(empty);
    const { result } = await run(request({ env: { ...fakeEnv(), PATH: empty } }));
    expect(result.failure).toMatchObject({ code: "codex.not_installed", fix: "install Codex: npm install -g @openai/codex" });
    expect(invocations()).toEqual([]);
  });

  test("a model that never answers is stopped at the timeout, even one that ignores SIGTERM", async () => {
    const started = join(dir, "started");
    const { result } = await run(request({ timeoutMs: 300, env: fakeEnv({ FAKE_CODEX_SCENARIO: "ignore-sigterm", FAKE_CODEX_STARTED_FILE: started }) }));
    const pid = Number(await waitForFile(started));
    strays.push(pid);
    expect(result.failure).toMatchObject({ code: "timeout", fix: expect.stringMatching(/runs\.timeout/) });
    expect(isAlive(pid)).toBe(false);
  });

  test("a codex that goes silent is stopped at the idle timeout", async () => {
    const mark = processMark();
    const { result } = await run(request({ idleTimeoutMs: 400, env: fakeEnv({ FAKE_CODEX_SCENARIO: "hang", ...mark.env }) }));
    expect(result.failure).toMatchObject({ code: "timeout", message: "codex produced no output for 400 ms" });
    expect(mark.alive()).toEqual([]);
  });

  test("Reconnecting notices of a codex still waiting for the model do not hold off the idle timeout", async () => {
    const mark = processMark();
    // A window wide enough for the fake to boot and send several notices even on a busy machine.
    const { result } = await run(request({ timeoutMs: 600_000, idleTimeoutMs: 2_000, env: fakeEnv({ FAKE_CODEX_SCENARIO: "silent-reconnect", ...mark.env }) }));
    expect(mark.alive()).toEqual([]);
    expect(result.failure).toMatchObject({ code: "timeout", message: "codex produced no output for 2 s" });
    expect(result.events.filter((event) => event.message.startsWith("Codex: Reconnecting...")).length).toBeGreaterThan(1);
  });

  test("a codex waiting for the network without end is stopped at its third notice, with the login fix", async () => {
    const mark = processMark();
    // No timeout could end this run in the test's time: only the reconnect loop's detection can.
    const limits = { timeoutMs: 600_000, idleTimeoutMs: 600_000 };
    const { result } = await run(request({ ...limits, env: fakeEnv({ FAKE_CODEX_SCENARIO: "offline", ...mark.env }) }));
    expect(mark.alive()).toEqual([]);
    expect(result.status).toBe("failed");
    expect(result.failure).toMatchObject({
      code: "codex.provider_unreachable",
      message: expect.stringMatching(/^codex cannot reach its model provider: Reconnecting\.\.\. waiting for network \(/),
      fix: "check the network; if Codex is not logged in, run `codex login` or set OPENAI_API_KEY",
    });
    expect(result.events.filter((event) => event.message.startsWith("Codex: Reconnecting... waiting for network"))).toHaveLength(2);
    // A custom model provider's own key variable is the one named.
    const custom = createCodexAdapter({ loginFix: () => "set ACME_LLM_KEY (the key Codex's model provider \"acme\" reads)" });
    const again = await run(request({ ...limits, env: fakeEnv({ FAKE_CODEX_SCENARIO: "offline", ...mark.env }) }), custom);
    expect(again.result.failure?.fix).toBe("check the network; if Codex is not logged in, set ACME_LLM_KEY (the key Codex's model provider \"acme\" reads)");
    expect(mark.alive()).toEqual([]);
  });

  test("aborting cancels the run", async () => {
    const started = join(dir, "started");
    const abort = new AbortController();
    const pending = run(request({ signal: abort.signal, env: fakeEnv({ FAKE_CODEX_SCENARIO: "hang", FAKE_CODEX_STARTED_FILE: started }) }));
    strays.push(Number(await waitForFile(started)));
    abort.abort();
    const { result } = await pending;
    expect(result.status).toBe("cancelled");
  });
});

describe("Codex readiness", () => {
  test("installed: available with its version, no login check", async () => {
    const readiness = await createCodexAdapter().readiness(fakeEnv({ FAKE_CODEX_VERSION: "0.171.0" }));
    expect(readiness).toEqual({ kind: "codex", available: true, message: `codex 0.171.0 at ${FAKE}`, version: "0.171.0" });
  });

  test("older than 0.44 is refused with the upgrade line", async () => {
    const readiness = await createCodexAdapter().readiness(fakeEnv({ FAKE_CODEX_VERSION: "0.43.2" }));
    expect(readiness).toMatchObject({ available: false, repair: "upgrade Codex: npm install -g @openai/codex@latest", version: "0.43.2" });
    expect(readiness.message).toMatch(/older than 0\.44\.0/);
  });

  test("not on PATH: unavailable with the install line", async () => {
    const empty = join(dir, "empty-bin");
    mkdirSync(empty);
    expect(await createCodexAdapter().readiness({ PATH: empty })).toEqual({
      kind: "codex",
      available: false,
      message: "codex not found on PATH",
      repair: "install Codex: npm install -g @openai/codex",
    });
  });
});
