/**
 * `ca setup` registers the MCP server with the agents it tells about the wiki whose CLI
 * is installed (user scope), as `ca mcp install` would; a second run changes nothing,
 * `--no-mcp` skips it, and a registration that fails is a warning that does not fail setup.
 */
import { afterEach, describe, expect, test } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setupSandbox, type SetupSandbox } from "../setup/support.js";
import { SERVER, fakeClaude } from "./install-support.js";

let box: SetupSandbox | undefined;
afterEach(() => {
  box?.cleanup();
  box = undefined;
});

interface McpJson {
  client: string;
  scope: string;
  status: string;
  config_path?: string;
  message?: string;
  fix?: string;
}

/** The setup sandbox (fake agents, fake crontab) with the MCP-capable fake claude in front. */
function mcpSetupBox(options: { withAgents?: boolean } = {}) {
  const made = (box = setupSandbox(options));
  const fake = fakeClaude(made.dir);
  made.env.PATH = `${fake.bin}:${made.env.PATH}`;
  made.env.FAKE_CLAUDE_MCP_LOG = fake.log;
  return {
    box: made,
    fake,
    claudeJson: join(made.home, ".claude.json"),
    codexToml: join(made.home, ".codex", "config.toml"),
  };
}

function setup(b: SetupSandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  return b.run(["setup", "--yes", "--skip-schedules", ...args], { env });
}

describe("setup: the MCP server", () => {
  test("is registered with Claude Code and Codex, and a second setup changes nothing", () => {
    const { box: b, fake, claudeJson, codexToml } = mcpSetupBox();
    const first = setup(b);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`claude MCP server: installed in ${claudeJson}\n`);
    expect(first.stdout).toContain(`codex MCP server: installed in ${codexToml}\n`);
    expect(fake.calls().map((c) => c.argv)).toEqual([["mcp", "add", "--scope", "user", "codealmanac", "--", SERVER.command, ...SERVER.args]]);
    const toml = readFileSync(codexToml, "utf8");
    expect(toml).toBe(`[mcp_servers.codealmanac]\ncommand = ${JSON.stringify(SERVER.command)}\nargs = [${SERVER.args.map((a) => JSON.stringify(a)).join(", ")}]\n`);

    const second = setup(b, ["--json"]);
    expect(second.json<{ mcp: McpJson[] }>().mcp).toEqual([
      { client: "claude", scope: "user", status: "already installed", config_path: claudeJson },
      { client: "codex", scope: "user", status: "already installed", config_path: codexToml },
    ]);
    expect(fake.calls()).toHaveLength(1);
    expect(readFileSync(codexToml, "utf8")).toBe(toml);
  });

  test("--no-mcp leaves both clients alone; --target limits it to that agent", () => {
    const { box: b, fake, codexToml } = mcpSetupBox();
    const skipped = setup(b, ["--no-mcp", "--json"]);
    expect(skipped.json<{ mcp: McpJson[] }>().mcp).toEqual([]);
    expect(fake.calls()).toEqual([]);
    expect(existsSync(codexToml)).toBe(false);

    const codexOnly = setup(b, ["--target", "codex", "--json"]).json<{ mcp: McpJson[] }>();
    expect(codexOnly.mcp.map((m) => [m.client, m.status])).toEqual([["codex", "installed"]]);
    expect(fake.calls()).toEqual([]);
  });

  test("only agents whose CLI is installed: none on PATH, nothing registered", () => {
    const { box: b, codexToml } = mcpSetupBox({ withAgents: false });
    b.env.PATH = b.env.PATH!.split(":").slice(1).join(":");
    const report = setup(b, ["--json"]).json<{ mcp: McpJson[] }>();
    expect(report.mcp).toEqual([]);
    expect(existsSync(codexToml)).toBe(false);
  });

  test("a registration that fails is a warning with its fix, and setup still succeeds", () => {
    const { box: b, codexToml } = mcpSetupBox();
    const failing = { FAKE_CLAUDE_MCP_FAIL: "Error: config file is locked", FAKE_CLAUDE_LOGGED_IN: "1" };
    const result = setup(b, [], failing);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("claude MCP server");
    expect(result.stdout).toContain(`codex MCP server: installed in ${codexToml}\n`);
    expect(result.stderr).toBe(
      "warning: could not register the codealmanac MCP server with Claude Code: `claude mcp add` failed: Error: config file is locked\n" +
        "  fix: after fixing it, `ca mcp install --client claude` registers it\n",
    );
    const json = setup(b, ["--json"], failing).json<{ mcp: McpJson[]; warnings: { key: string; status: string; message: string; fix: string }[] }>();
    const failure = {
      message: "could not register the codealmanac MCP server with Claude Code: `claude mcp add` failed: Error: config file is locked",
      fix: "after fixing it, `ca mcp install --client claude` registers it",
    };
    expect(json.mcp[0]).toEqual({ client: "claude", scope: "user", status: "failed", ...failure });
    expect(json.warnings).toEqual([{ key: "mcp.claude", status: "warn", ...failure }]);
  });
});
