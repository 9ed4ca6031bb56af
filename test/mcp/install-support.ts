/**
 * Shared pieces of the `ca mcp install|uninstall` tests: the fake `claude`, which does what
 * `claude mcp add|remove` 2.1.332 does to its files, with every `mcp` call logged, and the
 * server command the built CLI registers.
 */
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { BIN, FAKE_BIN } from "../support/cli.js";

/** What `ca` (dist/bin.js run by this node) registers: `<node> <realpath of dist/bin.js> mcp`. */
export const SERVER = { command: process.execPath, args: [realpathSync(BIN), "mcp"] };

export interface ClaudeCall {
  argv: string[];
  cwd: string;
  /** CLAUDECODE as the call saw it: Claude Code refuses some commands inside a session that sets it. */
  claudecode: string | null;
}

/**
 * The shared fake `claude` (test/fixtures/bin; its `mcp add|remove|list|get` edit
 * `.claude.json` in $CLAUDE_CONFIG_DIR, else $HOME, and `.mcp.json` in its working
 * directory as the real CLI does) with its `mcp` calls logged to a file in `dir`: returns
 * the folder to put first on PATH, the log (for FAKE_CLAUDE_MCP_LOG) and its calls.
 * FAKE_CLAUDE_MCP_FAIL makes every `mcp` call fail with that text on stderr.
 */
export function fakeClaude(dir: string): { bin: string; log: string; calls(): ClaudeCall[] } {
  const log = join(dir, "claude-calls.jsonl");
  return {
    bin: FAKE_BIN,
    log,
    calls: () => {
      try {
        return readFileSync(log, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as ClaudeCall);
      } catch {
        return [];
      }
    },
  };
}
