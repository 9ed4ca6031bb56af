import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { claudeArgs } from "../../src/harnesses/claude/adapter.js";
import { codexArgs } from "../../src/harnesses/codex/adapter.js";
import { AGENT_EXECUTABLE, AGENT_SUBCOMMANDS, agentEnvironment, prepareAgentTools, removeAgentTools, type AgentTools } from "../../src/lifecycle/agent-tools.js";
import { renderPrompt } from "../../src/lifecycle/prompts.js";
import type { RunRecord } from "../../src/runs/model.js";
import type { RunSpec } from "../../src/runs/spec.js";
import { BIN, writeWiki } from "../support/cli.js";

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-agent-tools-")));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `codealmanac …` the way the agent's shell would: through PATH, in `cwd`. */
function agentShell(tools: AgentTools, command: string, cwd: string, env: NodeJS.ProcessEnv) {
  const result = spawnSync("/bin/sh", ["-c", command], { cwd, env: agentEnvironment(env, tools), encoding: "utf8" });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

describe("the agent's codealmanac shim", () => {
  test("runs this installation's CLI with a state root of its own, and refuses every other subcommand", () => {
    // A run folder whose path needs quoting in a shell script.
    const tools = prepareAgentTools(join(dir, "state root's runs", "run 1", "agent"), { node: process.execPath, script: BIN });
    const root = writeWiki(join(dir, "repo"), {});
    const userState = join(dir, "user-state");
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: join(dir, "home"), CODEALMANAC_HOME: userState, PATH: "/usr/bin:/bin" };

    expect(agentShell(tools, `command -v ${AGENT_EXECUTABLE}`, root, env).out.trim()).toBe(join(tools.binDir, AGENT_EXECUTABLE));
    const validate = agentShell(tools, "codealmanac validate", root, env);
    expect(validate).toMatchObject({ code: 0 });
    expect(validate.out).toContain("validate: ok");
    expect(agentShell(tools, "codealmanac show README --lead", root, env)).toMatchObject({ code: 0 });
    expect(agentShell(tools, "codealmanac search welcome --slugs", root, env).code).toBe(0);

    for (const refused of ["codealmanac ingest notes.md", "codealmanac garden", "codealmanac jobs cancel x", "codealmanac config set auto_commit false", "codealmanac"]) {
      expect(agentShell(tools, refused, root, env)).toEqual({
        code: 2,
        out: "codealmanac: during a run only codealmanac validate, codealmanac search, codealmanac show are available\n",
      });
    }
    // Also when the user's state root is the default one (no CODEALMANAC_HOME in the environment).
    const { CODEALMANAC_HOME: _unset, ...defaultEnv } = env;
    expect(agentShell(tools, "codealmanac validate", root, defaultEnv).code).toBe(0);
    // Everything the CLI wrote is in the run's folder: the user's state root was never created.
    expect(existsSync(userState)).toBe(false);
    expect(existsSync(join(dir, "home", ".codealmanac"))).toBe(false);
    expect(readdirSync(join(tools.folder, "state"))).toContain("codealmanac.db");
    expect(tools.commands).toEqual({
      executable: "codealmanac",
      subcommands: ["validate", "search", "show"],
      writableRoots: [join(tools.folder, "state"), join(tools.folder, "tmp")],
    });

    removeAgentTools(tools);
    expect(existsSync(tools.folder)).toBe(false);
  });

  test("the shim goes first on PATH, the rest of the environment is untouched", () => {
    const tools = prepareAgentTools(join(dir, "agent"), { node: process.execPath, script: BIN });
    const env = agentEnvironment({ PATH: `/usr/local/bin${delimiter}/usr/bin`, OTHER: "kept" }, tools);
    expect(env).toEqual({ PATH: `${tools.binDir}${delimiter}/usr/local/bin${delimiter}/usr/bin`, OTHER: "kept" });
    expect(agentEnvironment({}, tools).PATH).toBe(tools.binDir);
  });
});

describe("every command the prompt names is one the agent's harness permits", () => {
  const record = { runId: "garden-1", repositoryName: "repo", repositoryRoot: "/repo" } as RunRecord;
  const spec = (kind: RunSpec["kind"], autoCommit: boolean) =>
    ({ version: 1, kind, harness: "claude", model: "m", inputs: kind === "ingest" ? ["notes.md"] : [], sources: [], title: null, guidance: null, auto_commit: autoCommit }) as RunSpec;
  const stalePage = { slug: "concepts/a", file: "almanac/concepts/a.md", verified_at: null, stale: [], moved: [], text: "", totalChars: 0, truncated: false };
  const prompts = [
    ...(["build", "ingest", "garden"] as const).flatMap((kind) => [true, false].map((on) => renderPrompt(record, spec(kind, on), "/repo/almanac"))),
    // garden --stale: its own instructions.
    ...[true, false].map((on) => renderPrompt(record, { ...spec("garden", on), stale_pages: ["concepts/a"] }, "/repo/almanac", { stale: { pages: [stalePage], noLongerStale: [] } })),
  ];
  const tools = { commands: { executable: AGENT_EXECUTABLE, subcommands: AGENT_SUBCOMMANDS, writableRoots: ["/state/runs/r/agent/state", "/state/runs/r/agent/tmp"] } };

  test("the codealmanac commands: all of them, and only them, pass Claude's Bash rules", () => {
    const named = new Set(prompts.flatMap((prompt) => [...prompt.matchAll(/`codealmanac ([a-z-]+)/g)].map((m) => m[1]!)));
    expect([...named].sort()).toEqual([...AGENT_SUBCOMMANDS].sort());
    const args = claudeArgs("m", "s", "2.1.332", tools.commands);
    const rules = args[args.indexOf("--allowedTools") + 1]!.split(",");
    for (const sub of named) expect(rules).toContain(`Bash(codealmanac ${sub}:*)`);
    // An old Claude Code gets them too (its rules differ only for writes).
    const old = claudeArgs("m", "s", "2.1.100", tools.commands);
    for (const sub of named) expect(old[old.indexOf("--allowedTools") + 1]!.split(",")).toContain(`Bash(codealmanac ${sub}:*)`);
  });

  test("Codex's sandbox lets the commands write their state root, and its shell keeps the run's PATH", () => {
    const args = codexArgs({ cwd: "/repo", model: "m", version: "0.171.0", commands: tools.commands }, "prompt");
    expect(args).toContain(`sandbox_workspace_write.writable_roots=${JSON.stringify(tools.commands.writableRoots)}`);
    // A login shell would read /etc/profile, which resets PATH and loses the run's codealmanac.
    expect(args).toContain("allow_login_shell=false");
  });

  test("no prompt offers git writes: the product commits", () => {
    for (const prompt of prompts) {
      expect(prompt).not.toMatch(/you may commit|git (add|commit|push|stage)|ordinary git/i);
      expect(prompt).toMatch(/never stage or commit/i);
    }
    expect(prompts[0]).toContain("CodeAlmanac commits the files you changed under almanac/ itself");
    expect(prompts[1]).toContain("stay in the working tree for the user to review");
  });

  test("every prompt asks for cited lines, and leaves the stamp to the product", () => {
    for (const prompt of prompts) {
      expect(prompt).toContain("For a material claim about code (a behaviour, a default, an order, a failure mode), cite the lines that show it: add `lines: 40-88`");
      expect(prompt).toContain("After the run CodeAlmanac stamps each file source with `fingerprint` and `verified_at`");
      expect(prompt).toContain("never write or edit those two keys");
    }
    const [build, , ingest, , garden] = prompts;
    expect(build).toContain("Cite the lines of code that show each material claim.");
    expect(ingest).toContain("verify important claims against the code and cite the lines that show them");
    expect(garden).toContain("point its source's `lines` at where the code now shows it");
  });
});
