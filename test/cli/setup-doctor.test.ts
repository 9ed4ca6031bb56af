import { afterEach, describe, expect, test } from "vitest";
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
    expect(checkOf(loggedOut.report.checks, "login.claude")).toMatchObject({ status: "warn", message: "claude is not logged in" });

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
    expect(result.stdout.endsWith("\n1 check failed, 6 warnings\n")).toBe(true);
  });
});
