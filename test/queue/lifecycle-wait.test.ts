/**
 * Lifecycle features around a run: --wait (exit codes, --json, Ctrl-C), harness selection
 * at queue time, the write boundary as `jobs` shows it, and codex runs end to end (fakes).
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { BIN, FAKE_BIN, commitAll, page, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { allRuns, checkAndCleanUpAfterEach, emptyRepo, waitForFile, waitForIdle, waitForStatus, type JobRecord, type Receipt } from "./support.js";

let box: Sandbox;
// After each test: no worker, executor or agent of the sandbox outlives the queue's work
// (checked before the sandbox cleanup, which kills every process carrying its state directory).
checkAndCleanUpAfterEach(() => box);

const newPage = page({ title: "Ingested", summary: "From notes", topics: ["concepts"], sources: [], body: "# Ingested\n\nLearned from the notes." });

function gitRepo(b: Sandbox): string {
  const root = writeWiki(join(b.dir, "repo"), {});
  writeFileSync(join(root, "notes.md"), "# Notes\n\nThe queue is first in, first out.\n");
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "app.ts"), "export {};\n");
  return commitAll(root);
}

describe("--wait", () => {
  test("ingest --wait follows the run to done and exits 0; the page is searchable and recorded as created", () => {
    box = sandbox();
    const root = gitRepo(box);
    const result = box.run(["ingest", "notes.md", "--using", "claude", "--wait"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/ingested.md": newPage }) },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^queued ingest ingest-\d{14}-[0-9a-f]{8} in repo \(Ctrl-C stops following; the job goes on\)\n$/);
    expect(result.stdout).toContain("● Wrote almanac/concepts/ingested.md");
    expect(result.stdout).toMatch(/status: done\nsummary: Updated the wiki\.\n$/);
    expect(box.run(["search", "learned", "--slugs"], { cwd: root }).stdout).toBe("concepts/ingested\n");
  });

  test("--wait --json prints only the final run record", () => {
    box = sandbox();
    const root = gitRepo(box);
    const result = box.run(["garden", "--using", "claude", "--wait", "--json"], {
      cwd: root,
      env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify({ "almanac/concepts/ingested.md": newPage }) },
    });
    expect(result.code).toBe(0);
    const record = result.json<JobRecord>();
    expect(record).toMatchObject({ status: "done", page_changes: { created: ["concepts/ingested"], updated: [], deleted: [] }, commits: [], outside_changes: [] });
    expect(result.stderr).toBe("");
  });

  test("a failed run exits 1 with its error, printed once with its fix; --json still prints the record", () => {
    box = sandbox();
    const root = gitRepo(box);
    const text = box.run(["garden", "--using", "claude", "--wait", "--guidance", "fake-scenario: not-logged-in"], { cwd: root });
    expect(text.code).toBe(1);
    // The agent's error, its done and the run's error carry the same failure: it is shown once.
    expect(text.stdout.match(/Not logged in/g)).toHaveLength(1);
    expect(text.stdout).toMatch(/✕ Error\n {2}Not logged in · Please run \/login\n {2}fix: run `claude auth login` or set ANTHROPIC_API_KEY\n· Failed\nstatus: failed\n$/);
    const crash = box.run(["garden", "--using", "claude", "--wait", "--guidance", "fake-scenario: crash"], { cwd: root });
    expect(crash.code).toBe(1);
    expect(crash.stdout.match(/simulated crash/g)).toHaveLength(1);
    expect(crash.stdout).toMatch(/✕ Error\n {2}fatal: simulated crash\n· Failed\nstatus: failed\n$/);
    const json = box.run(["garden", "--using", "claude", "--wait", "--json", "--guidance", "fake-scenario: crash"], { cwd: root });
    expect(json.code).toBe(1);
    expect(json.json<JobRecord>()).toMatchObject({ status: "failed", failure_category: "provider_execution" });
  });

  test("a run cancelled while someone waits on it exits 1", async () => {
    box = sandbox();
    const root = gitRepo(box);
    const started = join(box.dir, "agent.pid");
    const waiting = box.runAsync(["garden", "--using", "claude", "--wait", "--json", "--guidance", "fake-scenario: hang"], {
      cwd: root,
      env: { FAKE_CLAUDE_STARTED_FILE: started },
    });
    await waitForFile(started);
    const runId = allRuns(box)[0]!.run_id;
    expect(box.run(["jobs", "cancel", runId]).code).toBe(0);
    const result = await waiting;
    expect(result.code).toBe(1);
    expect(result.json<JobRecord>().status).toBe("cancelled");
  });

  test("Ctrl-C detaches with 130 and the run goes on", async () => {
    box = sandbox();
    const root = gitRepo(box);
    const started = join(box.dir, "agent.pid");
    const child = spawn(process.execPath, [BIN, "garden", "--using", "claude", "--wait", "--guidance", "fake-scenario: hang"], {
      cwd: root,
      env: { ...box.env, FAKE_CLAUDE_STARTED_FILE: started },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await waitForFile(started);
    const runId = allRuns(box)[0]!.run_id;
    await waitForStatus(box, runId, ["running"]);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stdout).toContain(`detached — job continues in background\ncancel: codealmanac jobs cancel ${runId}\n`);
    expect(allRuns(box)[0]!.status).toBe("running");
    box.run(["jobs", "cancel", runId]);
    expect((await waitForStatus(box, runId, ["cancelled", "failed", "done"])).status).toBe("cancelled");
  });
});

describe("harness selection at queue time", () => {
  /** A PATH with only the named fake CLIs. */
  function onlyOnPath(b: Sandbox, ...names: string[]): NodeJS.ProcessEnv {
    const bin = join(b.dir, `bin-${names.join("-") || "none"}`);
    mkdirSync(bin, { recursive: true });
    for (const name of names) symlinkSync(join(FAKE_BIN, name), join(bin, name));
    return { PATH: `${bin}:${process.env.PATH!.split(":").filter((d) => !existsSync(join(d, "claude")) && !existsSync(join(d, "codex"))).join(":")}` };
  }

  test("a harness that is not installed is refused before anything is queued or scaffolded", () => {
    box = sandbox();
    const root = emptyRepo(box);
    const env = onlyOnPath(box, "claude");
    const garden = box.run(["garden", "--using", "codex"], { cwd: root, env });
    expect(garden.code).toBe(1);
    expect(garden.stderr).toBe("codealmanac: codex not found on PATH: install Codex: npm install -g @openai/codex, or use --using claude\n");
    const fresh = join(box.dir, "fresh");
    mkdirSync(fresh);
    const init = box.run(["init", fresh, "--using", "codex", "--json"], { env });
    expect(init.code).toBe(1);
    expect(JSON.parse(init.stderr)).toEqual({
      error: { code: "execution_failed", message: "codex not found on PATH: install Codex: npm install -g @openai/codex, or use --using claude" },
    });
    expect(existsSync(join(fresh, "almanac"))).toBe(false);
    expect(box.run(["jobs", "--json"]).json()).toEqual([]);
  });

  test("with no agent CLI at all, the refusal names both install lines", () => {
    box = sandbox();
    const root = emptyRepo(box);
    const result = box.run(["garden"], { cwd: root, env: onlyOnPath(box) });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "codealmanac: no agent CLI found on PATH: install Claude Code: npm install -g @anthropic-ai/claude-code; or install Codex: npm install -g @openai/codex\n",
    );
  });

  test("without config: the only installed CLI, and codex when both are", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const onlyClaude = box.run(["garden", "--json"], { cwd: root, env: onlyOnPath(box, "claude") }).json<Receipt>();
    await waitForIdle(box);
    const both = box.run(["garden", "--json"], { cwd: root }).json<Receipt>();
    await waitForIdle(box);
    const spec = (id: string) => box.run(["jobs", "show", id, "--json"]).json<JobRecord>().harness_transcript?.kind;
    expect(spec(onlyClaude.run_id)).toBe("claude");
    expect(spec(both.run_id)).toBe("codex");
  });

  test("harness.default in config.toml decides, with its model", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    mkdirSync(box.state, { recursive: true });
    writeFileSync(join(box.state, "config.toml"), '[harness]\ndefault = "claude"\nmodel = "claude-haiku-4-5"\n');
    const log = join(box.dir, "claude.jsonl");
    const receipt = box.run(["garden", "--json"], { cwd: root, env: { FAKE_CLAUDE_INVOCATION_LOG: log } }).json<Receipt>();
    await waitForStatus(box, receipt.run_id, ["done"]);
    expect(JSON.parse((await waitForFile(log)).trim()) as { model: string }).toMatchObject({ model: "claude-haiku-4-5" });
  });
});

describe("the write boundary in jobs", () => {
  test("files the agent changed outside almanac/ are a warning in logs and listed by show", async () => {
    box = sandbox();
    const root = gitRepo(box);
    const files = { "almanac/concepts/ingested.md": newPage, "src/app.ts": "export const tampered = true;\n" };
    const record = box
      .run(["garden", "--using", "claude", "--wait", "--json"], { cwd: root, env: { FAKE_CLAUDE_WRITE_FILES: JSON.stringify(files) } })
      .json<JobRecord>();
    expect(record).toMatchObject({ status: "done", outside_changes: [{ path: "src/app.ts", change: "modified" }], commits: [] });
    const logs = box.run(["jobs", "logs", record.run_id]);
    expect(logs.stdout).toContain("! the agent changed 1 file outside almanac/: src/app.ts (modified)\n");
    const show = box.run(["jobs", "show", record.run_id]);
    expect(show.stdout).toMatch(/outside:\s+1 file changed outside almanac\/\n {2}! src\/app\.ts \(modified\)\n/);
    const logsJson = box.run(["jobs", "logs", record.run_id, "--json"]).json<{ kind: string; body?: string }[]>();
    expect(logsJson.filter((s) => s.kind === "warning").map((s) => s.body)).toEqual([
      "the agent changed 1 file outside almanac/: src/app.ts (modified)",
    ]);
  });

  test("an agent's write outside the repository is stopped (fake claude honours the blocking setting)", async () => {
    box = sandbox();
    const root = gitRepo(box);
    const outside = join(box.dir, "elsewhere", "outside.md");
    const record = box
      .run(["garden", "--using", "claude", "--wait", "--json", "--guidance", "fake-scenario: write-outside"], {
        cwd: root,
        env: { FAKE_CLAUDE_OUTSIDE_FILE: outside },
      })
      .json<JobRecord>();
    expect(record.status).toBe("done");
    expect(existsSync(outside)).toBe(false);
    const logs = box.run(["jobs", "logs", record.run_id]).stdout;
    expect(logs).toMatch(/✕ Wrote .*outside\.md/);
  });

  test("a repository that is not a git work tree gets a note instead of a comparison", async () => {
    box = sandbox();
    const root = emptyRepo(box);
    const record = box.run(["garden", "--using", "claude", "--wait", "--json"], { cwd: root }).json<JobRecord>();
    expect(record.change_notes).toEqual(["not a git repository: changes outside almanac/ could not be checked"]);
  });
});

describe("codex runs", () => {
  test("ingest --using codex --wait: done, the page recorded, the thread and rollout on the run", () => {
    box = sandbox();
    const root = gitRepo(box);
    const codexHome = join(box.dir, "codex-home");
    mkdirSync(codexHome);
    const record = box
      .run(["ingest", "notes.md", "--using", "codex", "--wait", "--json"], {
        cwd: root,
        env: { CODEX_HOME: codexHome, FAKE_CODEX_WRITE_FILES: JSON.stringify({ "almanac/concepts/ingested.md": newPage }), FAKE_CODEX_RESULT_TEXT: "Folded the notes in." },
      })
      .json<JobRecord>();
    expect(record).toMatchObject({ status: "done", summary: "Folded the notes in.", page_changes: { created: ["concepts/ingested"] } });
    expect(record.harness_transcript).toMatchObject({ kind: "codex", transcript_path: expect.stringContaining(`${codexHome}/sessions/`) });
  });

  test("a rejected key fails as provider_execution with the fix line", () => {
    box = sandbox();
    const root = gitRepo(box);
    const result = box.run(["garden", "--using", "codex", "--wait", "--json"], { cwd: root, env: { FAKE_CODEX_SCENARIO: "unauthorized" } });
    expect(result.code).toBe(1);
    expect(result.json<JobRecord>()).toMatchObject({
      status: "failed",
      failure_category: "provider_execution",
      error: expect.stringMatching(/^harness codex failed: unexpected status 401 Unauthorized.* \(run `codex login` or set OPENAI_API_KEY\)$/),
    });
  });

  test("with a custom Codex model provider, the fix names the variable that provider reads", () => {
    box = sandbox();
    const root = gitRepo(box);
    const codexHome = join(box.dir, "codex-home");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, "config.toml"), 'model_provider = "acme"\n\n[model_providers.acme]\nname = "Acme"\nbase_url = "https://llm.acme.test/v1"\nenv_key = "ACME_LLM_KEY"\n');
    const result = box.run(["garden", "--using", "codex", "--wait", "--json"], { cwd: root, env: { CODEX_HOME: codexHome, FAKE_CODEX_SCENARIO: "unauthorized" } });
    expect(result.code).toBe(1);
    const record = result.json<JobRecord>();
    expect(record.error).toMatch(/\(set ACME_LLM_KEY \(the key Codex's model provider "acme" reads\)\)$/);
    expect(record.error).not.toContain("OPENAI_API_KEY");
  });
});

// The fakes must be executable for the symlinks above to count as installed.
chmodSync(join(FAKE_BIN, "claude"), 0o755);
chmodSync(join(FAKE_BIN, "codex"), 0o755);
