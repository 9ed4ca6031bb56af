/**
 * The SessionEnd hook against the REAL Claude Code CLI (pinned devDependency), offline
 * against the local stand-in model: `ca setup` installs the hook into the test's Claude
 * settings, a `claude -p` session in a registered repository ends, Claude Code runs our
 * `hook session-end`, and an ingest run for exactly that session's transcript is queued.
 * (Claude Code 2.1.332 fires SessionEnd in print mode too, with reason "other".)
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { allRuns, holdQueue, releaseQueue, waitForIdle } from "../queue/support.js";
import { waitFor, type Sandbox } from "../support/cli.js";
import { startAnthropicStandIn, type AnthropicStandIn } from "./anthropic-stand-in.js";
import { CLAUDE_VERSION, OFFLINE_CLAUDE_ENV, REAL_BIN, probeClaude, realSandbox, repoWithNotes } from "./support.js";

const probe = probeClaude();
if (probe.skip) console.warn(`[real-agents] skipping the real Claude Code SessionEnd test: ${probe.skip}`);

let box: Sandbox | undefined;
let standIn: AnthropicStandIn | undefined;

afterEach(async () => {
  if (box) {
    releaseQueue(box);
    await waitForIdle(box);
    box.cleanup();
    box = undefined;
  }
  await standIn?.close();
  standIn = undefined;
});

/** Runs the real `claude` to its end (the hook runs as it exits). */
function claude(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(REAL_BIN, "claude"), args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const suiteName = probe.skip ? `real Claude Code SessionEnd hook (skipped: ${probe.skip})` : `real Claude Code ${CLAUDE_VERSION} SessionEnd hook`;

describe.skipIf(probe.skip !== null)(suiteName, () => {
  test("a claude -p session in a registered repository ends, its SessionEnd hook runs our command, and an ingest run for its transcript is queued", async () => {
    if (probe.broken) throw new Error(probe.broken);
    standIn = await startAnthropicStandIn({ script: [{ type: "text", text: "The quetzalcoatl queue drains first in, first out." }] });
    box = realSandbox({ ANTHROPIC_BASE_URL: standIn.url, ANTHROPIC_API_KEY: "sk-ant-stand-in-not-a-real-key", CLAUDE_CODE_MAX_RETRIES: "0", ...OFFLINE_CLAUDE_ENV });
    const configDir = join(box.dir, "claude-config");
    mkdirSync(configDir, { recursive: true });
    box.env.CLAUDE_CONFIG_DIR = configDir;
    const root = repoWithNotes(box);
    expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
    holdQueue(box);

    const setup = box.run(["setup", "--yes", "--target", "claude", "--skip-instructions", "--skip-schedules", "--no-mcp"]);
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toContain(`claude SessionEnd hook: installed in ${join(configDir, "settings.json")}`);

    const session = await claude(["-p", "How does the queue drain?", "--output-format", "json"], root, box.env);
    expect(session.code, session.stderr).toBe(0);
    const result = JSON.parse(session.stdout) as { session_id: string; result: string };
    // Our hook printed nothing into the agent's output.
    expect(result.result).toBe("The quetzalcoatl queue drains first in, first out.");
    const transcript = join(configDir, "projects", root.replace(/[^A-Za-z0-9]/g, "-"), `${result.session_id}.jsonl`);

    const run = await waitFor(() => allRuns(box!).find((r) => r.kind === "ingest"), "the hook's detached sync to queue an ingest run");
    const spec = JSON.parse(run.spec_json) as { sources: { address: string }[]; guidance: string };
    expect(spec.sources.map((s) => s.address.replace(/#bytes=\d+-\d+$/, ""))).toEqual([`transcript:${transcript}`]);
    expect(spec.guidance).toContain(result.session_id);
    const log = readFileSync(join(box.state, "logs", "hooks.log"), "utf8");
    expect(log).toContain(`session-end: ${result.session_id} (other): syncing ${transcript} in process `);
    await waitFor(() => readFileSync(join(box!.state, "logs", "hooks.log"), "utf8").includes(`queued ${run.run_id} for repo`), "the child's log line");
    expect(box.run(["jobs", "cancel", run.run_id]).code).toBe(0);
  });
});
