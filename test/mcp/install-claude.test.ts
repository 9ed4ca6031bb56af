/**
 * `ca mcp install|uninstall --client claude` with a fake `claude` on PATH that does to
 * its files what `claude mcp add|remove` does: the exact argv we run, idempotence read
 * from Claude Code's own files, the project scope's `.mcp.json` in the repository root,
 * --print without running anything, and the one-line errors. The real Claude Code is in
 * real-claude.test.ts.
 */
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAKE_BIN, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { pathWithout } from "../real-agents/support.js";
import { SERVER, fakeClaude } from "./install-support.js";

const COMMAND_LINE = `${SERVER.command} ${SERVER.args.join(" ")}`;
const ADD_USER = ["mcp", "add", "--scope", "user", "codealmanac", "--", SERVER.command, ...SERVER.args];
const ENTRY = { type: "stdio", command: SERVER.command, args: SERVER.args, env: {} };

let box: Sandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

/** A sandbox with the fake claude first on PATH (and no other claude), Claude Code's files in `configDir`. */
function claudeBox() {
  const made = (box = sandbox());
  const fake = fakeClaude(made.dir);
  const configDir = join(made.dir, "claude-config");
  Object.assign(made.env, {
    PATH: `${fake.bin}:${pathWithout(made, "claude")}`,
    CLAUDE_CONFIG_DIR: configDir,
    FAKE_CLAUDE_MCP_LOG: fake.log,
    // As inside a Claude Code session: the variable must not reach the claude we run.
    CLAUDECODE: "1",
  });
  return { box: made, fake, userConfig: join(configDir, ".claude.json") };
}

function servers(path: string): Record<string, unknown> {
  return (JSON.parse(readFileSync(path, "utf8")) as { mcpServers: Record<string, unknown> }).mcpServers;
}

describe("ca mcp install|uninstall --client claude (user scope)", () => {
  test("runs `claude mcp add --scope user`, and a second install runs nothing", () => {
    const { box: b, fake, userConfig } = claudeBox();
    const first = b.run(["mcp", "install", "--client", "claude"]);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `installed the codealmanac MCP server for Claude Code (user scope, ${userConfig}): ${COMMAND_LINE}\n` +
        `  ran: claude ${ADD_USER.join(" ")}\n`,
    );
    expect(fake.calls()).toEqual([{ argv: ADD_USER, cwd: b.dir, claudecode: null }]);
    expect(servers(userConfig)).toEqual({ codealmanac: ENTRY });

    const again = b.run(["mcp", "install", "--client", "claude"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`the codealmanac MCP server is already installed for Claude Code (user scope, ${userConfig}): ${COMMAND_LINE}\n`);
    expect(fake.calls()).toHaveLength(1);
  });

  test("uninstall runs `claude mcp remove --scope user`; with nothing installed it says so and exits 0", () => {
    const { box: b, fake, userConfig } = claudeBox();
    expect(b.run(["mcp", "install", "--client", "claude"]).code).toBe(0);
    const removed = b.run(["mcp", "uninstall", "--client", "claude"]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      `removed the codealmanac MCP server from Claude Code (user scope, ${userConfig})\n  ran: claude mcp remove --scope user codealmanac\n`,
    );
    expect(fake.calls().map((c) => c.argv)).toEqual([ADD_USER, ["mcp", "remove", "--scope", "user", "codealmanac"]]);
    expect(servers(userConfig)).toEqual({});

    const none = b.run(["mcp", "uninstall", "--client", "claude"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`the codealmanac MCP server is not installed for Claude Code (user scope, ${userConfig}); nothing to remove\n`);
    expect(fake.calls()).toHaveLength(2);
  });

  test("a codealmanac server with another command is replaced: remove, then add", () => {
    const { box: b, fake, userConfig } = claudeBox();
    mkdirSync(join(b.dir, "claude-config"));
    writeFileSync(userConfig, JSON.stringify({ mcpServers: { codealmanac: { type: "stdio", command: "codealmanac", args: ["mcp"] }, other: { command: "x" } } }));
    const result = b.run(["mcp", "install", "--client", "claude", "--json"]);
    expect(result.code).toBe(0);
    expect(result.json()).toMatchObject({ status: "updated", commands: [["claude", "mcp", "remove", "--scope", "user", "codealmanac"], ["claude", ...ADD_USER]] });
    expect(fake.calls().map((c) => c.argv)).toEqual([["mcp", "remove", "--scope", "user", "codealmanac"], ADD_USER]);
    expect(servers(userConfig)).toEqual({ other: { command: "x" }, codealmanac: ENTRY });
  });

  test("flags a person added after `mcp` count as installed, and are kept when the command is replaced", () => {
    const { box: b, fake, userConfig } = claudeBox();
    mkdirSync(join(b.dir, "claude-config"));
    const flagged = { ...ENTRY, args: [...SERVER.args, "--allow-queue"] };
    writeFileSync(userConfig, JSON.stringify({ mcpServers: { codealmanac: flagged } }));
    expect(b.run(["mcp", "install", "--client", "claude", "--json"]).json()).toMatchObject({ status: "already installed", server: { args: flagged.args } });
    expect(fake.calls()).toEqual([]);

    writeFileSync(userConfig, JSON.stringify({ mcpServers: { codealmanac: { command: "/old/node", args: ["/old/bin.js", "mcp", "--allow-queue"] } } }));
    expect(b.run(["mcp", "install", "--client", "claude"]).code).toBe(0);
    expect(fake.calls().map((c) => c.argv)[1]).toEqual([...ADD_USER, "--allow-queue"]);
    expect(servers(userConfig)).toEqual({ codealmanac: flagged });
  });

  test("without CLAUDE_CONFIG_DIR, Claude Code's file is ~/.claude.json", () => {
    const { box: b, fake } = claudeBox();
    delete b.env.CLAUDE_CONFIG_DIR;
    const report = b.run(["mcp", "install", "--client", "claude", "--json"]).json<{ config_path: string; status: string }>();
    expect(report).toMatchObject({ status: "installed", config_path: join(b.home, ".claude.json") });
    expect(servers(join(b.home, ".claude.json"))).toEqual({ codealmanac: ENTRY });
    expect(b.run(["mcp", "install", "--client", "claude", "--json"]).json()).toMatchObject({ status: "already installed" });
    expect(fake.calls()).toHaveLength(1);
  });
});

describe("the fake claude's own view", () => {
  test("`claude mcp list` and `get` start the registered server and report it Connected, as the real CLI does", () => {
    const { box: b } = claudeBox();
    expect(b.run(["mcp", "install", "--client", "claude"]).code).toBe(0);
    const claude = (args: string[]) => spawnSync(join(FAKE_BIN, "claude"), args, { cwd: b.dir, env: b.env, encoding: "utf8" });
    const list = claude(["mcp", "list"]);
    expect(list.status).toBe(0);
    expect(list.stdout).toBe(`Checking MCP server health…\n\ncodealmanac: ${COMMAND_LINE} - ✔ Connected\n`);
    const get = claude(["mcp", "get", "codealmanac"]);
    expect(get.status).toBe(0);
    expect(get.stdout).toContain(`  Scope: User config (available in all your projects)\n  Status: ✔ Connected\n  Type: stdio\n  Command: ${SERVER.command}\n`);
    expect(b.run(["mcp", "uninstall", "--client", "claude"]).code).toBe(0);
    expect(claude(["mcp", "list"]).stdout).toBe("No MCP servers configured. Use `claude mcp add` to add a server.\n");
  });
});

describe("--print", () => {
  test("shows the command and the JSON to add by hand, runs nothing, and works without claude on PATH", () => {
    const { box: b, fake, userConfig } = claudeBox();
    b.env.PATH = pathWithout(b, "claude");
    const plan = b.run(["mcp", "install", "--client", "claude", "--print"]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toBe(
      [
        "# would run:",
        `claude ${ADD_USER.join(" ")}`,
        `# which writes this into ${userConfig} (or merge it there by hand):`,
        JSON.stringify({ mcpServers: { codealmanac: ENTRY } }, null, 2),
        "",
      ].join("\n"),
    );
    expect(fake.calls()).toEqual([]);
    expect(existsSync(userConfig)).toBe(false);
  });

  test("uninstall --print shows the remove command; with --json the same facts", () => {
    const { box: b, fake, userConfig } = claudeBox();
    expect(b.run(["mcp", "install", "--client", "claude"]).code).toBe(0);
    const plan = b.run(["mcp", "uninstall", "--client", "claude", "--print"]);
    expect(plan.stdout).toBe("# would run:\nclaude mcp remove --scope user codealmanac\n");
    expect(b.run(["mcp", "uninstall", "--client", "claude", "--print", "--json"]).json()).toEqual({
      client: "claude",
      scope: "user",
      action: "uninstall",
      status: "removed",
      dry_run: true,
      server: { name: "codealmanac", ...SERVER },
      config_path: userConfig,
      commands: [["claude", "mcp", "remove", "--scope", "user", "codealmanac"]],
      text: null,
      deleted_file: false,
      note: null,
    });
    expect(fake.calls()).toHaveLength(1);
    expect(servers(userConfig)).toEqual({ codealmanac: ENTRY });
  });
});

describe("--scope project", () => {
  test("writes .mcp.json in the repository root from any folder of it, and says it waits for approval", () => {
    const { box: b, fake } = claudeBox();
    const repo = writeWiki(join(b.dir, "repo"), {});
    mkdirSync(join(repo, "src", "deep"), { recursive: true });
    const result = b.run(["mcp", "install", "--client", "claude", "--scope", "project"], { cwd: join(repo, "src", "deep") });
    expect(result.code).toBe(0);
    const add = ["mcp", "add", "--scope", "project", "codealmanac", "--", SERVER.command, ...SERVER.args];
    expect(result.stdout).toBe(
      [
        `installed the codealmanac MCP server for Claude Code (project scope, ${join(repo, ".mcp.json")}): ${COMMAND_LINE}`,
        `  ran: claude ${add.join(" ")}`,
        `note: Claude Code shows project servers as "Pending approval" until a person approves them (by design): start \`claude\` in ${repo} and approve codealmanac`,
        "",
      ].join("\n"),
    );
    expect(fake.calls()).toEqual([{ argv: add, cwd: repo, claudecode: null }]);
    expect(servers(join(repo, ".mcp.json"))).toEqual({ codealmanac: ENTRY });
    expect(b.run(["mcp", "install", "--client", "claude", "--scope", "project", "--json"], { cwd: repo }).json()).toMatchObject({ status: "already installed" });
  });

  test("uninstall deletes a .mcp.json that held only our server, and keeps one with others", () => {
    const { box: b } = claudeBox();
    const repo = writeWiki(join(b.dir, "repo"), {});
    const mcpJson = join(repo, ".mcp.json");
    expect(b.run(["mcp", "install", "--client", "claude", "--scope", "project"], { cwd: repo }).code).toBe(0);
    const removed = b.run(["mcp", "uninstall", "--client", "claude", "--scope", "project"], { cwd: repo });
    expect(removed.stdout).toContain(`deleted ${mcpJson} (it held only the codealmanac server)\n`);
    expect(existsSync(mcpJson)).toBe(false);

    writeFileSync(mcpJson, JSON.stringify({ mcpServers: { docs: { command: "npx", args: ["docs"] } } }));
    expect(b.run(["mcp", "install", "--client", "claude", "--scope", "project"], { cwd: repo }).code).toBe(0);
    expect(b.run(["mcp", "uninstall", "--client", "claude", "--scope", "project"], { cwd: repo }).stdout).not.toContain("deleted");
    expect(servers(mcpJson)).toEqual({ docs: { command: "npx", args: ["docs"] } });
  });

  test("outside a repository with a wiki it is refused in one line", () => {
    const { box: b, fake } = claudeBox();
    const result = b.run(["mcp", "install", "--client", "claude", "--scope", "project"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "codealmanac: --scope project writes .mcp.json in the repository root, and no almanac/ wiki was found here or above: run it inside a repository with a wiki, or use --scope user\n",
    );
    expect(fake.calls()).toEqual([]);
  });
});

describe("failures are one line", () => {
  test("claude not on PATH: install Claude Code, or --print for the JSON", () => {
    const { box: b } = claudeBox();
    b.env.PATH = pathWithout(b, "claude");
    const result = b.run(["mcp", "install", "--client", "claude"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "codealmanac: claude not found on PATH: install Claude Code: npm install -g @anthropic-ai/claude-code, or run this again with --print to see the JSON to add by hand\n",
    );
    const json = b.run(["mcp", "install", "--client", "claude", "--json"]);
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: "execution_failed", message: expect.stringContaining("claude not found on PATH") } });
  });

  test("claude itself failing: its first line", () => {
    const { box: b, userConfig } = claudeBox();
    const result = b.run(["mcp", "install", "--client", "claude"], { env: { FAKE_CLAUDE_MCP_FAIL: "Error: config file is locked" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("codealmanac: `claude mcp add` failed: Error: config file is locked\n");
    expect(existsSync(userConfig)).toBe(false);
  });
});
