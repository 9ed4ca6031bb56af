/**
 * What `setup` and `doctor` learn about each agent CLI: is it installed (and new enough,
 * as its adapter's readiness says), is it logged in, and could it run without a login
 * because credentials are in the environment. Nothing here ever refuses: runs succeed
 * with API keys and custom providers that `login status` knows nothing of.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandResult, CommandRunner } from "../core/command.js";
import { resolveExecutable } from "../core/executables.js";
import { HARNESS_KINDS, HARNESSES, type HarnessKind } from "../harnesses/catalog.js";
import type { HarnessReadiness } from "../harnesses/types.js";
import { codexDir } from "./instruction-files.js";

export type LoginState = "logged_in" | "not_logged_in" | "unknown";

export interface HarnessProbe {
  kind: HarnessKind;
  readiness: HarnessReadiness;
  /** Null when the CLI is not installed (nothing was asked). */
  login: LoginState | null;
  /** Environment variables (or a custom provider) that let runs work without a login. */
  credentials: string[];
}

export interface ProbeDeps {
  env: NodeJS.ProcessEnv;
  run: CommandRunner;
  readiness(kind: HarnessKind): Promise<HarnessReadiness>;
}

const LOGIN_TIMEOUT_MS = 10_000;

/** How each CLI reports its stored login. */
const LOGIN_STATUS: Record<HarnessKind, { args: string[]; read: (result: CommandResult) => LoginState }> = {
  // `claude auth status` prints JSON with `loggedIn` and exits 1 when logged out.
  claude: { args: ["auth", "status"], read: (result) => jsonLogin(result.stdout) ?? fromExit(result) },
  // `codex login status` says "Not logged in" (exit 1) or names the login method (exit 0).
  codex: { args: ["login", "status"], read: fromExit },
};

const CREDENTIAL_VARIABLES: Record<HarnessKind, string[]> = {
  claude: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"],
  codex: ["OPENAI_API_KEY", "CODEX_API_KEY"],
};

export async function probeHarnesses(deps: ProbeDeps): Promise<HarnessProbe[]> {
  return Promise.all(HARNESS_KINDS.map((kind) => probeHarness(kind, deps)));
}

async function probeHarness(kind: HarnessKind, deps: ProbeDeps): Promise<HarnessProbe> {
  const readiness = await deps.readiness(kind);
  const credentials = credentialsFor(kind, deps.env);
  const executable = resolveExecutable(HARNESSES[kind].executable, deps.env);
  if (!executable) return { kind, readiness, login: null, credentials };
  return { kind, readiness, login: await loginState(kind, executable, deps), credentials };
}

async function loginState(kind: HarnessKind, executable: string, deps: ProbeDeps): Promise<LoginState> {
  const probe = LOGIN_STATUS[kind];
  const env = { ...deps.env };
  // Claude Code refuses to start inside another Claude Code session (it sees CLAUDECODE).
  delete env.CLAUDECODE;
  const result = await deps.run(executable, probe.args, { env, timeoutMs: LOGIN_TIMEOUT_MS });
  if (result.notFound || result.timedOut) return "unknown";
  return probe.read(result);
}

function jsonLogin(stdout: string): LoginState | null {
  try {
    const parsed = JSON.parse(stdout) as { loggedIn?: unknown };
    return typeof parsed.loggedIn === "boolean" ? (parsed.loggedIn ? "logged_in" : "not_logged_in") : null;
  } catch {
    return null;
  }
}

function fromExit(result: CommandResult): LoginState {
  if (/not logged in/i.test(`${result.stdout}\n${result.stderr}`)) return "not_logged_in";
  return result.code === 0 ? "logged_in" : "unknown";
}

export function credentialsFor(kind: HarnessKind, env: NodeJS.ProcessEnv): string[] {
  const variables = CREDENTIAL_VARIABLES[kind].filter((name) => (env[name] ?? "").trim() !== "");
  if (kind === "codex" && hasCustomProvider(env)) variables.push("model_provider in Codex config.toml");
  return variables;
}

/** A top-level `model_provider` line; a line check is enough to know a login is not needed. */
function hasCustomProvider(env: NodeJS.ProcessEnv): boolean {
  try {
    const text = readFileSync(join(codexDir(env), "config.toml"), "utf8");
    const topLevel = text.split(/\r?\n\s*\[/)[0] ?? "";
    return /^\s*model_provider\s*=/m.test(topLevel);
  } catch {
    return false;
  }
}
