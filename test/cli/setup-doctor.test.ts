import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { page, writeWiki } from "../support/cli.js";
import { checkOf, setupSandbox, writeText, type CheckJson, type SetupSandbox } from "../setup/support.js";

let box: SetupSandbox;
afterEach(() => box?.cleanup());

interface DoctorJson {
  ok: boolean;
  checks: CheckJson[];
}

function doctor(env: NodeJS.ProcessEnv = {}, args: string[] = [], cwd?: string) {
  const result = box.run(["doctor", "--json", ...args], { env, ...(cwd ? { cwd } : {}) });
  return { code: result.code, report: result.json<DoctorJson>(), stderr: result.stderr };
}

const LOGGED_IN = { FAKE_CLAUDE_LOGGED_IN: "1", FAKE_CODEX_LOGGED_IN: "1" };

describe("doctor", () => {
  test("after setup, with both agents installed and logged in, every check passes", () => {
    box = setupSandbox();
    expect(box.run(["setup", "--yes"]).code).toBe(0);
    const { code, report } = doctor(LOGGED_IN);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.key)).toEqual([
      "node",
      "sqlite.module",
      "state.database",
      "state.registry",
      "config",
      "harness.claude",
      "login.claude",
      "harness.codex",
      "login.codex",
      "instructions.claude",
      "instructions.codex",
      "mcp.claude",
      "mcp.codex",
      "hooks.claude",
      "hooks.codex",
      "schedule.sync",
      "schedule.garden",
      "wiki",
    ]);
    expect(report.checks.every((c) => c.status === "ok")).toBe(true);
    expect(checkOf(report.checks, "hooks.claude").message).toBe(`SessionEnd hook installed in ${join(box.home, ".claude", "settings.json")}`);
    expect(checkOf(report.checks, "hooks.codex").message).toBe(`SessionEnd hook installed in ${join(box.home, ".codex", "hooks.json")} (Codex runs it once you trust it: /hooks in Codex)`);
    expect(checkOf(report.checks, "node").message).toBe(`Node ${process.versions.node}`);
    expect(checkOf(report.checks, "state.database").message).toMatch(new RegExp(`^${join(box.state, "codealmanac.db")} \\(schema \\d+, integrity ok\\)$`));
    expect(checkOf(report.checks, "state.registry").message).toBe("0 wikis registered");
    expect(checkOf(report.checks, "harness.claude").message).toMatch(/^claude 2\.1\.332 at .*test\/fixtures\/bin\/claude$/);
    expect(checkOf(report.checks, "harness.codex").message).toMatch(/^codex 0\.171\.0 at /);
    expect(checkOf(report.checks, "schedule.sync").message).toBe("every 5h (cron: crontab)");
    expect(checkOf(report.checks, "schedule.garden").message).toBe("every 24h (cron: crontab)");
    expect(checkOf(report.checks, "instructions.claude").message).toBe(`installed in ${box.claudeMd}`);
    expect(checkOf(report.checks, "mcp.claude").message).toBe(`registered in ${join(box.home, ".claude.json")}`);
    expect(checkOf(report.checks, "mcp.codex").message).toBe(`registered in ${join(box.home, ".codex", "config.toml")}`);
    expect(checkOf(report.checks, "wiki").message).toBe("no wiki here (run doctor inside a repository with almanac/, or pass --wiki NAME)");
  });

  test("before setup: instructions and schedules are warnings, which keep the exit code 0", () => {
    box = setupSandbox();
    const { code, report } = doctor(LOGGED_IN);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(checkOf(report.checks, "instructions.claude")).toEqual({
      key: "instructions.claude",
      status: "warn",
      message: "claude is not told about the wiki",
      fix: "ca setup --target claude",
    });
    expect(checkOf(report.checks, "schedule.sync")).toMatchObject({ status: "warn", message: "not scheduled" });
    expect(checkOf(report.checks, "config")).toEqual({ key: "config", status: "ok", message: "no config.toml; defaults apply" });
  });

  test("logins: the agent runs use fails when logged out, the other warns, an API key turns the failure into a warning", () => {
    box = setupSandbox();
    // Both installed and nothing configured: runs use codex.
    const loggedOut = doctor();
    expect(loggedOut.code).toBe(1);
    expect(loggedOut.report.ok).toBe(false);
    expect(checkOf(loggedOut.report.checks, "login.codex")).toEqual({
      key: "login.codex",
      status: "fail",
      message: "codex is not logged in",
      fix: "run `codex login` or set OPENAI_API_KEY",
    });
    expect(checkOf(loggedOut.report.checks, "login.claude")).toMatchObject({
      status: "warn",
      message: "claude is not logged in; runs use codex (harness.default is unset and both are installed), so only `--using claude` needs it",
    });

    const withKey = doctor({ OPENAI_API_KEY: "sk-test" });
    expect(withKey.code).toBe(0);
    expect(checkOf(withKey.report.checks, "login.codex")).toEqual({
      key: "login.codex",
      status: "warn",
      message: "codex: not logged in, but OPENAI_API_KEY is set; runs use that instead",
      fix: "run `codex login` or set OPENAI_API_KEY",
    });

    // The configured harness is the one that must be able to log in.
    writeText(join(box.state, "config.toml"), '[harness]\ndefault = "claude"\n');
    const configured = doctor({ FAKE_CODEX_LOGGED_IN: "1" });
    expect(checkOf(configured.report.checks, "login.claude").status).toBe("fail");
    expect(checkOf(configured.report.checks, "login.codex").status).toBe("ok");
    expect(configured.code).toBe(1);
  });

  test("the agent the user chose is judged: Codex installed but logged out is a warning when harness.default is claude", () => {
    box = setupSandbox();
    writeText(join(box.state, "config.toml"), '[harness]\ndefault = "claude"\n');
    const { code, report } = doctor({ FAKE_CLAUDE_LOGGED_IN: "1" });
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(checkOf(report.checks, "login.claude").status).toBe("ok");
    expect(checkOf(report.checks, "login.codex")).toEqual({
      key: "login.codex",
      status: "warn",
      message: "codex is not logged in; runs use claude (harness.default), so only `--using codex` needs it",
      fix: "run `codex login` or set OPENAI_API_KEY",
    });
    // Too old to drive is a failure only for the chosen agent too.
    const old = doctor({ FAKE_CLAUDE_LOGGED_IN: "1", FAKE_CODEX_VERSION: "0.40.0" });
    expect(old.code).toBe(0);
    expect(checkOf(old.report.checks, "harness.codex").status).toBe("warn");

    const text = box.run(["doctor"], { env: { FAKE_CLAUDE_LOGGED_IN: "1" } });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("! login.codex          codex is not logged in; runs use claude (harness.default), so only `--using codex` needs it\n");
  });

  test("without harness.default, the agents the ledger's runs used are judged, not the one detection prefers", () => {
    box = setupSandbox();
    const root = writeWiki(join(box.dir, "app"), { "home.md": page({ title: "Home", topics: ["concepts"], body: "Home." }) });
    const run = box.run(["garden", "--using", "claude", "--wait", "--json"], { cwd: root, env: { FAKE_CLAUDE_LOGGED_IN: "1" } });
    expect(run.code).toBe(0);
    // Both installed, nothing configured: detection would pick codex, but runs used claude.
    const { code, report } = doctor({ FAKE_CLAUDE_LOGGED_IN: "1" });
    expect(checkOf(report.checks, "login.codex")).toMatchObject({
      status: "warn",
      message: "codex is not logged in; runs use claude (recent runs used it), so only `--using codex` needs it",
    });
    expect(code).toBe(0);
    const claudeOut = doctor({ FAKE_CODEX_LOGGED_IN: "1" });
    expect(checkOf(claudeOut.report.checks, "login.claude").status).toBe("fail");
    expect(claudeOut.code).toBe(1);
  });

  test("without any agent CLI on PATH both harness checks fail with the install lines, and no login is asked", () => {
    box = setupSandbox({ withAgents: false });
    const { code, report } = doctor();
    expect(code).toBe(1);
    expect(checkOf(report.checks, "harness.claude")).toEqual({
      key: "harness.claude",
      status: "fail",
      message: "claude not found on PATH",
      fix: "install Claude Code: npm install -g @anthropic-ai/claude-code",
    });
    expect(checkOf(report.checks, "harness.codex")).toMatchObject({ status: "fail", fix: "install Codex: npm install -g @openai/codex" });
    expect(report.checks.some((c) => c.key.startsWith("login."))).toBe(false);
  });

  test("a version too old to drive is a failure with the upgrade line", () => {
    box = setupSandbox();
    const { report } = doctor({ ...LOGGED_IN, FAKE_CODEX_VERSION: "0.40.0" });
    expect(checkOf(report.checks, "harness.codex")).toEqual({
      key: "harness.codex",
      status: "fail",
      message: "codex 0.40.0 is older than 0.44.0 and prints a --json stream CodeAlmanac cannot read",
      fix: "upgrade Codex: npm install -g @openai/codex@latest",
    });
  });

  test("an invalid config.toml fails its check without stopping the others", () => {
    box = setupSandbox();
    writeText(join(box.state, "config.toml"), "auto_commit = 3\n");
    const { code, report } = doctor(LOGGED_IN);
    expect(code).toBe(1);
    const check = checkOf(report.checks, "config");
    expect(check.status).toBe("fail");
    expect(check.message).toMatch(/^invalid config .*config\.toml: /);
    expect(checkOf(report.checks, "harness.codex").status).toBe("ok");
  });

  test("settings valid one by one but odd together are a warning, as `config set` says", () => {
    box = setupSandbox();
    writeText(join(box.state, "config.toml"), '[runs]\ntimeout = "2h"\nidle_timeout = "1d"\n');
    const { code, report } = doctor(LOGGED_IN);
    expect(code).toBe(0);
    expect(checkOf(report.checks, "config")).toEqual({
      key: "config",
      status: "warn",
      message: `${join(box.state, "config.toml")} is valid, but runs.idle_timeout (24h) is longer than runs.timeout (2h), so it never fires: a silent agent is stopped by the run timeout first`,
      fix: "change one of the keys it names with `codealmanac config set`",
    });
  });

  test("inside a wiki it reports the wiki and its health; errors fail, warnings do not", () => {
    box = setupSandbox();
    const root = writeWiki(join(box.dir, "app"), {
      "lonely.md": page({ title: "Lonely", body: "A page without topics is a warning." }),
    });
    const healthy = doctor(LOGGED_IN, [], join(root, "almanac"));
    expect(checkOf(healthy.report.checks, "wiki")).toEqual({ key: "wiki", status: "ok", message: `app at ${root}` });
    const health = checkOf(healthy.report.checks, "wiki.health");
    expect(health.status).toBe("ok");
    expect(health.message).toBe("0 errors, 1 warning");

    writeText(join(root, "almanac", "broken.md"), page({ title: "Broken", topics: ["concepts"], body: "See [gone](gone.md)." }));
    const broken = doctor(LOGGED_IN, ["--wiki", "app"]);
    expect(broken.code).toBe(1);
    expect(checkOf(broken.report.checks, "wiki.health")).toMatchObject({ status: "fail", fix: "`ca validate` lists them; `ca garden` can repair them" });
    expect(checkOf(broken.report.checks, "wiki.health").message).toMatch(/^1 error, /);
  });

  test("--wiki naming no registered wiki fails the wiki check", () => {
    box = setupSandbox();
    const { code, report } = doctor(LOGGED_IN, ["--wiki", "nope"]);
    expect(code).toBe(1);
    expect(checkOf(report.checks, "wiki")).toEqual({ key: "wiki", status: "fail", message: "repository not found: nope", fix: "`ca list` shows the registered wikis" });
  });

  test("human output: one line per check with a mark, the fix under each problem, and a verdict", () => {
    box = setupSandbox();
    const result = box.run(["doctor"], { env: { FAKE_CLAUDE_LOGGED_IN: "1" } });
    expect(result.code).toBe(1);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe(`✓ node                 Node ${process.versions.node}`);
    const login = lines.findIndex((l) => l.startsWith("✗ login.codex"));
    expect(lines[login]).toBe("✗ login.codex          codex is not logged in");
    expect(lines[login + 1]).toBe("                       fix: run `codex login` or set OPENAI_API_KEY");
    expect(lines.some((l) => l.startsWith("! instructions.claude  claude is not told about the wiki"))).toBe(true);
    expect(lines.some((l) => l.startsWith(`! hooks.claude         no SessionEnd hook in ${join(box.home, ".claude", "settings.json")}`))).toBe(true);
    expect(result.stdout.endsWith("\n1 check failed, 8 warnings\n")).toBe(true);
  });
});

describe("doctor: the MCP server registrations setup makes", () => {
  const claudeJson = () => join(box.home, ".claude.json");
  const codexToml = () => join(box.home, ".codex", "config.toml");
  const setupOnly = (...flags: string[]) => expect(box.run(["setup", "--yes", "--skip-schedules", ...flags]).code).toBe(0);

  /** Points our entry in ~/.claude.json at another command, as a Node upgrade or a moved package leaves it. */
  function rewriteClaudeEntry(entry: unknown): void {
    const config = JSON.parse(readFileSync(claudeJson(), "utf8")) as { mcpServers: Record<string, unknown> };
    config.mcpServers.codealmanac = entry;
    writeText(claudeJson(), JSON.stringify(config, null, 2));
  }

  test("missing before setup is a warning with the fix; after setup both are registered", () => {
    box = setupSandbox();
    const before = doctor(LOGGED_IN);
    expect(before.code).toBe(0);
    expect(checkOf(before.report.checks, "mcp.claude")).toEqual({
      key: "mcp.claude",
      status: "warn",
      message: "the codealmanac MCP server is not registered with Claude Code: its sessions cannot call the wiki's tools",
      fix: "`ca mcp install --client claude` registers it (as `ca setup --target claude` does)",
    });
    setupOnly();
    const after = doctor(LOGGED_IN);
    expect(checkOf(after.report.checks, "mcp.claude")).toEqual({ key: "mcp.claude", status: "ok", message: `registered in ${claudeJson()}` });
    expect(checkOf(after.report.checks, "mcp.codex")).toEqual({ key: "mcp.codex", status: "ok", message: `registered in ${codexToml()}` });
  });

  test("a registration whose node no longer exists fails, with a fix that repairs it", () => {
    box = setupSandbox();
    setupOnly();
    const gone = join(box.dir, "old-node", "bin", "node");
    const registered = JSON.parse(readFileSync(claudeJson(), "utf8")) as { mcpServers: { codealmanac: { args: string[] } } };
    rewriteClaudeEntry({ type: "stdio", command: gone, args: registered.mcpServers.codealmanac.args, env: {} });
    const broken = doctor(LOGGED_IN);
    expect(broken.code).toBe(1);
    expect(checkOf(broken.report.checks, "mcp.claude")).toEqual({
      key: "mcp.claude",
      status: "fail",
      message: `the codealmanac MCP server in ${claudeJson()} is broken: it starts ${gone}, which no longer exists`,
      fix: "`ca mcp install --client claude` registers this installation's server",
    });
    const text = box.run(["doctor"], { env: LOGGED_IN });
    expect(text.stdout).toContain(`✗ mcp.claude           the codealmanac MCP server in ${claudeJson()} is broken: it starts ${gone}, which no longer exists\n`);
    expect(text.stdout).toContain("                       fix: `ca mcp install --client claude` registers this installation's server\n");

    expect(box.run(["mcp", "install", "--client", "claude"]).code).toBe(0);
    expect(checkOf(doctor(LOGGED_IN).report.checks, "mcp.claude").status).toBe("ok");
  });

  test("Codex: a script that is gone fails; a file that no longer parses says to fix it by hand first", () => {
    box = setupSandbox();
    setupOnly();
    const gone = join(box.dir, "moved", "dist", "bin.js");
    writeText(codexToml(), `[mcp_servers.codealmanac]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(gone)}, "mcp"]\n`);
    expect(checkOf(doctor(LOGGED_IN).report.checks, "mcp.codex")).toMatchObject({
      status: "fail",
      message: `the codealmanac MCP server in ${codexToml()} is broken: it starts ${gone}, which no longer exists`,
    });
    writeText(codexToml(), `[mcp_servers.codealmanac]\ncommand = = "node"\n`);
    expect(checkOf(doctor(LOGGED_IN).report.checks, "mcp.codex")).toMatchObject({
      status: "fail",
      message: expect.stringMatching(new RegExp(`^the codealmanac MCP server in ${codexToml()} is broken: it is not valid TOML \\(`)),
      fix: `fix ${codexToml()} by hand, then \`ca mcp install --client codex\``,
    });
  });

  test("an entry the agent cannot start fails; another installation's server is a warning", () => {
    box = setupSandbox();
    setupOnly();
    rewriteClaudeEntry({ type: "http", url: "http://127.0.0.1:9/mcp" });
    expect(checkOf(doctor(LOGGED_IN).report.checks, "mcp.claude")).toEqual({
      key: "mcp.claude",
      status: "fail",
      message: `the codealmanac MCP server in ${claudeJson()} is broken: its "codealmanac" entry is not a stdio command Claude Code can start`,
      fix: "`ca mcp install --client claude` replaces it",
    });
    const other = join(box.dir, "other-install", "bin.js");
    writeText(other, "");
    rewriteClaudeEntry({ type: "stdio", command: process.execPath, args: [other, "mcp"], env: {} });
    const report = doctor(LOGGED_IN);
    expect(report.code).toBe(0);
    expect(checkOf(report.report.checks, "mcp.claude")).toEqual({
      key: "mcp.claude",
      status: "warn",
      message: `registered in ${claudeJson()}, but it starts another installation: ${process.execPath} ${other} mcp`,
      fix: "`ca mcp install --client claude` points it at this one",
    });
  });

  test("what setup was told not to register never fails doctor: --no-mcp is ok, and a broken leftover only warns", () => {
    box = setupSandbox();
    setupOnly("--no-mcp");
    const declined = doctor(LOGGED_IN);
    expect(declined.code).toBe(0);
    expect(checkOf(declined.report.checks, "mcp.claude")).toEqual({
      key: "mcp.claude",
      status: "ok",
      message: "not registered, as asked (setup --no-mcp, Claude Code unticked, or `ca mcp uninstall`)",
    });
    expect(checkOf(declined.report.checks, "mcp.codex").status).toBe("ok");

    // Registered once, broken since, and declined at the last setup: a warning, exit 0.
    setupOnly();
    writeText(codexToml(), `[mcp_servers.codealmanac]\ncommand = ${JSON.stringify(join(box.dir, "gone", "node"))}\nargs = []\n`);
    expect(doctor(LOGGED_IN).code).toBe(1);
    setupOnly("--no-mcp");
    const leftover = doctor(LOGGED_IN);
    expect(leftover.code).toBe(0);
    expect(checkOf(leftover.report.checks, "mcp.codex")).toMatchObject({ status: "warn", fix: "`ca mcp install --client codex` registers this installation's server" });
  });

  test("a hand-run mcp install after --no-mcp is asked for again, and a hand-run uninstall is a decline", () => {
    box = setupSandbox();
    setupOnly("--no-mcp");
    expect(box.run(["mcp", "install", "--client", "codex"]).code).toBe(0);
    // Broken since: what the person asked for by hand fails doctor, as after setup.
    writeText(codexToml(), `[mcp_servers.codealmanac]\ncommand = ${JSON.stringify(join(box.dir, "gone", "node"))}\nargs = []\n`);
    const broken = doctor(LOGGED_IN);
    expect(checkOf(broken.report.checks, "mcp.codex").status).toBe("fail");
    expect(broken.code).toBe(1);
    // --print changes nothing, the record included.
    expect(box.run(["mcp", "uninstall", "--client", "codex", "--print"]).code).toBe(0);
    expect(checkOf(doctor(LOGGED_IN).report.checks, "mcp.codex").status).toBe("fail");
    expect(box.run(["mcp", "uninstall", "--client", "codex"]).code).toBe(0);
    expect(checkOf(doctor(LOGGED_IN).report.checks, "mcp.codex")).toEqual({
      key: "mcp.codex",
      status: "ok",
      message: "not registered, as asked (setup --no-mcp, Codex unticked, or `ca mcp uninstall`)",
    });
  });

  test("an agent that is not installed needs no registration", () => {
    box = setupSandbox({ withAgents: false });
    const { report } = doctor();
    expect(checkOf(report.checks, "mcp.claude")).toEqual({ key: "mcp.claude", status: "ok", message: "not registered; Claude Code is not installed" });
  });
});

describe("doctor: schedules", () => {
  test("after setup failed to schedule, the fix is `config apply`, never `ca setup`", () => {
    box = setupSandbox();
    // crontab is on PATH but cannot write: setup saves config.toml and fails to schedule.
    box.env.FAKE_CRONTAB_FILE = join(box.dir, "missing-dir", "crontab");
    expect(box.run(["setup", "--yes", "--no-mcp"]).code).toBe(1);
    const { report } = doctor(LOGGED_IN);
    for (const task of ["sync", "garden"]) {
      const check = checkOf(report.checks, `schedule.${task}`);
      expect(check).toEqual({
        key: `schedule.${task}`,
        status: "warn",
        message: "not scheduled, though config.toml enables it",
        fix: "`codealmanac config apply` installs it",
      });
    }
  });

  test("no scheduler at all: the fix says what is missing, then `config apply`", () => {
    box = setupSandbox({ env: { CODEALMANAC_SCHEDULER: "none" } });
    const { report } = doctor(LOGGED_IN);
    expect(checkOf(report.checks, "schedule.sync")).toEqual({
      key: "schedule.sync",
      status: "warn",
      message: "not scheduled: scheduled automation is turned off here (CODEALMANAC_SCHEDULER=none)",
      fix: "unset CODEALMANAC_SCHEDULER (none turns scheduling off); once the scheduler works, run `codealmanac config apply` to install the schedules; meanwhile run `ca sync` by hand",
    });
  });

  test("a task turned off in config.toml is ok, not a missing schedule", () => {
    box = setupSandbox();
    expect(box.run(["setup", "--yes", "--no-mcp", "--garden-off"]).code).toBe(0);
    const { report } = doctor(LOGGED_IN);
    expect(checkOf(report.checks, "schedule.garden")).toEqual({ key: "schedule.garden", status: "ok", message: "off (automation.garden.enabled = false in config.toml)" });
    expect(checkOf(report.checks, "schedule.sync").status).toBe("ok");
  });
});
