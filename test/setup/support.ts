import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { FAKE_BIN, ROOT, sandbox, type Sandbox } from "../support/cli.js";

/** The fake `crontab` (over $FAKE_CRONTAB_FILE), so no test ever reads or writes the real one. */
export const CRONTAB_BIN = join(ROOT, "test", "setup", "fixtures", "bin");

/**
 * Variables of the developer's machine that would change what setup and doctor see:
 * credentials, agent config folders, fake logins, a nested Claude Code session.
 */
const NEUTRAL: NodeJS.ProcessEnv = {
  ANTHROPIC_API_KEY: "",
  ANTHROPIC_AUTH_TOKEN: "",
  ANTHROPIC_BASE_URL: "",
  CLAUDE_CODE_USE_BEDROCK: "",
  CLAUDE_CODE_USE_VERTEX: "",
  OPENAI_API_KEY: "",
  CODEX_API_KEY: "",
  CLAUDE_CONFIG_DIR: "",
  CODEX_HOME: "",
  FAKE_CLAUDE_LOGGED_IN: "",
  FAKE_CODEX_LOGGED_IN: "",
  CLAUDECODE: "",
};

export interface SetupSandbox extends Sandbox {
  /** The file the fake crontab keeps. */
  crontab: string;
  claudeMd: string;
  agentsMd: string;
  agentsOverride: string;
}

/**
 * A sandbox whose scheduler is cron through the fake `crontab`, with the fake agent CLIs
 * on PATH unless `withAgents` is false (then PATH holds only the fake crontab and node).
 */
export function setupSandbox(options: { withAgents?: boolean; env?: NodeJS.ProcessEnv } = {}): SetupSandbox {
  const withAgents = options.withAgents ?? true;
  const box = sandbox({ ...NEUTRAL, CODEALMANAC_SCHEDULER: "cron", ...options.env });
  box.env.PATH = withAgents ? `${CRONTAB_BIN}:${FAKE_BIN}:${process.env.PATH ?? ""}` : `${CRONTAB_BIN}:${nodeOnly(box.dir)}`;
  const crontab = join(box.dir, "crontab");
  box.env.FAKE_CRONTAB_FILE = crontab;
  return {
    ...box,
    crontab,
    claudeMd: join(box.home, ".claude", "CLAUDE.md"),
    agentsMd: join(box.home, ".codex", "AGENTS.md"),
    agentsOverride: join(box.home, ".codex", "AGENTS.override.md"),
  };
}

/** A folder holding only `node`, for the fake crontab's `#!/usr/bin/env node` on a bare PATH. */
function nodeOnly(dir: string): string {
  const bin = join(dir, "node-bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(process.execPath, join(bin, "node"));
  return bin;
}

export function writeText(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export function readText(path: string): string | null {
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

/** The lines of our managed crontab block (between its markers), or [] when there is none. */
export function cronLines(box: SetupSandbox): string[] {
  const text = readText(box.crontab);
  return text === null ? [] : text.split("\n").filter((line) => line.includes("__scheduled"));
}

export interface CheckJson {
  key: string;
  status: "ok" | "warn" | "fail";
  message: string;
  fix?: string;
}

export function checkOf(checks: CheckJson[], key: string): CheckJson {
  const found = checks.find((c) => c.key === key);
  if (!found) throw new Error(`no check ${key} in ${checks.map((c) => c.key).join(", ")}`);
  return found;
}
