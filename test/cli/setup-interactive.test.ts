import { afterEach, describe, expect, test } from "vitest";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { managedBlock } from "../../src/setup/instruction-block.js";
import { cronLines, readText, setupSandbox, type SetupSandbox } from "../setup/support.js";
import { HAS_SCRIPT, onTerminal } from "../setup/terminal.js";

let box: SetupSandbox;
afterEach(() => box?.cleanup());

const ENTER = "\r";
const DOWN = "\x1b[B";
const SPACE = " ";

describe.skipIf(!HAS_SCRIPT)("on a terminal", () => {
  test("setup asks what no flag settled, starting from the defaults, and does what was answered", async () => {
    box = setupSandbox({ env: { FAKE_CLAUDE_LOGGED_IN: "1" } });
    const result = await onTerminal(["setup"], box.env, [
      // Options: Claude Code, Codex, decide at each run (the default).
      { expect: "Which agent should run ingest, garden and sync?", keys: DOWN + ENTER },
      // Both are ticked; untick Codex.
      { expect: "Tell which agents about the wiki?", keys: DOWN + SPACE + ENTER },
      { expect: "Let runs commit their wiki changes?", keys: "n" },
      { expect: "Sync recent agent sessions into the wikis on a schedule?", keys: DOWN + ENTER },
      { expect: "How often should sync run?", keys: "2h" + ENTER },
      { expect: "Garden the wikis on a schedule?", keys: DOWN + DOWN + ENTER },
    ]);
    expect(result.code).toBe(0);
    expect(result.output).toContain("settings: agent claude, auto-commit off, sync every 2h, garden off");
    expect(readText(box.claudeMd)).toBe(`${managedBlock()}\n`);
    expect(existsSync(box.agentsMd)).toBe(false);
    const config = readText(join(box.state, "config.toml"))!;
    expect(config).toContain('[harness]\ndefault = "claude"');
    expect(config).toContain("auto_commit = false");
    expect(config).toContain('[automation.sync]\nenabled = true\nevery = "2h"');
    expect(config).toContain("[automation.garden]\nenabled = false");
    const lines = cronLines(box);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("__scheduled sync --every 2h");
  });

  test("says what it is checking before the agent checks finish, and what they found before the first question", async () => {
    box = setupSandbox({ env: { FAKE_CLAUDE_LOGGED_IN: "1" } });
    // `claude auth status` answers only once the screen has said that setup is checking.
    const release = join(box.dir, "auth-release");
    const env = { ...box.env, FAKE_CLAUDE_AUTH_RELEASE_FILE: release };
    const result = await onTerminal(["setup", "--skip-schedules"], env, [
      { expect: "Checking Claude Code and Codex (installed, version, login)…", keys: "", then: () => writeFileSync(release, "") },
      { expect: "Which agent should run ingest, garden and sync?", keys: "\x03" },
    ]);
    expect(result.code).toBe(130);
    const title = result.output.indexOf("codealmanac setup");
    const checking = result.output.indexOf("Checking Claude Code and Codex");
    const found = result.output.indexOf("Claude Code: installed, logged in");
    const question = result.output.indexOf("Which agent should run");
    expect(title).toBeGreaterThanOrEqual(0);
    expect(title).toBeLessThan(checking);
    expect(checking).toBeLessThan(found);
    expect(result.output.indexOf("Codex: installed, not logged in")).toBeGreaterThan(checking);
    expect(found).toBeLessThan(question);
  });

  test("flags skip their questions", async () => {
    box = setupSandbox({ env: { FAKE_CLAUDE_LOGGED_IN: "1" } });
    const result = await onTerminal(["setup", "--using", "codex", "--target", "claude", "--no-auto-commit", "--skip-schedules"], box.env, []);
    expect(result.code).toBe(0);
    expect(result.output).not.toContain("Which agent");
    expect(result.output).not.toContain("on a schedule?");
    expect(result.output).toContain("settings: agent codex, auto-commit off");
  });

  test("Ctrl-C cancels setup before anything is written", async () => {
    box = setupSandbox();
    const result = await onTerminal(["setup"], box.env, [{ expect: "Which agent should run", keys: "\x03" }]);
    expect(result.code).toBe(130);
    expect(result.output).toContain("setup cancelled; nothing was changed");
    expect(existsSync(box.claudeMd)).toBe(false);
    expect(existsSync(join(box.state, "config.toml"))).toBe(false);
  });

  test("uninstall asks before removing, and a no removes nothing", async () => {
    box = setupSandbox({ env: { CODEALMANAC_NO_COMPILE_CACHE: "1" } });
    expect(box.run(["setup", "--yes", "--skip-schedules"]).code).toBe(0);
    const declined = await onTerminal(["uninstall"], box.env, [{ expect: "Remove the codealmanac block in", keys: "n" }]);
    expect(declined.code).toBe(1);
    expect(declined.output).toContain("uninstall cancelled; nothing was removed");
    expect(readText(box.claudeMd)).toBe(`${managedBlock()}\n`);

    const accepted = await onTerminal(["uninstall"], box.env, [{ expect: "Remove the codealmanac block in", keys: "y" }]);
    expect(accepted.code).toBe(0);
    expect(accepted.output).toContain(`deleted ${box.state}`);
    expect(existsSync(box.claudeMd)).toBe(false);
    expect(existsSync(box.state)).toBe(false);
  });
});
