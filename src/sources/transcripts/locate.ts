import { readdir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where the agents keep their transcripts, from the same variables the agents read. */
export function claudeProjectsDir(env: NodeJS.ProcessEnv): string {
  return join(nonBlank(env.CLAUDE_CONFIG_DIR) ?? join(homeOf(env), ".claude"), "projects");
}

export function codexHome(env: NodeJS.ProcessEnv): string {
  return nonBlank(env.CODEX_HOME) ?? join(homeOf(env), ".codex");
}

export function homeOf(env: NodeJS.ProcessEnv): string {
  return nonBlank(env.HOME) ?? nonBlank(env.USERPROFILE) ?? homedir();
}

/** Session ids are UUIDs; anything id-like is looked up, nothing with path characters. */
export function looksLikeSessionId(value: string): boolean {
  return /^[0-9A-Za-z][0-9A-Za-z_-]{5,127}$/.test(value);
}

/**
 * The transcript file of a session id: Claude's `projects/<folder>/<id>.jsonl`, else a
 * Codex rollout whose name ends in the id (`rollout-<time>-<id>.jsonl`, optionally
 * `_<rollout-id>` before the extension, or `.jsonl.zst` once compressed). A plain
 * rollout is preferred over a compressed one: Codex re-inflates before appending, so for
 * a moment both exist and the plain one is current.
 */
export async function findTranscriptBySessionId(id: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  return (await findClaudeSession(id, env)) ?? (await findCodexRollout(id, env));
}

async function findClaudeSession(id: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const projects = claudeProjectsDir(env);
  for (const folder of await listDir(projects)) {
    const candidate = join(projects, folder, `${id}.jsonl`);
    if (await isFile(candidate)) return candidate;
  }
  return null;
}

/** sessions/YYYY/MM/DD is three levels deep; a little slack covers layouts we have not seen. */
const CODEX_SESSION_DEPTH = 5;

async function findCodexRollout(id: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const home = codexHome(env);
  const matches = [
    ...(await findRollouts(join(home, "sessions"), id, CODEX_SESSION_DEPTH)),
    ...(await findRollouts(join(home, "archived_sessions"), id, 0)),
  ];
  return matches.find((path) => !path.endsWith(".zst")) ?? matches[0] ?? null;
}

async function findRollouts(dir: string, id: string, depth: number): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await listDirEntries(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && depth > 0) found.push(...(await findRollouts(path, id, depth - 1)));
    else if (entry.isFile() && isRolloutOf(entry.name, id)) found.push(path);
  }
  return found;
}

/**
 * A rollout and its compressed twin (`x.jsonl` and `x.jsonl.zst`) hold the same lines:
 * Codex compresses idle rollouts and re-inflates one before appending to it.
 */
export function transcriptTwin(path: string): string | null {
  if (/\.jsonl\.zst$/i.test(path)) return path.slice(0, -".zst".length);
  if (/\.jsonl$/i.test(path)) return `${path}.zst`;
  return null;
}

/** The path itself while it is a file, else its twin when that one is; else the path, for the error to name. */
export async function presentTranscriptPath(path: string): Promise<string> {
  if (await isFile(path)) return path;
  const twin = transcriptTwin(path);
  return twin !== null && (await isFile(twin)) ? twin : path;
}

function isRolloutOf(name: string, id: string): boolean {
  if (!name.startsWith("rollout-")) return false;
  const stem = name.replace(/\.jsonl(\.zst)?$/, "");
  if (stem === name) return false;
  return stem.endsWith(`-${id}`) || stem.includes(`-${id}_`);
}

async function listDir(dir: string): Promise<string[]> {
  return (await listDirEntries(dir)).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

async function listDirEntries(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function nonBlank(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== "" ? value : undefined;
}
