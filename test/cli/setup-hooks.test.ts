/**
 * The SessionEnd hooks `setup` installs into the agents' own settings, with a temporary
 * HOME: merged into what the files already hold, idempotent, updated when they run
 * another installation, removed exactly by `uninstall`, and reported by `doctor`.
 */
import { afterEach, describe, expect, test } from "vitest";
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../support/cli.js";
import { hookCommand } from "../../src/setup/agent-hooks.js";
import { readText, setupSandbox, writeText, type CheckJson, type SetupSandbox } from "../setup/support.js";

let box: SetupSandbox;
afterEach(() => box?.cleanup());

const OURS = hookCommand(process.execPath, realpathSync(BIN));
const claudeSettings = () => join(box.home, ".claude", "settings.json");
const codexHooks = () => join(box.home, ".codex", "hooks.json");
const json = (path: string) => JSON.parse(readText(path)!) as Record<string, unknown>;
const setup = (...args: string[]) => box.run(["setup", "--yes", "--skip-schedules", "--no-mcp", ...args]);
const ourEntry = { hooks: [{ type: "command", command: OURS }] };

/** A settings file a person already has: other settings, other events, another SessionEnd hook. */
const THEIRS = {
  model: "opus",
  permissions: { allow: ["Bash(npm test)"] },
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "audit-bash" }] }],
    SessionEnd: [{ matcher: "clear", hooks: [{ type: "command", command: "notify-me", timeout: 5 }] }],
  },
};

describe("setup: the SessionEnd hooks", () => {
  test("installs one for each agent into a fresh HOME, and a second run changes nothing", () => {
    box = setupSandbox();
    const first = setup();
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`claude SessionEnd hook: installed in ${claudeSettings()}\n`);
    expect(first.stdout).toContain(`codex SessionEnd hook: installed in ${codexHooks()} (Codex runs it once you trust it: /hooks in Codex)\n`);
    expect(json(claudeSettings())).toEqual({ hooks: { SessionEnd: [ourEntry] } });
    expect(json(codexHooks())).toEqual({ hooks: { SessionEnd: [ourEntry] } });
    const before = [readText(claudeSettings()), readText(codexHooks())];
    const second = setup();
    expect(second.stdout).toContain(`claude SessionEnd hook: already installed in ${claudeSettings()}\n`);
    expect([readText(claudeSettings()), readText(codexHooks())]).toEqual(before);
  });

  test("merges into the settings a person has without disturbing them, and uninstall gives them back exactly", () => {
    box = setupSandbox();
    writeText(claudeSettings(), JSON.stringify(THEIRS, null, 2) + "\n");
    expect(setup("--json").json<{ hooks: unknown[] }>().hooks).toEqual([
      { target: "claude", path: claudeSettings(), status: "installed" },
      { target: "codex", path: codexHooks(), status: "installed" },
    ]);
    expect(json(claudeSettings())).toEqual({ ...THEIRS, hooks: { ...THEIRS.hooks, SessionEnd: [...THEIRS.hooks.SessionEnd, ourEntry] } });

    const removed = box.run(["uninstall", "--yes", "--json"]).json<{ removed: { hooks: unknown[] } }>();
    expect(removed.removed.hooks).toEqual([
      { target: "claude", path: claudeSettings(), deleted: false },
      { target: "codex", path: codexHooks(), deleted: true },
    ]);
    // Their SessionEnd list and hooks object stay (setup did not create them); Codex's file was ours alone.
    expect(json(claudeSettings())).toEqual(THEIRS);
    expect(existsSync(codexHooks())).toBe(false);
  });

  test("a list or object setup created goes with our hook; one the person had stays, even empty", () => {
    box = setupSandbox();
    writeText(claudeSettings(), JSON.stringify({ model: "opus" }));
    writeText(codexHooks(), JSON.stringify({ hooks: { SessionEnd: [] } }));
    setup();
    expect(box.run(["uninstall", "--yes"]).code).toBe(0);
    expect(json(claudeSettings())).toEqual({ model: "opus" });
    expect(json(codexHooks())).toEqual({ hooks: { SessionEnd: [] } });
  });

  test("a hook of another installation (the CLI moved) is updated in place, not doubled", () => {
    box = setupSandbox();
    const old = "'/opt/old-node/bin/node' '/opt/old/codealmanac/dist/bin.js' hook session-end";
    writeText(claudeSettings(), JSON.stringify({ hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "notify-me" }, { type: "command", command: old }] }] } }));
    const doctorBefore = box.run(["doctor", "--json"]).json<{ checks: CheckJson[] }>().checks.find((c) => c.key === "hooks.claude");
    expect(doctorBefore).toEqual({
      key: "hooks.claude",
      status: "warn",
      message: `the SessionEnd hook in ${claudeSettings()} is not this installation's (it runs ${old})`,
      fix: "ca setup --target claude updates it",
    });
    expect(setup("--target", "claude").stdout).toContain(`claude SessionEnd hook: updated in ${claudeSettings()}\n`);
    expect(json(claudeSettings())).toEqual({ hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "notify-me" }, { type: "command", command: OURS }] }] } });
    expect(box.run(["doctor", "--json"]).json<{ checks: CheckJson[] }>().checks.find((c) => c.key === "hooks.claude")?.status).toBe("ok");
    // Uninstall takes only our hook out of the shared group.
    box.run(["uninstall", "--yes"]);
    expect(json(claudeSettings())).toEqual({ hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "notify-me" }] }] } });
  });

  test("--skip-hooks leaves the agents' settings alone; CLAUDE_CONFIG_DIR and CODEX_HOME are followed", () => {
    box = setupSandbox();
    expect(setup("--skip-hooks").stdout).not.toContain("SessionEnd");
    expect(existsSync(claudeSettings())).toBe(false);
    expect(existsSync(codexHooks())).toBe(false);
    const claudeDir = join(box.dir, "claude-config");
    const codexDir = join(box.dir, "codex-home");
    expect(box.run(["setup", "--yes", "--skip-schedules", "--no-mcp"], { env: { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexDir } }).code).toBe(0);
    expect(json(join(claudeDir, "settings.json"))).toEqual({ hooks: { SessionEnd: [ourEntry] } });
    expect(json(join(codexDir, "hooks.json"))).toEqual({ hooks: { SessionEnd: [ourEntry] } });
    expect(existsSync(claudeSettings())).toBe(false);
  });

  test("a settings file that is not JSON is a warning with a fix, left as it was; the rest of setup is done", () => {
    box = setupSandbox();
    writeText(claudeSettings(), "{ not json");
    const result = setup();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`warning: could not install the SessionEnd hook for Claude Code: ${claudeSettings()} is not valid JSON`);
    expect(result.stderr).toContain("fix: sessions are still synced on schedule; after fixing it, `ca setup` installs the hook");
    expect(readText(claudeSettings())).toBe("{ not json");
    expect(result.stdout).toContain(`codex SessionEnd hook: installed in ${codexHooks()}`);
    expect(readText(box.claudeMd)).not.toBeNull();
  });
});
