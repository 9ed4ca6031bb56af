/**
 * The REAL Claude Code CLI (`@anthropic-ai/claude-code`, pinned devDependency) with our
 * server registered through `ca mcp install --client claude`, offline, every Claude Code
 * file under a temporary CLAUDE_CONFIG_DIR. `claude mcp list` starts the server and does
 * the MCP handshake, so `Connected` proves registration and server together. Skipped only
 * where the binary cannot run at all, as the other real-CLI tests are.
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { commitAll, writeWiki, type Sandbox } from "../support/cli.js";
import { REAL_BIN, CLAUDE_VERSION, OFFLINE_CLAUDE_ENV, probeClaude, realSandbox, settledProcesses } from "../real-agents/support.js";
import { SERVER } from "./install-support.js";

const COMMAND_LINE = `${SERVER.command} ${SERVER.args.join(" ")}`;

const probe = probeClaude();
if (probe.skip) console.warn(`[mcp install] skipping the real Claude Code tests: ${probe.skip}`);

let box: Sandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

/** The real claude first on PATH, nothing leaving the machine, Claude Code's files in the sandbox. */
function claudeSandbox(): { box: Sandbox; repo: string; userConfig: string } {
  if (probe.broken) throw new Error(probe.broken);
  const made = (box = realSandbox(OFFLINE_CLAUDE_ENV));
  const configDir = join(made.dir, "claude-config");
  mkdirSync(configDir, { recursive: true });
  made.env.CLAUDE_CONFIG_DIR = configDir;
  const repo = commitAll(writeWiki(join(made.dir, "repo"), {}));
  return { box: made, repo, userConfig: join(configDir, ".claude.json") };
}

function claude(sandboxed: Sandbox, args: string[], cwd: string): { code: number | null; out: string } {
  const run = spawnSync(join(REAL_BIN, "claude"), args, { cwd, env: sandboxed.env, encoding: "utf8", timeout: 60_000 });
  return { code: run.status, out: `${run.stdout ?? ""}${run.stderr ?? ""}` };
}

describe.skipIf(probe.skip !== null)(`real Claude Code ${CLAUDE_VERSION}: ca mcp install --client claude`, () => {
  test("user scope: `claude mcp list` reports the server Connected; install again changes nothing; uninstall removes it", { timeout: 120_000 }, async () => {
    const { box: b, repo, userConfig } = claudeSandbox();
    const installed = b.run(["mcp", "install", "--client", "claude", "--scope", "user"], { cwd: repo });
    expect(installed.stderr).toBe("");
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`installed the codealmanac MCP server for Claude Code (user scope, ${userConfig}): ${COMMAND_LINE}\n`);

    const list = claude(b, ["mcp", "list"], repo);
    expect(list.code, list.out).toBe(0);
    expect(list.out).toContain(`codealmanac: ${COMMAND_LINE} - ✔ Connected`);
    // The server Claude Code started for the health check ends with it.
    expect(await settledProcesses(b)).toEqual([]);

    // Idempotence is read from the file the real CLI wrote.
    const written = readFileSync(userConfig, "utf8");
    const again = b.run(["mcp", "install", "--client", "claude"], { cwd: repo });
    expect(again.stdout).toBe(`the codealmanac MCP server is already installed for Claude Code (user scope, ${userConfig}): ${COMMAND_LINE}\n`);
    expect(readFileSync(userConfig, "utf8")).toBe(written);

    const removed = b.run(["mcp", "uninstall", "--client", "claude"], { cwd: repo });
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain("removed the codealmanac MCP server from Claude Code");
    expect(claude(b, ["mcp", "list"], repo).out).not.toContain("codealmanac");
    expect(b.run(["mcp", "uninstall", "--client", "claude"], { cwd: repo }).stdout).toContain("is not installed");
  });

  test("project scope: .mcp.json in the repository root, Pending approval until a person approves it", { timeout: 120_000 }, () => {
    const { box: b, repo } = claudeSandbox();
    mkdirSync(join(repo, "src"));
    const installed = b.run(["mcp", "install", "--client", "claude", "--scope", "project"], { cwd: join(repo, "src") });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('note: Claude Code shows project servers as "Pending approval" until a person approves them (by design)');
    expect(existsSync(join(repo, ".mcp.json"))).toBe(true);

    const list = claude(b, ["mcp", "list"], repo);
    expect(list.out).toContain(`codealmanac: ${COMMAND_LINE} - ⏸ Pending approval`);
    expect(b.run(["mcp", "install", "--client", "claude", "--scope", "project", "--json"], { cwd: repo }).json()).toMatchObject({ status: "already installed" });

    expect(b.run(["mcp", "uninstall", "--client", "claude", "--scope", "project"], { cwd: repo }).code).toBe(0);
    expect(existsSync(join(repo, ".mcp.json"))).toBe(false);
  });
});
