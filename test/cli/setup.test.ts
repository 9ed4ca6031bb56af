import { afterEach, describe, expect, test } from "vitest";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { BLOCK_END, BLOCK_START, managedBlock } from "../../src/setup/instruction-block.js";
import { cronLines, readText, setupSandbox, writeText, type SetupSandbox } from "../setup/support.js";

let box: SetupSandbox;
afterEach(() => box?.cleanup());

const BLOCK = managedBlock();

interface SetupJson {
  instructions: { target: string; path: string; status: string }[];
  config: { path: string; auto_commit: boolean; harness_default: string | null; automation: Record<string, { enabled: boolean; every: string }> };
  schedules: { task: string; outcome: string; enabled?: boolean; every?: string; scheduler?: string; error?: string }[];
  warnings: { key: string; status: string; message: string; fix?: string }[];
}

function setup(args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  return box.run(["setup", "--yes", ...args], { env });
}

describe("setup: instruction files", () => {
  test("installs the block into the global CLAUDE.md and AGENTS.md, and a second run changes nothing", () => {
    box = setupSandbox();
    const first = setup(["--skip-schedules"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`claude instructions: installed in ${box.claudeMd}\n`);
    expect(first.stdout).toContain(`codex instructions: installed in ${box.agentsMd}\n`);
    // The fake claude on PATH registers the MCP server as the real one does.
    expect(first.stdout).toContain(`claude MCP server: installed in ${join(box.home, ".claude.json")}\n`);
    expect(first.stdout).toContain(`codex MCP server: installed in ${join(box.home, ".codex", "config.toml")}\n`);
    expect(first.stderr).not.toContain("MCP");
    expect(readText(box.claudeMd)).toBe(`${BLOCK}\n`);
    expect(readText(box.agentsMd)).toBe(`${BLOCK}\n`);
    const config = readText(join(box.state, "config.toml"));

    const second = setup(["--skip-schedules"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`claude instructions: already installed in ${box.claudeMd}\n`);
    expect(second.stdout).toContain(`codex instructions: already installed in ${box.agentsMd}\n`);
    expect(second.stdout).toContain(`claude MCP server: already installed in ${join(box.home, ".claude.json")}\n`);
    expect(readText(box.claudeMd)).toBe(`${BLOCK}\n`);
    expect(readText(box.agentsMd)).toBe(`${BLOCK}\n`);
    expect(readText(join(box.state, "config.toml"))).toBe(config);
  });

  test("keeps everything else in the files byte for byte, and replaces an older block in place", () => {
    box = setupSandbox();
    const mine = "# House rules\r\n\r\n- tabs, not spaces   \r\n";
    writeText(box.claudeMd, mine);
    const around = ["# Codex rules\n\n", "\n## Later section\nkeep me\n"];
    writeText(box.agentsMd, `${around[0]}${BLOCK_START}\nan old guide\n${BLOCK_END}${around[1]}`);

    const result = setup(["--skip-schedules", "--json"]);
    expect(result.code).toBe(0);
    expect(result.json<SetupJson>().instructions).toEqual([
      { target: "claude", path: box.claudeMd, status: "installed" },
      { target: "codex", path: box.agentsMd, status: "updated" },
    ]);
    expect(readText(box.claudeMd)).toBe(`${mine}\r\n${managedBlock("\r\n")}\r\n`);
    expect(readText(box.agentsMd)).toBe(`${around[0]}${BLOCK}${around[1]}`);
  });

  test("uses AGENTS.override.md when it has content, and AGENTS.md when it is blank", () => {
    box = setupSandbox();
    writeText(box.agentsOverride, "   \n");
    setup(["--skip-schedules", "--target", "codex"]);
    expect(readText(box.agentsMd)).toBe(`${BLOCK}\n`);
    expect(readText(box.agentsOverride)).toBe("   \n");

    box.cleanup();
    box = setupSandbox();
    writeText(box.agentsOverride, "override rules\n");
    const result = setup(["--skip-schedules", "--target", "codex", "--json"]);
    expect(result.json<SetupJson>().instructions).toEqual([{ target: "codex", path: box.agentsOverride, status: "installed" }]);
    expect(readText(box.agentsOverride)).toBe(`override rules\n\n${BLOCK}\n`);
    expect(readText(box.agentsMd)).toBeNull();
    expect(readText(box.claudeMd)).toBeNull();
  });

  test("follows CLAUDE_CONFIG_DIR and CODEX_HOME", () => {
    box = setupSandbox();
    const claudeDir = join(box.dir, "claude-config");
    const codexHome = join(box.dir, "codex-home");
    expect(setup(["--skip-schedules"], { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexHome }).code).toBe(0);
    expect(readText(join(claudeDir, "CLAUDE.md"))).toBe(`${BLOCK}\n`);
    expect(readText(join(codexHome, "AGENTS.md"))).toBe(`${BLOCK}\n`);
    expect(readText(box.claudeMd)).toBeNull();
  });

  test("writes through a symlinked CLAUDE.md instead of replacing the link", () => {
    box = setupSandbox();
    const real = join(box.dir, "dotfiles", "CLAUDE.md");
    writeText(real, "from my dotfiles\n");
    writeText(join(box.home, ".claude", "placeholder"), "");
    symlinkSync(real, box.claudeMd);
    expect(setup(["--skip-schedules", "--target", "claude"]).code).toBe(0);
    expect(readFileSync(real, "utf8")).toBe(`from my dotfiles\n\n${BLOCK}\n`);
    expect(readText(box.claudeMd)).toBe(readFileSync(real, "utf8"));
  });

  test("--skip-instructions touches no instruction file; --target limits them", () => {
    box = setupSandbox();
    expect(setup(["--skip-schedules", "--skip-instructions"]).code).toBe(0);
    expect(readText(box.claudeMd)).toBeNull();
    expect(readText(box.agentsMd)).toBeNull();
    expect(setup(["--skip-schedules", "--target", "claude"]).code).toBe(0);
    expect(readText(box.claudeMd)).toBe(`${BLOCK}\n`);
    expect(readText(box.agentsMd)).toBeNull();
  });

  test("a half-written block is refused with a one-line fix, and the file is left alone", () => {
    box = setupSandbox();
    const broken = `mine\n${BLOCK_START}\nno end\n`;
    writeText(box.claudeMd, broken);
    const result = setup(["--skip-schedules"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`codealmanac: ${box.claudeMd} has a start marker without an end marker for the codealmanac block; fix or remove it by hand`);
    expect(readText(box.claudeMd)).toBe(broken);
    expect(readText(box.agentsMd)).toBeNull();
    expect(readText(join(box.state, "config.toml"))).toBeNull();
  });
});

describe("setup: settings and schedules", () => {
  test("writes the settings, installs both schedules through the scheduler, and keeps them on a second run", () => {
    box = setupSandbox();
    const result = setup(["--json"]);
    expect(result.code).toBe(0);
    const report = result.json<SetupJson>();
    expect(report.config).toMatchObject({
      path: join(box.state, "config.toml"),
      auto_commit: true,
      harness_default: null,
      automation: { sync: { enabled: true, every: "5h" }, garden: { enabled: true, every: "24h" } },
    });
    expect(report.schedules.map((s) => [s.task, s.outcome, s.every, s.scheduler])).toEqual([
      ["sync", "installed", "5h", "cron"],
      ["garden", "installed", "24h", "cron"],
    ]);
    expect(readText(join(box.state, "config.toml"))).toBe(
      'auto_commit = true\n\n[automation.sync]\nenabled = true\nevery = "5h"\n\n[automation.garden]\nenabled = true\nevery = "24h"\n',
    );
    const lines = cronLines(box);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("__scheduled sync --every 5h");
    expect(lines[1]).toContain("__scheduled garden --every 24h");

    const crontab = readText(box.crontab);
    const again = setup(["--json"]).json<SetupJson>();
    expect(again.schedules.map((s) => s.outcome)).toEqual(["unchanged", "unchanged"]);
    expect(readText(box.crontab)).toBe(crontab);
  });

  test("flags set the agent, commit policy and intervals; off removes a schedule", () => {
    box = setupSandbox();
    setup([]);
    const result = setup(["--using", "claude", "--no-auto-commit", "--sync-every", "90m", "--garden-off", "--json"]);
    expect(result.code).toBe(0);
    const report = result.json<SetupJson>();
    expect(report.config).toMatchObject({
      auto_commit: false,
      harness_default: "claude",
      automation: { sync: { enabled: true, every: "90m" }, garden: { enabled: false, every: "24h" } },
    });
    expect(report.schedules.map((s) => [s.task, s.outcome])).toEqual([
      ["sync", "installed"],
      ["garden", "removed"],
    ]);
    const lines = cronLines(box);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("__scheduled sync --every 90m");
    const config = readText(join(box.state, "config.toml"))!;
    expect(config).toContain("auto_commit = false");
    expect(config).toContain('[harness]\ndefault = "claude"');
    // Flags not given keep what config.toml says now.
    expect(setup(["--json"]).json<SetupJson>().config).toMatchObject({ auto_commit: false, harness_default: "claude" });
  });

  test("comments and other keys of config.toml survive", () => {
    box = setupSandbox();
    writeText(join(box.state, "config.toml"), '# my settings\n[runs]\ntimeout = "2h" # long runs\n');
    expect(setup(["--skip-schedules"]).code).toBe(0);
    const config = readText(join(box.state, "config.toml"))!;
    expect(config.startsWith('auto_commit = true\n\n# my settings\n[runs]\ntimeout = "2h" # long runs\n')).toBe(true);
  });

  test("an invalid config.toml stops setup before anything is written", () => {
    box = setupSandbox();
    writeText(join(box.state, "config.toml"), "auto_commit = 3\n");
    const result = setup([]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^codealmanac: invalid config .*config\.toml: /m);
    expect(readText(box.claudeMd)).toBeNull();
    expect(readText(box.crontab)).toBeNull();
  });

  test("a scheduler that fails: everything else is saved and said, then one line per failed schedule, one fix, exit 1", () => {
    box = setupSandbox();
    // crontab is on PATH but cannot write: the cron adapter's write fails.
    box.env.FAKE_CRONTAB_FILE = join(box.dir, "missing-dir", "crontab");
    const env = { FAKE_CLAUDE_LOGGED_IN: "1" };
    const human = setup(["--no-mcp", "--skip-hooks"], env);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe(
      `claude instructions: installed in ${box.claudeMd}\n` +
        `codex instructions: installed in ${box.agentsMd}\n` +
        `settings: agent detected per run, auto-commit on, sync every 5h, garden every 24h (${join(box.state, "config.toml")})\n`,
    );
    const lines = human.stderr.split("\n").filter((line) => line !== "");
    expect(lines).toEqual([
      expect.stringMatching(/^codealmanac: sync: schedule not updated: crontab - failed: /),
      expect.stringMatching(/^codealmanac: garden: schedule not updated: crontab - failed: /),
      "  fix: config.toml is saved; once the scheduler works, run `codealmanac config apply` to install the schedules",
    ]);
    expect(readText(box.claudeMd)).toBe(`${BLOCK}\n`);
    expect(readText(join(box.state, "config.toml"))).toContain("[automation.sync]");

    // --json: the report on stdout, the one error object on stderr, as `config set --json` does.
    const result = setup(["--json"], env);
    expect(result.code).toBe(1);
    const report = result.json<SetupJson>();
    expect(report.schedules.map((s) => [s.task, s.outcome])).toEqual([
      ["sync", "failed"],
      ["garden", "failed"],
    ]);
    expect(report.schedules[0]!.error).toMatch(/^crontab - failed: /);
    expect(report.warnings.filter((w) => w.key.startsWith("schedule."))).toEqual([]);
    const error = (JSON.parse(result.stderr) as { error: { code: string; message: string; fix: string } }).error;
    expect(error).toEqual({
      code: "execution_failed",
      message: expect.stringMatching(/^sync: schedule not updated: .*; garden: schedule not updated: /),
      fix: "config.toml is saved; once the scheduler works, run `codealmanac config apply` to install the schedules",
    });
  });

  test("no scheduler here at all: the same lines and exit 1; --skip-schedules leaves the scheduler alone and exits 0", () => {
    box = setupSandbox({ env: { CODEALMANAC_SCHEDULER: "none" } });
    const result = setup(["--no-mcp", "--skip-hooks", "--skip-instructions"], { FAKE_CLAUDE_LOGGED_IN: "1" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "codealmanac: sync: schedule not updated: scheduled automation is turned off here (CODEALMANAC_SCHEDULER=none)\n" +
        "codealmanac: garden: schedule not updated: scheduled automation is turned off here (CODEALMANAC_SCHEDULER=none)\n" +
        "  fix: config.toml is saved; once the scheduler works, run `codealmanac config apply` to install the schedules\n",
    );
    expect(setup(["--no-mcp", "--skip-hooks", "--skip-instructions", "--skip-schedules"]).code).toBe(0);
  });

  test("bad intervals: an invalid duration exits 1, --sync-every with --sync-off is a syntax error", () => {
    box = setupSandbox();
    const bad = setup(["--sync-every", "soon"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('codealmanac: invalid --sync-every "soon": must be a duration such as 90s, 30m, 5h or 1d\n');
    const short = setup(["--garden-every", "1ms"]);
    expect(short.code).toBe(1);
    expect(short.stderr).toBe('codealmanac: invalid --garden-every "1ms": must be between 1m and 365d\n');
    const both = setup(["--sync-every", "5h", "--sync-off"]);
    expect(both.code).toBe(2);
    expect(readText(box.claudeMd)).toBeNull();
  });
});

describe("setup: agent readiness never refuses", () => {
  test("with no agent CLI on PATH it warns and installs everything else", () => {
    box = setupSandbox({ withAgents: false });
    const result = setup(["--json"]);
    expect(result.code).toBe(0);
    const report = result.json<SetupJson>();
    expect(report.warnings).toContainEqual({
      key: "harness",
      status: "warn",
      message: "no agent CLI found on PATH; ingest, garden and sync need one (instructions and settings are installed anyway)",
      fix: "install Claude Code: npm install -g @anthropic-ai/claude-code; or install Codex: npm install -g @openai/codex",
    });
    expect(readText(box.claudeMd)).toBe(`${BLOCK}\n`);
    expect(cronLines(box)).toHaveLength(2);
  });

  test("--using an agent that is not installed is a warning, and the setting is saved", () => {
    box = setupSandbox({ withAgents: false });
    const report = setup(["--using", "codex", "--skip-schedules", "--json"]).json<SetupJson>();
    expect(report.config.harness_default).toBe("codex");
    expect(report.warnings.map((w) => w.key)).toEqual(["harness"]);
  });

  test("with every agent logged out and no API key it warns with the login lines", () => {
    box = setupSandbox();
    const result = setup(["--skip-schedules"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "warning: no agent CLI is logged in (claude, codex) and no API key is set; runs will fail until one is\n" +
        "  fix: run `claude auth login` or set ANTHROPIC_API_KEY; or run `codex login` or set OPENAI_API_KEY\n",
    );
  });

  test("one logged-in agent, or an API key in the environment, silences the login warning", () => {
    box = setupSandbox();
    const loggedIn = setup(["--skip-schedules", "--json"], { FAKE_CLAUDE_LOGGED_IN: "1" }).json<SetupJson>();
    expect(loggedIn.warnings).toEqual([]);
    const withKey = setup(["--skip-schedules", "--json"], { OPENAI_API_KEY: "sk-test" }).json<SetupJson>();
    expect(withKey.warnings).toEqual([]);
  });
});

describe("setup: asking", () => {
  test("without a terminal and without --yes it asks nothing, uses the defaults and says so", () => {
    box = setupSandbox({ env: { FAKE_CLAUDE_LOGGED_IN: "1" } });
    const result = box.run(["setup", "--skip-schedules"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      "codealmanac: not a terminal, so setup asks nothing and uses the defaults and flags given (--yes says so and hides this note)\n",
    );
    expect(readText(box.claudeMd)).toBe(`${BLOCK}\n`);
    const quiet = box.run(["setup", "--skip-schedules", "--yes"]);
    expect(quiet.stderr).toBe("");
    const json = box.run(["setup", "--skip-schedules", "--json"]);
    expect(json.stderr).toBe("");
  });

  test("--help lists every flag", () => {
    box = setupSandbox();
    const help = box.run(["setup", "--help"]).stdout;
    for (const flag of ["--yes", "--skip-instructions", "--target", "--using", "--sync-every", "--sync-off", "--garden-every", "--garden-off", "--no-auto-commit", "--skip-schedules", "--json"]) {
      expect(help).toContain(flag);
    }
  });
});
