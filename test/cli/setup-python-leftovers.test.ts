import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { managedBlock } from "../../src/setup/instruction-block.js";
import { checkOf, readText, setupSandbox, writeText, type CheckJson, type SetupSandbox } from "../setup/support.js";
import { HAS_SCRIPT, onTerminal } from "../setup/terminal.js";
import { writePythonLedger } from "../setup/python-ledger.js";

/**
 * What the Python CodeAlmanac 0.4 installed besides its database: its setup flags still
 * work with ours, `setup` removes (with --yes) or asks about what it left behind, and
 * `doctor` reports it, never touching what is ours or the user's.
 */
let box: SetupSandbox;
afterEach(() => box?.cleanup());

const FLAGS = ["--no-mcp", "--skip-hooks", "--skip-schedules"];
const USER_TEXT = "# My own rules\n\nAlways run the tests.\n";

interface Leftovers {
  plist: string;
  guide: string;
}

/** Its update job, its guide, and its import line appended to the user's CLAUDE.md (where ours may sit too). */
function pythonLeftovers(claudeMd: string): Leftovers {
  const plist = join(box.home, "Library", "LaunchAgents", "com.codealmanac.update.plist");
  const guide = join(box.home, ".claude", "codealmanac.md");
  writeText(plist, '<?xml version="1.0"?>\n<plist version="1.0"><dict><key>Label</key><string>com.codealmanac.update</string></dict></plist>\n');
  writeText(guide, "# CodeAlmanac\n\nUse `codealmanac search` before editing code.\n");
  writeText(box.claudeMd, claudeMd);
  return { plist, guide };
}

function doctorChecks(): CheckJson[] {
  return box.run(["doctor", "--json"]).json<{ checks: CheckJson[] }>().checks;
}

describe("the Python CodeAlmanac's setup flags", () => {
  test("--runner picks the agent as --using does, and is checked the same way", () => {
    box = setupSandbox();
    const result = box.run(["setup", "--yes", "--runner", "claude", ...FLAGS, "--json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json<{ config: { harness_default: string } }>().config.harness_default).toBe("claude");
    expect(readText(join(box.state, "config.toml"))).toContain('[harness]\ndefault = "claude"');

    const bad = box.run(["setup", "--yes", "--runner", "gemini"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("option '--runner <harness>' argument 'gemini' is invalid. Allowed choices are claude, codex.");
    const both = box.run(["setup", "--yes", "--runner", "claude", "--using", "codex"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("option '--runner <harness>' cannot be used with option '--using <harness>'");
  });

  test("--no-telemetry and --no-auto-update are accepted, each with one line saying it changes nothing", () => {
    box = setupSandbox();
    const result = box.run(["setup", "--yes", "--no-telemetry", "--no-auto-update", ...FLAGS]);
    expect(result.code, result.stderr).toBe(0);
    const notes = result.stderr.split("\n").filter((line) => line.startsWith("codealmanac: --no-"));
    expect(notes).toEqual([
      "codealmanac: --no-telemetry changes nothing: this CodeAlmanac sends no telemetry",
      "codealmanac: --no-auto-update changes nothing: this CodeAlmanac never updates itself (update it with npm)",
    ]);
    expect(box.run(["setup", "--help"]).stdout).not.toMatch(/--runner|--no-telemetry|--no-auto-update/);
  });
});

describe("what the Python CodeAlmanac left installed", () => {
  test("doctor reports it as legacy.python with a fix; setup --yes removes exactly it, keeping the user's text and our block", () => {
    box = setupSandbox();
    // Ours first (a previous setup of ours), then the user's text, then its import line.
    const before = `${managedBlock()}\n\n${USER_TEXT}\n@~/.claude/codealmanac.md\n`;
    const { plist, guide } = pythonLeftovers(before);
    const found = checkOf(doctorChecks(), "legacy.python");
    expect(found.status).toBe("warn");
    expect(found.message).toBe(
      `the Python CodeAlmanac left its launchd update job (${plist}), its Claude Code guide (${guide}), its import line in ${box.claudeMd}`,
    );
    expect(found.fix).toBe("`ca setup` offers to remove them; `ca setup --yes` removes them");

    const setup = box.run(["setup", "--yes", ...FLAGS]);
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toContain(`Python CodeAlmanac leftover: removed its launchd update job ${plist}`);
    expect(setup.stdout).toContain(`Python CodeAlmanac leftover: removed its @~/.claude/codealmanac.md line from ${box.claudeMd}`);
    expect(existsSync(plist)).toBe(false);
    expect(existsSync(guide)).toBe(false);
    expect(readText(box.claudeMd)).toBe(`${managedBlock()}\n\n${USER_TEXT}`);
    expect(doctorChecks().some((c) => c.key === "legacy.python")).toBe(false);
  });

  test("a CLAUDE.md that held only the import line is deleted with it; ours is then written as on a fresh machine", () => {
    box = setupSandbox();
    pythonLeftovers("@~/.claude/codealmanac.md\n");
    expect(box.run(["setup", "--yes", "--target", "codex", ...FLAGS]).code).toBe(0);
    expect(existsSync(box.claudeMd)).toBe(false);
    expect(box.run(["setup", "--yes", ...FLAGS]).code).toBe(0);
    expect(readText(box.claudeMd)).toBe(`${managedBlock()}\n`);
  });

  test("without --yes and without a terminal, setup removes nothing and warns, naming the way to remove it", () => {
    box = setupSandbox();
    const before = `${USER_TEXT}\n@~/.claude/codealmanac.md\n`;
    const { plist, guide } = pythonLeftovers(before);
    const setup = box.run(["setup", "--skip-instructions", ...FLAGS]);
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stderr).toContain(`warning: the Python CodeAlmanac left its launchd update job (${plist}), its Claude Code guide (${guide}), its import line in ${box.claudeMd}`);
    expect(setup.stderr).toContain("fix: `ca setup --yes` removes them");
    expect([existsSync(plist), existsSync(guide), readText(box.claudeMd)]).toEqual([true, true, before]);
  });

  test("doctor, once the database was moved aside and nothing else is left, says where the old database is kept", () => {
    box = setupSandbox();
    writePythonLedger(join(box.state, "codealmanac.db"), [], []).close();
    const checks = doctorChecks();
    expect(checkOf(checks, "legacy.python")).toEqual({
      key: "legacy.python",
      status: "ok",
      message: `nothing of the Python CodeAlmanac is left installed; its database is kept at ${join(box.state, "codealmanac.python-0.4.db")} (delete it once you no longer need its job history)`,
    });
  });
});

describe.skipIf(!HAS_SCRIPT)("on a terminal", () => {
  const ASKED = "The Python CodeAlmanac left";
  const flags = ["setup", "--using", "codex", "--target", "claude", "--no-auto-commit", "--skip-schedules", "--no-mcp", "--skip-hooks"];

  test("setup asks before removing what it left, and a no keeps it all", async () => {
    box = setupSandbox();
    const { plist, guide } = pythonLeftovers(`${USER_TEXT}\n@~/.claude/codealmanac.md\n`);
    const result = await onTerminal(flags, box.env, [{ expect: ASKED, keys: "n" }]);
    expect(result.code, result.output).toBe(0);
    expect([existsSync(plist), existsSync(guide)]).toEqual([true, true]);
    expect(readText(box.claudeMd)).toContain("@~/.claude/codealmanac.md");
  });

  test("setup asks before removing what it left, and a yes removes it", async () => {
    box = setupSandbox();
    const { plist, guide } = pythonLeftovers(`${USER_TEXT}\n@~/.claude/codealmanac.md\n`);
    const result = await onTerminal(flags, box.env, [{ expect: ASKED, keys: "y" }]);
    expect(result.code, result.output).toBe(0);
    expect([existsSync(plist), existsSync(guide)]).toEqual([false, false]);
    expect(readText(box.claudeMd)).toBe(`${USER_TEXT}\n${managedBlock()}\n`);
  });
});
