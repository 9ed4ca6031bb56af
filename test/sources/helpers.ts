import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import { isProductError } from "../../src/core/errors.js";
import { runCommand } from "../../src/core/exec.js";
import type { SourceLimits } from "../../src/sources/context.js";
import { SourcesService } from "../../src/sources/service.js";

export const FAKE_BIN = fileURLToPath(new URL("../fixtures/bin", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../fixtures/sources", import.meta.url));

/** A temporary folder (symlinks resolved), removed when the test ends. */
export function tempDir(prefix = "ca-sources-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The environment the service gets: the fake gh first on PATH, a temporary HOME and agent
 * homes, and nothing inherited that would change git's or gh's answers.
 */
export function testEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith("FAKE_GH_") || key.startsWith("GIT_") || key === "GH_TOKEN" || key === "GITHUB_TOKEN") delete env[key];
  }
  return {
    ...env,
    PATH: `${FAKE_BIN}${delimiter}${process.env.PATH ?? ""}`,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CODEX_HOME: join(home, ".codex"),
    GIT_CONFIG_NOSYSTEM: "1",
    ...extra,
  };
}

export function makeService(env: NodeJS.ProcessEnv, limits: Partial<SourceLimits> = {}, fetch?: typeof globalThis.fetch): SourcesService {
  return new SourcesService({ run: runCommand, env, limits, ...(fetch ? { fetch } : {}) });
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: { ...process.env, ...GIT_IDENTITY, HOME: cwd }, encoding: "utf8" }).trim();
}

export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A git repository with the given files committed on `main`. */
export function gitRepo(files: Record<string, string | Buffer> = { "README.md": "# Demo\n" }, parent = tempDir()): string {
  const repo = join(parent, "repo");
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFiles(repo, files);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "initial");
  return repo;
}

export function commit(repo: string, files: Record<string, string | Buffer>, message: string): string {
  writeFiles(repo, files);
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", message);
  return git(repo, "rev-parse", "HEAD");
}

/** The ProductError message a resolve rejects with. */
export async function resolveError(service: SourcesService, inputs: string[], cwd: string, repositoryRoot = cwd): Promise<string> {
  try {
    await service.resolve(inputs, { cwd, repositoryRoot });
  } catch (error) {
    // Queue-time problems are product errors (exit 1), never internal errors.
    if (!isProductError(error) || error.code !== "validation_failed") throw error;
    return error.message;
  }
  throw new Error(`resolve(${inputs.join(" ")}) did not fail`);
}
