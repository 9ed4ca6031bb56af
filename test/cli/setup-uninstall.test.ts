import { afterEach, describe, expect, onTestFinished, test } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitFor, writeWiki } from "../support/cli.js";
import { readProcessStartTime } from "../../src/core/processes/index.js";
import { BLOCK_START } from "../../src/setup/instruction-block.js";
import { emptyRepo, garden, parkedRun, processAlive, releaseQueue, waitForFile, waitForStatus, writeDb } from "../queue/support.js";
import { readText, setupSandbox, writeText, type SetupSandbox } from "../setup/support.js";
import { startViewer } from "../viewer/support.js";

let box: SetupSandbox;
afterEach(() => box?.cleanup());

const PACKAGE_LINE = "the codealmanac package stays installed; remove it with: npm uninstall -g codealmanac";

interface UninstallJson {
  nothing_to_remove: boolean;
  removed: {
    instructions: { target: string; path: string; deleted: boolean }[];
    mcp: { client: string; path: string; deleted: boolean }[];
    schedules: string[];
    state_root: string | null;
  };
  cancelled: string[];
  worker_stopped: number | null;
  warnings: { key: string; message: string }[];
  package: string;
}

/** The compile cache would write into the state directory after the command; see the last test. */
function uninstallSandbox(): SetupSandbox {
  return setupSandbox({ env: { CODEALMANAC_NO_COMPILE_CACHE: "1" } });
}

/** Where the fake claude keeps user-scope MCP servers (no CLAUDE_CONFIG_DIR in the sandbox), and Codex's config. */
function mcpFiles(box: SetupSandbox): { claudeJson: string; codexToml: string } {
  return { claudeJson: join(box.home, ".claude.json"), codexToml: join(box.home, ".codex", "config.toml") };
}

function claudeServers(path: string): Record<string, unknown> {
  return (JSON.parse(readText(path)!) as { mcpServers: Record<string, unknown> }).mcpServers;
}

function treeOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = join(rel, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[path] = readFileSync(join(dir, path), "utf8");
    }
  };
  walk("");
  return files;
}

describe("uninstall", () => {
  test("removes exactly what setup added, deletes the state directory and leaves wikis alone", () => {
    box = uninstallSandbox();
    const claudeBefore = "# Mine\n\nkeep this\n";
    const cronBefore = "0 3 * * * /usr/local/bin/backup\n";
    writeText(box.claudeMd, claudeBefore);
    writeText(box.crontab, cronBefore);
    const repo = writeWiki(join(box.dir, "app"), {});
    const wikiBefore = treeOf(join(repo, "almanac"));
    const { claudeJson, codexToml } = mcpFiles(box);
    expect(box.run(["setup", "--yes"]).code).toBe(0);
    expect(box.run(["search", "home"], { cwd: repo }).code).toBe(0);
    expect(readText(box.claudeMd)).toContain(BLOCK_START);
    expect(Object.keys(claudeServers(claudeJson))).toEqual(["codealmanac"]);
    expect(readText(codexToml)).toContain("[mcp_servers.codealmanac]");
    expect(existsSync(join(box.state, "codealmanac.db"))).toBe(true);

    const result = box.run(["uninstall", "--yes"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        `removed the codealmanac block from ${box.claudeMd}`,
        `deleted ${box.agentsMd} (it held only the codealmanac block)`,
        `removed the codealmanac MCP server from Claude Code (${claudeJson})`,
        `deleted ${codexToml} (it held only the codealmanac MCP server)`,
        `deleted ${join(box.home, ".claude", "settings.json")} (it held only the codealmanac SessionEnd hook)`,
        `deleted ${join(box.home, ".codex", "hooks.json")} (it held only the codealmanac SessionEnd hook)`,
        "removed the sync schedule",
        "removed the garden schedule",
        `deleted ${box.state}`,
        PACKAGE_LINE,
        "",
      ].join("\n"),
    );
    expect(readText(box.claudeMd)).toBe(claudeBefore);
    expect(existsSync(box.agentsMd)).toBe(false);
    expect(claudeServers(claudeJson)).toEqual({});
    expect(existsSync(codexToml)).toBe(false);
    expect(existsSync(join(box.home, ".claude", "settings.json"))).toBe(false);
    expect(existsSync(join(box.home, ".codex", "hooks.json"))).toBe(false);
    expect(readText(box.crontab)).toBe(cronBefore);
    expect(existsSync(box.state)).toBe(false);
    expect(treeOf(join(repo, "almanac"))).toEqual(wikiBefore);
  });

  test("takes the block out of both Codex files, and a file holding only the block is deleted", () => {
    box = uninstallSandbox();
    writeText(box.agentsOverride, "override\n");
    expect(box.run(["setup", "--yes", "--skip-schedules", "--target", "codex"]).code).toBe(0);
    // A block left in AGENTS.md by an earlier setup, before the override existed.
    writeText(box.agentsMd, `${readText(box.agentsOverride)!.slice("override\n\n".length)}`);
    const report = box.run(["uninstall", "--yes", "--json"]).json<UninstallJson>();
    expect(report.removed.instructions).toEqual([
      { target: "codex", path: box.agentsOverride, deleted: false },
      { target: "codex", path: box.agentsMd, deleted: true },
    ]);
    expect(readText(box.agentsOverride)).toBe("override\n");
    expect(existsSync(box.agentsMd)).toBe(false);
  });

  test("with nothing installed it says so and exits 0", () => {
    box = uninstallSandbox();
    const result = box.run(["uninstall"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`nothing to remove\n${PACKAGE_LINE}\n`);
    const json = box.run(["uninstall", "--json"]);
    expect(json.code).toBe(0);
    expect(json.json<UninstallJson>()).toMatchObject({ nothing_to_remove: true, removed: { instructions: [], mcp: [], schedules: [], state_root: null } });
    // A file that merely mentions codealmanac is not ours.
    writeText(box.claudeMd, "I use codealmanac.\n");
    expect(box.run(["uninstall"]).stdout).toBe(`nothing to remove\n${PACKAGE_LINE}\n`);
    expect(readText(box.claudeMd)).toBe("I use codealmanac.\n");
  });

  test("without --yes and without a terminal it removes nothing and says what --yes would remove", () => {
    box = uninstallSandbox();
    const { claudeJson, codexToml } = mcpFiles(box);
    expect(box.run(["setup", "--yes"]).code).toBe(0);
    const result = box.run(["uninstall"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `codealmanac: uninstall removes the codealmanac block in ${box.claudeMd} and ${box.agentsMd}, ` +
        `the codealmanac MCP server in ${claudeJson} and ${codexToml}, ` +
        `the codealmanac SessionEnd hook in ${join(box.home, ".claude", "settings.json")} and ${join(box.home, ".codex", "hooks.json")}, the sync and garden schedules ` +
        `and the state directory ${box.state} (run history, indexes, config); pass --yes\n`,
    );
    expect(Object.keys(claudeServers(claudeJson))).toEqual(["codealmanac"]);
    expect(readText(codexToml)).toContain("[mcp_servers.codealmanac]");
    expect(readText(box.claudeMd)).toContain(BLOCK_START);
    expect(existsSync(join(box.state, "config.toml"))).toBe(true);
    expect(readText(box.crontab)).toContain("__scheduled sync");
    const json = box.run(["uninstall", "--json"]);
    expect(json.code).toBe(1);
    expect(json.stdout).toBe("");
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: "conflict" } });
  });

  test("setup and uninstall leave Claude Code's and Codex's own configuration exactly as it was", () => {
    box = uninstallSandbox();
    const { claudeJson, codexToml } = mcpFiles(box);
    // As Claude Code writes .claude.json: pretty JSON without a final newline, another server already there.
    const docs = { type: "stdio", command: "npx", args: ["docs-server"], env: {} };
    const claudeBefore = JSON.stringify({ numStartups: 3, mcpServers: { docs }, projects: { [box.dir]: { allowedTools: [] } } }, null, 2);
    const codexBefore = '# mine\r\nmodel = "gpt-5.5"\r\n\r\n[mcp_servers.docs]\r\ncommand = "npx"\r\nargs = ["docs-server"]';
    const claudeMdBefore = "# Mine\n";
    writeText(claudeJson, claudeBefore);
    writeText(codexToml, codexBefore);
    writeText(box.claudeMd, claudeMdBefore);

    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    expect(claudeServers(claudeJson)).toMatchObject({ docs, codealmanac: { type: "stdio", command: process.execPath } });
    expect(readText(codexToml)).toContain("[mcp_servers.codealmanac]");

    const result = box.run(["uninstall", "--yes", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.json<UninstallJson>().removed.mcp).toEqual([
      { client: "claude", path: claudeJson, deleted: false },
      { client: "codex", path: codexToml, deleted: false },
    ]);
    expect(readText(claudeJson)).toBe(claudeBefore);
    expect(readText(codexToml)).toBe(codexBefore);
    expect(readText(box.claudeMd)).toBe(claudeMdBefore);
    expect(existsSync(box.agentsMd)).toBe(false);
  });

  test("with only the MCP server registered it is removed; without claude on PATH Claude Code's entry stays, with a warning", () => {
    box = uninstallSandbox();
    const { claudeJson, codexToml } = mcpFiles(box);
    expect(box.run(["mcp", "install", "--client", "claude"]).code).toBe(0);
    expect(box.run(["mcp", "install", "--client", "codex"]).code).toBe(0);
    box.env.PATH = box.env.PATH!.split(":").filter((dir) => !existsSync(join(dir, "claude"))).join(":");
    const result = box.run(["uninstall", "--yes"]);
    expect(result.code).toBe(0);
    // The state directory holds only what the hand-run installs recorded (mcp-servers.json).
    expect(result.stdout).toBe(`deleted ${codexToml} (it held only the codealmanac MCP server)\ndeleted ${box.state}\n${PACKAGE_LINE}\n`);
    expect(result.stderr).toBe(
      `warning: kept the codealmanac MCP server in ${claudeJson}: claude is not on PATH to remove it\n` +
        `  fix: run \`claude mcp remove --scope user codealmanac\`, or delete "codealmanac" from "mcpServers" in ${claudeJson} by hand\n`,
    );
    expect(Object.keys(claudeServers(claudeJson))).toEqual(["codealmanac"]);
    expect(existsSync(codexToml)).toBe(false);
  });

  test("a registration that cannot be removed is a warning with a fix, and the rest is removed", () => {
    box = uninstallSandbox();
    const { claudeJson } = mcpFiles(box);
    expect(box.run(["setup", "--yes", "--skip-schedules", "--target", "claude"]).code).toBe(0);
    const result = box.run(["uninstall", "--yes", "--json"], { env: { FAKE_CLAUDE_MCP_FAIL: "Error: config file is locked" } });
    expect(result.code).toBe(0);
    const report = result.json<UninstallJson>();
    expect(report.removed.mcp).toEqual([]);
    expect(report.removed.instructions).toEqual([{ target: "claude", path: box.claudeMd, deleted: true }]);
    expect(report.removed.state_root).toBe(box.state);
    expect(report.warnings).toEqual([
      {
        key: "mcp.claude",
        status: "warn",
        message: "could not remove the codealmanac MCP server from Claude Code: `claude mcp remove` failed: Error: config file is locked",
        fix: `run \`claude mcp remove --scope user codealmanac\`, or delete "codealmanac" from "mcpServers" in ${claudeJson} by hand`,
      },
    ]);
    expect(Object.keys(claudeServers(claudeJson))).toEqual(["codealmanac"]);
  });

  test("refuses while a worker is live and a run is queued", async () => {
    box = uninstallSandbox();
    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    const run = await parkedRun(box, emptyRepo(box));
    const result = box.run(["uninstall"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `codealmanac: uninstall would delete the run queue while work is in flight: a worker is running (pid ${process.pid}), 1 run is queued; pass --yes to cancel it and uninstall, or wait for it to finish\n`,
    );
    expect(existsSync(join(box.state, "codealmanac.db"))).toBe(true);
    expect(readText(box.claudeMd)).toContain(BLOCK_START);
    expect(box.run(["jobs", "show", run.run_id, "--json"]).json()).toMatchObject({ status: "queued" });
  });

  test("with --yes, queued runs are cancelled before anything is deleted", async () => {
    box = uninstallSandbox();
    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    const run = await parkedRun(box, emptyRepo(box));
    releaseQueue(box);
    const refused = box.run(["uninstall"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("work is in flight: 1 run is queued; pass --yes");

    const result = box.run(["uninstall", "--yes", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.json<UninstallJson>()).toMatchObject({ cancelled: [run.run_id], worker_stopped: null, removed: { state_root: box.state } });
    expect(existsSync(box.state)).toBe(false);
  });

  test("with --yes, a running run is cancelled with its agent and the worker is stopped, then the state goes", async () => {
    box = uninstallSandbox();
    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    const root = emptyRepo(box);
    const started = join(box.dir, "agent.pid");
    const running = garden(box, root, { FAKE_CLAUDE_SCENARIO: "hang", FAKE_CLAUDE_STARTED_FILE: started });
    const agent = Number(await waitForFile(started));
    const executor = (await waitForStatus(box, running.run_id, ["running"])).executor_pid!;
    const queued = garden(box, root);
    const worker = running.child_pid;
    expect(processAlive(worker)).toBe(true);

    const refused = box.run(["uninstall"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `codealmanac: uninstall would delete the run queue while work is in flight: a worker is running (pid ${worker}), 1 run is running, 1 run is queued; pass --yes to cancel it and uninstall, or wait for it to finish\n`,
    );
    expect(processAlive(agent)).toBe(true);

    const result = box.run(["uninstall", "--yes", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = result.json<UninstallJson>();
    expect([...report.cancelled].sort()).toEqual([running.run_id, queued.run_id].sort());
    expect(report.worker_stopped).toBe(worker);
    expect(report.removed.state_root).toBe(box.state);
    expect(processAlive(agent)).toBe(false);
    expect(processAlive(executor)).toBe(false);
    expect(processAlive(worker)).toBe(false);
    expect(existsSync(box.state)).toBe(false);
  });

  test("a lock holder that does not exit by itself is stopped; one whose pid was reused is never signalled", async () => {
    box = uninstallSandbox();
    box.env.CODEALMANAC_TEST_WORKER_TIMING = JSON.stringify({ cancelGraceMs: 200 });
    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    box.run(["jobs"]);
    // Carries the sandbox's CODEALMANAC_HOME, so the sandbox cleanup reaches it if a check fails.
    const holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { env: box.env, stdio: "ignore" });
    onTestFinished(() => void holder.kill("SIGKILL"));
    const startTime = await waitFor(() => readProcessStartTime(holder.pid!), "the holder to start");
    const lockAs = (start: string) =>
      writeDb(box, (db) =>
        db
          .prepare("INSERT OR REPLACE INTO worker_lock (id, token, pid, start_time, acquired_at, heartbeat_at) VALUES (1, 't', ?, ?, 1, 1)")
          .run(holder.pid, start),
      );

    lockAs("1");
    const reused = box.run(["uninstall", "--yes", "--json"]);
    expect(reused.code).toBe(0);
    expect(reused.json<UninstallJson>().worker_stopped).toBeNull();
    expect(processAlive(holder.pid!)).toBe(true);

    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    box.run(["jobs"]);
    lockAs(startTime);
    expect(box.run(["uninstall"]).stderr).toContain(`a worker is running (pid ${holder.pid})`);
    const stopped = box.run(["uninstall", "--yes", "--json"]);
    expect(stopped.code).toBe(0);
    expect(stopped.json<UninstallJson>().worker_stopped).toBe(holder.pid);
    expect(processAlive(holder.pid!)).toBe(false);
    expect(existsSync(box.state)).toBe(false);
  });

  test("stops a running viewer before it deletes the state, and says so", async () => {
    box = uninstallSandbox();
    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    const repo = writeWiki(join(box.dir, "app"), {});
    expect(box.run(["search", "home"], { cwd: repo }).code).toBe(0);
    const viewer = await startViewer(box, { cwd: repo });
    expect(readdirSync(join(box.state, "viewers"))).toEqual([`${viewer.child.pid}.json`]);

    const result = await box.runAsync(["uninstall", "--yes", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as UninstallJson & { viewers_stopped: { pid: number; url: string }[] };
    expect(report.viewers_stopped).toEqual([{ pid: viewer.child.pid, url: viewer.url }]);
    // It was asked to stop (SIGTERM), closed its server and exited normally.
    expect(await viewer.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(box.state), "a stopped viewer recreates nothing").toBe(false);
  });

  test("without --yes the refusal names the running viewer it would stop", async () => {
    box = uninstallSandbox();
    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    const viewer = await startViewer(box, {});
    const result = await box.runAsync(["uninstall"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the viewer running at ${viewer.url} (pid ${viewer.child.pid}), which is stopped first; pass --yes`);
    expect(viewer.child.exitCode).toBeNull();
  });

  test("keeps a state directory that holds a repository, with a warning", () => {
    box = uninstallSandbox();
    const repo = writeWiki(join(box.dir, "app"), {});
    const before = treeOf(join(repo, "almanac"));
    const env = { CODEALMANAC_HOME: repo };
    expect(box.run(["search", "home"], { cwd: repo, env }).code).toBe(0);
    const result = box.run(["uninstall", "--yes"], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`warning: kept ${repo}: it contains the repository ${repo}\n  fix: delete codealmanac's files there by hand\n`);
    expect(treeOf(join(repo, "almanac"))).toEqual(before);
    expect(existsSync(join(repo, "codealmanac.db"))).toBe(true);
  });

  // Known gap outside setup/: bin.ts saves the V8 compile cache under the state directory
  // after every command, so it re-creates the directory uninstall just deleted. Turn this
  // into a plain test once the cache skips a state directory that no longer exists.
  test("with the compile cache on, the deleted state directory stays deleted", () => {
    box = setupSandbox();
    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    expect(box.run(["uninstall", "--yes"]).code).toBe(0);
    expect(existsSync(box.state)).toBe(false);
  });
});
