import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { scheduledCommand, scheduledPath } from "../../src/automation/scheduled-command.js";
import { statePaths } from "../../src/core/paths.js";

let dir: string;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "ca-scheduled-command-")));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function executable(path: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "#!/bin/sh\n");
  chmodSync(path, 0o755);
  return path;
}

describe("the scheduled command", () => {
  test("starts node on the real path of the CLI script, not the npm bin symlink", () => {
    const script = join(dir, "lib", "node_modules", "codealmanac", "dist", "bin.js");
    mkdirSync(join(script, ".."), { recursive: true });
    writeFileSync(script, "");
    symlinkSync(script, join(dir, "ca"));
    const env = { HOME: join(dir, "home"), PATH: "/usr/bin" };
    const command = scheduledCommand({ env, paths: statePaths(env), cliPath: join(dir, "ca"), nodePath: "/opt/node/bin/node" }, "garden");
    expect(command.argv).toEqual(["/opt/node/bin/node", script, "__scheduled", "garden"]);
    expect(command.logPath).toBe(join(dir, "home", ".codealmanac", "logs", "automation", "garden.log"));
  });

  test("PATH keeps the current entries, adds where node and the agent CLIs live and the usual folders, once each", () => {
    const agents = join(dir, "agents");
    executable(join(agents, "claude"));
    executable(join(dir, "other", "codex"));
    const env = { HOME: "/home/u", PATH: `/usr/bin:relative/bin::${agents}:/usr/bin:${join(dir, "other")}` };
    expect(scheduledPath(env, "/opt/node/bin/node").split(":")).toEqual([
      "/usr/bin",
      agents,
      join(dir, "other"),
      "/opt/node/bin",
      "/home/u/.local/bin",
      "/usr/local/bin",
      "/opt/homebrew/bin",
      "/bin",
    ]);
  });

  test("carries the state root and the agents' config folders as absolute paths, only when set", () => {
    const env = { HOME: "/home/u", PATH: "/usr/bin", CODEALMANAC_HOME: "~/state", CODEX_HOME: "/c/codex", CLAUDE_CONFIG_DIR: " ", SECRET_TOKEN: "x" };
    const command = scheduledCommand({ env, paths: statePaths(env), cliPath: "/opt/ca/bin.js", nodePath: "/usr/bin/node" }, "sync");
    expect(command.env.map(([name]) => name)).toEqual(["PATH", "CODEALMANAC_HOME", "CODEX_HOME"]);
    expect(Object.fromEntries(command.env).CODEALMANAC_HOME).toBe("/home/u/state");
    expect(Object.fromEntries(command.env).CODEX_HOME).toBe("/c/codex");
    const bare = scheduledCommand({ env: { HOME: "/home/u", PATH: "" }, paths: statePaths({ HOME: "/home/u" }), cliPath: "/x.js", nodePath: "/n" }, "sync");
    expect(bare.env.map(([name]) => name)).toEqual(["PATH"]);
  });
});
