import { spawnSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import {
  CLAUDE_ALLOWED_TOOLS,
  claudeArgs,
  claudeTranscriptPath,
  createClaudeAdapter,
  encodeClaudeProjectFolder,
  withStreamIdleTimeout,
} from "../../src/harnesses/claude/adapter.js";
import type { HarnessEvent } from "../../src/harnesses/events.js";
import type { HarnessRunRequest } from "../../src/harnesses/types.js";
import { expectWellFormed, isAlive, killAll, processMark, waitForFile } from "./support.js";

const BIN = fileURLToPath(new URL("../fixtures/bin", import.meta.url));
const FAKE = join(BIN, "claude");

let dir: string;
let repo: string;
let log: string;
const strays: number[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-claude-adapter-")));
  repo = join(dir, "repo");
  mkdirSync(repo);
  log = join(dir, "invocations.jsonl");
});

afterEach(() => {
  killAll(strays);
  rmSync(dir, { recursive: true, force: true });
});

/** The test's environment with the fake claude first on PATH. */
function fakeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}` };
  for (const key of Object.keys(env)) if (key.startsWith("FAKE_CLAUDE_")) delete env[key];
  return { ...env, FAKE_CLAUDE_INVOCATION_LOG: log, ...extra };
}

function request(overrides: Partial<HarnessRunRequest> = {}): HarnessRunRequest {
  return {
    model: "claude-sonnet-5",
    cwd: repo,
    prompt: "Runtime context:\n{}\n",
    sessionId: randomUUID(),
    env: fakeEnv(),
    ...overrides,
  };
}

interface Invocation {
  pid: number;
  ppid: number;
  pgid: number | null;
  cwd: string;
  argv: string[];
  session_id: string | null;
  model: string | null;
  prompt_length: number;
  prompt_sha256: string;
  env_execution_id: string | null;
  run_id: string | null;
  entrypoint: string | null;
}

function invocations(): Invocation[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Invocation);
}

/**
 * The fake claude behind a wrapper that notes each SIGTERM it receives (and survives it),
 * so a test can see the order in which the adapter signals.
 */
function signalRecordingClaude(signalsFile: string): string {
  const wrapper = join(dir, "signal-recording-claude.mjs");
  const fake = JSON.stringify(new URL("../fixtures/bin/fake-claude.mjs", import.meta.url).href);
  writeFileSync(
    wrapper,
    [
      "#!/usr/bin/env node",
      'import { renameSync, writeFileSync } from "node:fs";',
      `const file = ${JSON.stringify(signalsFile)};`,
      "let received = 0;",
      // Written whole and renamed into place: a reader never sees a half-written list.
      'process.on("SIGTERM", () => (writeFileSync(`${file}.tmp`, "SIGTERM\\n".repeat(++received)), renameSync(`${file}.tmp`, file)));',
      `await import(${fake});`,
      "",
    ].join("\n"),
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

async function run(req: HarnessRunRequest) {
  const live: HarnessEvent[] = [];
  const result = await createClaudeAdapter().run(req, (event) => live.push(event));
  return { result, live };
}




describe("Claude adapter against the fake CLI", () => {
  test("a successful run writes files, streams events live and ends with exactly one done", async () => {
    const req = request({
      env: fakeEnv({
        FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/pages/billing.md": "# Billing\n", "almanac/README.md": "Readme" }),
        FAKE_CLAUDE_RESULT_TEXT: "Documented billing rounding.\n\nAlso touched the README.",
      }),
    });
    const { result, live } = await run(req);
    expectWellFormed(result, live);

    expect(result).toMatchObject({
      kind: "claude",
      status: "succeeded",
      outputText: "Documented billing rounding.\n\nAlso touched the README.",
      summary: "Documented billing rounding.",
      failure: null,
      sessionId: req.sessionId,
      costUsd: 0.01234,
      usage: { input_tokens: 12000, cached_input_tokens: 10800, output_tokens: 340, total_tokens: 12340 },
    });
    expect(result.transcriptPath).toBe(
      join(process.env.HOME!, ".claude", "projects", encodeClaudeProjectFolder(repo), `${req.sessionId}.jsonl`),
    );
    expect(readFileSync(join(repo, "almanac/pages/billing.md"), "utf8")).toBe("# Billing\n");
    expect(readFileSync(join(repo, "almanac/README.md"), "utf8")).toBe("Readme");

    expect(result.events.map((event) => [event.kind, event.message])).toEqual([
      ["provider_session", `Claude session ${req.sessionId}`],
      ["text", "I'll read the runtime context and update the wiki."],
      ["tool_use", "Write almanac/pages/billing.md"],
      ["tool_result", "Write almanac/pages/billing.md: done"],
      ["tool_use", "Write almanac/README.md"],
      ["tool_result", "Write almanac/README.md: done"],
      ["text", "Documented billing rounding.\n\nAlso touched the README."],
      ["done", "claude succeeded: Documented billing rounding."],
    ]);
    expect(result.events.at(-1)).toMatchObject({ provider_session_id: req.sessionId, usage: { output_tokens: 340 } });
  });

  test("spawns exactly the decided argv, in the run cwd, in our process group, marked as ours", async () => {
    const req = request({
      model: "claude-opus-4-7",
      env: fakeEnv({ CODEALMANAC_EXECUTION_ID: "exec-42", CLAUDECODE: "1" }),
    });
    const { result } = await run(req);
    expect(result.status).toBe("succeeded");
    const [call, ...more] = invocations();
    expect(more).toEqual([]);
    expect(call?.argv).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "acceptEdits",
      "--allowedTools",
      "Read,Write,Edit,MultiEdit,Glob,Grep,Bash(git status:*),Bash(git diff:*),Bash(git log:*)",
      "--model",
      "claude-opus-4-7",
      "--session-id",
      req.sessionId,
      "--settings",
      '{"permissions":{"blockWritesOutsideWorkingDirectories":true}}',
    ]);
    expect(call?.argv[7]).toBe(CLAUDE_ALLOWED_TOOLS);
    expect(call).toMatchObject({
      cwd: repo,
      ppid: process.pid,
      session_id: req.sessionId,
      model: "claude-opus-4-7",
      env_execution_id: "exec-42",
      entrypoint: "codealmanac",
    });
    if (process.platform === "linux") {
      const stat = readFileSync("/proc/self/stat", "utf8");
      const ownGroup = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      expect(call?.pgid).toBe(ownGroup); // not detached
    }
  });

  test("the prompt reaches the CLI on stdin byte-for-byte, however large", async () => {
    const prompt =
      "  \n Runtime context:\r\n" +
      JSON.stringify({ run_id: "run_20261129_abc", note: "naïve café ✓ 日本 🚀" }, null, 2) +
      "\nrun_id: run_20261129_abc\n" +
      "x".repeat(2_000_000) +
      "\n\n  ";
    const { result } = await run(request({ prompt }));
    expect(result.status).toBe("succeeded");
    const bytes = Buffer.from(prompt, "utf8");
    expect(invocations()[0]).toMatchObject({
      prompt_length: bytes.length,
      prompt_sha256: createHash("sha256").update(bytes).digest("hex"),
      run_id: "run_20261129_abc",
    });
  });

  test("not logged in fails as claude.not_authenticated with the login fix", async () => {
    const { result, live } = await run(request({ env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "not-logged-in" }) }));
    expectWellFormed(result, live);
    expect(result).toMatchObject({
      status: "failed",
      outputText: "Not logged in · Please run /login",
      summary: null,
      costUsd: 0,
      failure: {
        provider: "claude",
        code: "claude.not_authenticated",
        message: "Not logged in · Please run /login",
        fix: "run `claude auth login` or set ANTHROPIC_API_KEY",
      },
    });
    expect(result.events.map((event) => event.kind)).toEqual(["provider_session", "error", "done"]);
    expect(result.events.at(-1)?.message).toBe("claude failed: Not logged in · Please run /login");
  });

  test("a crash without a result fails as claude.process_failed with the first stderr line", async () => {
    let stderr = "";
    const { result, live } = await run(
      request({ env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "crash" }), onStderr: (text) => (stderr += text) }),
    );
    expectWellFormed(result, live);
    expect(stderr).toBe("fatal: simulated crash\n");
    expect(result).toMatchObject({
      status: "failed",
      outputText: "fatal: simulated crash",
      failure: { provider: "claude", code: "claude.process_failed", message: "fatal: simulated crash" },
    });
  });

  test("a CLI that rejects its arguments fails with its stderr (here: a non-UUID session id)", async () => {
    const { result, live } = await run(request({ sessionId: "not-a-uuid" }));
    expectWellFormed(result, live);
    expect(result.failure).toMatchObject({
      code: "claude.process_failed",
      message: "Error: Invalid session ID. Must be a valid UUID.",
    });
    expect(result.sessionId).toBeNull();
    expect(result.transcriptPath).toBeNull();
  });

  test("a timeout stops a hanging CLI and fails with code timeout", async () => {
    const mark = processMark();
    const { result, live } = await run(request({ timeoutMs: 1_500, env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "hang", ...mark.env }) }));
    expectWellFormed(result, live);
    expect(result.failure).toMatchObject({ code: "timeout", message: "claude timed out after 1.5 s" });
    // Whether or not the fake got as far as its first line before the timeout, nothing of it is left.
    expect(result.events.at(-1)?.kind).toBe("done");
    expect(mark.alive()).toEqual([]);
  });

  test("a CLI that goes silent is stopped at the idle timeout, long before the run timeout", async () => {
    const mark = processMark();
    const { result, live } = await run(request({ timeoutMs: 600_000, idleTimeoutMs: 400, env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "hang", ...mark.env }) }));
    expectWellFormed(result, live);
    expect(result.failure).toEqual({
      provider: "claude",
      code: "timeout",
      message: "claude produced no output for 400 ms",
      fix: "check that the model provider answers, or raise runs.idle_timeout",
    });
    expect(mark.alive()).toEqual([]);
  });

  test("retry notices of a CLI still waiting for the model do not hold off the idle timeout", async () => {
    const mark = processMark();
    // A window wide enough for the fake to boot and send several notices even on a busy machine.
    const { result, live } = await run(request({ timeoutMs: 600_000, idleTimeoutMs: 2_000, env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "silent-retry", ...mark.env }) }));
    expectWellFormed(result, live);
    expect(result.failure).toMatchObject({ code: "timeout", message: "claude produced no output for 2 s" });
    // The notices came (every 100 ms) and were recorded, but none counted as output.
    expect(live.filter((event) => event.kind === "warning").length).toBeGreaterThan(1);
    expect(mark.alive()).toEqual([]);
  });

  test("Claude Code's own stream idle timeout is moved a minute past ours, unless the user set it", async () => {
    const envFile = join(dir, "agent-env.json");
    const agentEnv = async (idleTimeoutMs: number, extra: Record<string, string> = {}) => {
      await run(request({ idleTimeoutMs, env: fakeEnv({ FAKE_CLAUDE_ENV_FILE: envFile, ...extra }) }));
      return (JSON.parse(readFileSync(envFile, "utf8")) as NodeJS.ProcessEnv).CLAUDE_STREAM_IDLE_TIMEOUT_MS;
    };
    expect(await agentEnv(300_000)).toBe("360000");
    expect(await agentEnv(300_000, { CLAUDE_STREAM_IDLE_TIMEOUT_MS: "900000" })).toBe("900000");
    // Past its own limit of 30 minutes, Claude Code would not take more.
    expect(withStreamIdleTimeout({}, 45 * 60_000).CLAUDE_STREAM_IDLE_TIMEOUT_MS).toBe("1800000");
    expect(withStreamIdleTimeout({}, undefined).CLAUDE_STREAM_IDLE_TIMEOUT_MS).toBeUndefined();
  });

  test("Claude Code's own stream idle timeout, when it fires first, fails as a timeout with its message, once", async () => {
    const { result, live } = await run(request({ idleTimeoutMs: 60_000, env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "stream-idle-timeout" }) }));
    expectWellFormed(result, live);
    expect(result.failure).toMatchObject({ code: "timeout", message: "API Error: Stream idle timeout - no chunks received" });
    expect(result.failure?.fix).toContain("CLAUDE_STREAM_IDLE_TIMEOUT_MS");
  });

  test("output keeps the idle timeout from firing", async () => {
    const { result } = await run(request({ idleTimeoutMs: 5_000, env: fakeEnv({ FAKE_CLAUDE_DELAY_MS: "300" }) }));
    expect(result.status).toBe("succeeded");
  });

  test("a CLI that ignores SIGTERM outlives it, and is then SIGKILLed", async () => {
    const started = join(dir, "started");
    const signals = join(dir, "signals");
    const pending = createClaudeAdapter({ executable: signalRecordingClaude(signals) }).run(
      request({
        // Long enough for the fake to install its SIGTERM handler first.
        timeoutMs: 1_000,
        env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "ignore-sigterm", FAKE_CLAUDE_STARTED_FILE: started }),
      }),
      () => undefined,
    );
    let settled = false;
    void pending.then(() => (settled = true));
    const agent = Number(await waitForFile(started));
    strays.push(agent);
    // First SIGTERM, which the CLI survives: the run is still waiting on it...
    expect(await waitForFile(signals)).toBe("SIGTERM\n");
    expect([isAlive(agent), settled]).toEqual([true, false]);
    // ...then the signal it cannot ignore ends it and the run.
    const result = await pending;
    expect(result.failure?.code).toBe("timeout");
    expect(isAlive(agent)).toBe(false);
    expect(readFileSync(signals, "utf8")).toBe("SIGTERM\n");
  });

  test("a detached grandchild does not keep the run from finishing", async () => {
    const pidFile = join(dir, "grandchild.pid");
    const started = join(dir, "started");
    const controller = new AbortController();
    const running = createClaudeAdapter().run(
      request({
        signal: controller.signal,
        env: fakeEnv({
          FAKE_CLAUDE_SCENARIO: "spawn-grandchild",
          FAKE_CLAUDE_GRANDCHILD_PID_FILE: pidFile,
          FAKE_CLAUDE_STARTED_FILE: started,
        }),
      }),
      () => {},
    );
    const child = Number(await waitForFile(started));
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    strays.push(grandchild);
    controller.abort();
    const result = await running;
    expect(result.status).toBe("cancelled");
    expect(isAlive(child)).toBe(false);
    // Killing the tree is the executor's job (see almanac/architecture/run-queue.md); the adapter only ends its child.
    expect(isAlive(grandchild)).toBe(true);
  });

  test("an authentication api_retry stops the CLI early instead of waiting out the retries", async () => {
    // Had it waited for the 20 s timeout, the failure would be `timeout`, not this one.
    const { result, live } = await run(
      request({ timeoutMs: 20_000, env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "auth-retry" }) }),
    );
    expectWellFormed(result, live);
    expect(result.failure).toMatchObject({
      code: "claude.not_authenticated",
      message: "Claude API authentication failed (HTTP 401)",
      fix: "run `claude auth login` or set ANTHROPIC_API_KEY",
    });
    expect(result.events.filter((event) => event.kind === "error")).toHaveLength(1);
    expect(isAlive(invocations()[0]!.pid)).toBe(false);
  });

  test("a CLI that lingers after its result is stopped and the result still counts", async () => {
    const adapter = createClaudeAdapter({ exitAfterResultMs: 200 });
    const live: HarnessEvent[] = [];
    const result = await adapter.run(
      request({ timeoutMs: 20_000, env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "linger-after-result" }) }),
      (event) => live.push(event),
    );
    expectWellFormed(result, live);
    expect(result.status).toBe("succeeded");
    expect(isAlive(invocations()[0]!.pid)).toBe(false);
  });

  test("aborting the signal cancels a running CLI; events arrive live before the end", async () => {
    const controller = new AbortController();
    const live: HarnessEvent[] = [];
    const result = await createClaudeAdapter().run(
      request({ signal: controller.signal, env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "hang" }) }),
      (event) => {
        live.push(event);
        if (event.kind === "provider_session") controller.abort();
      },
    );
    expectWellFormed(result, live);
    expect(result).toMatchObject({ status: "cancelled", failure: null, outputText: "claude cancelled" });
  });

  test("aborting from outside once the agent is running stops it and ends as cancelled", async () => {
    const started = join(dir, "started");
    const controller = new AbortController();
    const live: HarnessEvent[] = [];
    const running = createClaudeAdapter().run(
      request({
        signal: controller.signal,
        env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "hang", FAKE_CLAUDE_STARTED_FILE: started }),
      }),
      (event) => live.push(event),
    );
    const pid = Number(await waitForFile(started));
    controller.abort();
    const result = await running;
    expectWellFormed(result, live);
    expect(result.status).toBe("cancelled");
    expect(isAlive(pid)).toBe(false);
  });

  test("a throwing event sink stops the CLI and rejects with the sink's error", async () => {
    const boom = new Error("ledger is gone");
    await expect(
      createClaudeAdapter().run(request({ env: fakeEnv({ FAKE_CLAUDE_SCENARIO: "hang" }) }), () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(isAlive(invocations()[0]!.pid)).toBe(false);
  });

  test("a missing executable fails as claude.not_installed without spawning", async () => {
    const empty = join(dir, "empty-bin");
    mkdirSync(empty);
    const viaPath = await run(request({ env: { ...fakeEnv(), PATH: empty } }));
    expectWellFormed(viaPath.result, viaPath.live);
    expect(viaPath.result.failure).toEqual({
      provider: "claude",
      code: "claude.not_installed",
      message: "claude not found on PATH",
      fix: "install Claude Code: npm install -g @anthropic-ai/claude-code",
    });
    expect(viaPath.result.events.map((event) => event.kind)).toEqual(["done"]);

    const live: HarnessEvent[] = [];
    const viaOption = await createClaudeAdapter({ executable: join(dir, "nope", "claude") }).run(request(), (event) =>
      live.push(event),
    );
    expect(viaOption.failure?.code).toBe("claude.not_installed");
    expect(invocations()).toEqual([]);
  });
});

describe("Claude readiness", () => {
  test("PATH without claude → unavailable with an install repair; nothing is spawned", async () => {
    const empty = join(dir, "empty-bin");
    mkdirSync(empty);
    const readiness = await createClaudeAdapter().readiness({ PATH: empty, FAKE_CLAUDE_INVOCATION_LOG: log });
    expect(readiness).toEqual({
      kind: "claude",
      available: false,
      message: "claude not found on PATH",
      repair: "install Claude Code: npm install -g @anthropic-ai/claude-code",
    });
  });

  test("claude on PATH → available with its version; only --version is run, no agent", async () => {
    const readiness = await createClaudeAdapter().readiness(fakeEnv({ FAKE_CLAUDE_VERSION: "2.1.400" }));
    expect(readiness).toEqual({ kind: "claude", available: true, message: `claude 2.1.400 at ${FAKE}`, version: "2.1.400" });
    expect(invocations()).toEqual([]);
  });

  test("an unreadable --version never refuses a claude that is installed", async () => {
    const readiness = await createClaudeAdapter().readiness(fakeEnv({ FAKE_CLAUDE_VERSION: "garbled" }));
    expect(readiness).toMatchObject({ kind: "claude", available: true, version: null });
  });
});

describe("Claude write boundary", () => {
  test("from 2.1.314 on, writes outside the working directory are blocked by a settings flag", () => {
    const args = claudeArgs("claude-sonnet-5", "s-1", "2.1.314");
    expect(args.slice(-2)).toEqual(["--settings", '{"permissions":{"blockWritesOutsideWorkingDirectories":true}}']);
    expect(args[args.indexOf("--allowedTools") + 1]).toBe(CLAUDE_ALLOWED_TOOLS);
  });

  test("older versions get no bare Write or Edit rule, so acceptEdits confines edits to the working directory", () => {
    const args = claudeArgs("claude-sonnet-5", "s-1", "2.1.197");
    expect(args).not.toContain("--settings");
    const tools = args[args.indexOf("--allowedTools") + 1]!.split(",");
    expect(tools).not.toContain("Write");
    expect(tools).not.toContain("Edit");
    expect(tools).not.toContain("MultiEdit");
    expect(tools).toContain("Read");
  });
});

describe("Claude transcript location", () => {
  test("encodes the real cwd the way Claude names project folders", () => {
    expect(encodeClaudeProjectFolder("/home/dev/src/invoice-api")).toBe("-home-dev-src-invoice-api");
    expect(encodeClaudeProjectFolder("/home/dev/src/my-app.v2")).toBe("-home-dev-src-my-app-v2");
    expect(encodeClaudeProjectFolder("/home/dev/my_proj")).toBe("-home-dev-my-proj");
    expect(encodeClaudeProjectFolder("/home/dev/dir with space/é")).toBe("-home-dev-dir-with-space--");
    expect(encodeClaudeProjectFolder("C:\\Users\\dev\\proj")).toBe("C--Users-dev-proj");
    const long = `/${"a".repeat(250)}`;
    const folder = encodeClaudeProjectFolder(long);
    expect(folder.slice(0, 200)).toBe(`-${"a".repeat(199)}`); // the first 200 characters of the encoding
    expect(folder).toMatch(/^-a{199}-[0-9a-z]+$/);
    expect(encodeClaudeProjectFolder(long)).toBe(folder); // deterministic
    expect(encodeClaudeProjectFolder(`${long}b`)).not.toBe(folder);
  });

  test("uses CLAUDE_CONFIG_DIR when set and resolves symlinks in the cwd", () => {
    const link = join(dir, "link");
    symlinkSync(repo, link);
    expect(claudeTranscriptPath(link, "abc", { CLAUDE_CONFIG_DIR: "/cfg", HOME: "/home/x" })).toBe(
      join("/cfg", "projects", encodeClaudeProjectFolder(repo), "abc.jsonl"),
    );
    expect(claudeTranscriptPath(link, "abc", { HOME: "/home/x" })).toBe(
      join("/home/x", ".claude", "projects", encodeClaudeProjectFolder(repo), "abc.jsonl"),
    );
  });
});

describe("the fake claude itself rejects what the real CLI rejects", () => {
  const fake = (args: string[]) =>
    spawnSync(FAKE, args, { input: "hello", encoding: "utf8", env: fakeEnv(), timeout: 10_000 });

  test("stream-json without --verbose", () => {
    const out = fake(["-p", "--output-format", "stream-json"]);
    expect(out.status).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr).toBe("Error: When using --print, --output-format=stream-json requires --verbose\n");
  });

  test("an unknown option", () => {
    const out = fake(["-p", "--output-format", "stream-json", "--verbose", "--frobnicate"]);
    expect(out.status).toBe(1);
    expect(out.stderr).toBe("error: unknown option '--frobnicate'\n");
  });
});
