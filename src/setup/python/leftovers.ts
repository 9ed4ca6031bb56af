/**
 * What the Python CodeAlmanac 0.4 installed outside its database, which `setup` offers to
 * remove and `doctor` reports (`legacy.python`):
 *  - its launchd update job, `~/Library/LaunchAgents/com.codealmanac.update.plist` (we do
 *    not update ourselves, so no task of ours has that label; its sync and garden agents
 *    share our labels and setup replaces them like our own);
 *  - its Claude guide, `~/.claude/codealmanac.md`, a file name ours never writes;
 *  - the line `@~/.claude/codealmanac.md` that imports it into `~/.claude/CLAUDE.md`.
 * Only these exact forms are touched: our own block in CLAUDE.md lives between
 * `<!-- codealmanac:start -->` markers (instruction-block.ts) and is left as it is. Its
 * Codex block uses the same markers as ours, so setup simply rewrites it.
 */
import { existsSync, lstatSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CommandRunner } from "../../core/command.js";
import { commandFailureLine } from "../../core/command.js";
import { homeDir } from "../../core/paths.js";
import { readTextIfExists } from "../../core/fs.js";
import { writeThrough } from "../instruction-files.js";
import { ASIDE_BASE } from "./adopt.js";
import type { LeftoverKind, LeftoverRemoval, PythonLeftover } from "../model.js";

export type { LeftoverKind, LeftoverRemoval, PythonLeftover };

export const PYTHON_UPDATE_LABEL = "com.codealmanac.update";
export const PYTHON_IMPORT_LINE = "@~/.claude/codealmanac.md";


export interface LeftoverDeps {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  run: CommandRunner;
  uid: number;
}

const DESCRIPTIONS: Record<LeftoverKind, string> = {
  update_job: "its launchd update job",
  claude_guide: "its Claude Code guide",
  claude_import: "its import line in",
};

function pythonPaths(env: NodeJS.ProcessEnv) {
  const home = homeDir(env);
  return {
    plist: join(home, "Library", "LaunchAgents", `${PYTHON_UPDATE_LABEL}.plist`),
    guide: join(home, ".claude", "codealmanac.md"),
    claudeMd: join(home, ".claude", "CLAUDE.md"),
  };
}

export function findPythonLeftovers(env: NodeJS.ProcessEnv): PythonLeftover[] {
  const paths = pythonPaths(env);
  const found: PythonLeftover[] = [];
  if (existsSync(paths.plist)) found.push({ kind: "update_job", path: paths.plist });
  if (existsSync(paths.guide)) found.push({ kind: "claude_guide", path: paths.guide });
  const claudeMd = readTextIfExists(paths.claudeMd);
  if (claudeMd !== null && withoutImportLine(claudeMd) !== claudeMd) found.push({ kind: "claude_import", path: paths.claudeMd });
  return found;
}

/** `its launchd update job (…plist), its Claude Code guide (…)`: for doctor, setup and the prompt. */
export function describeLeftovers(leftovers: readonly PythonLeftover[]): string {
  return leftovers.map((l) => (l.kind === "claude_import" ? `${DESCRIPTIONS[l.kind]} ${l.path}` : `${DESCRIPTIONS[l.kind]} (${l.path})`)).join(", ");
}

export async function removePythonLeftovers(leftovers: readonly PythonLeftover[], deps: LeftoverDeps): Promise<LeftoverRemoval[]> {
  const results: LeftoverRemoval[] = [];
  for (const leftover of leftovers) {
    try {
      if (leftover.kind === "update_job") await removeUpdateJob(leftover.path, deps);
      else if (leftover.kind === "claude_guide") rmSync(leftover.path, { force: true });
      else removeImportLine(leftover.path);
      results.push({ ...leftover, removed: true });
    } catch (error) {
      results.push({ ...leftover, removed: false, problem: error instanceof Error ? error.message : String(error) });
    }
  }
  return results;
}

/** What launchctl says when the job is simply not loaded. */
const NOT_LOADED = /no such process|could not find (specified )?service|service not found|not find service/i;

/** Unloaded first (on macOS), so launchd stops running it, then its plist deleted. */
async function removeUpdateJob(plist: string, deps: LeftoverDeps): Promise<void> {
  if (deps.platform === "darwin") {
    const target = `gui/${deps.uid}/${PYTHON_UPDATE_LABEL}`;
    const result = await deps.run("launchctl", ["bootout", target], { env: deps.env, timeoutMs: 15_000 });
    const said = `${result.stderr}\n${result.stdout}`;
    if (result.code !== 0 && !result.notFound && !NOT_LOADED.test(said)) {
      throw new Error(`launchctl bootout ${target} failed: ${commandFailureLine(result) || `exit ${result.code}`}`);
    }
  }
  rmSync(plist, { force: true });
}

function removeImportLine(path: string): void {
  const text = readTextIfExists(path);
  if (text === null) return;
  const after = withoutImportLine(text);
  // Like our own block's removal: a file left empty goes, unless it is a symlink (never left dangling).
  if (after.trim() === "" && !lstatSync(path).isSymbolicLink()) rmSync(path, { force: true });
  else writeThrough(path, after);
}

const isBlank = (line: string | undefined) => line !== undefined && line.trim() === "";

/**
 * The text without the import line, and without the blank line that separated it (it was
 * appended after one); every other byte kept. Only a line that is exactly the import (give
 * or take surrounding spaces and a CR) counts.
 */
export function withoutImportLine(text: string): string {
  const lines = text.split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() !== PYTHON_IMPORT_LINE) {
      kept.push(line);
      continue;
    }
    const next = lines[i + 1];
    const atEnd = i + 1 === lines.length - 1 && next === "";
    if (isBlank(kept[kept.length - 1]) && (isBlank(next) || atEnd || next === undefined)) kept.pop();
    else if (kept.length === 0 && isBlank(next) && !atEnd) i++;
  }
  return kept.join("\n");
}

/** The Python database files setup moved aside (see adopt.ts), kept for their history. */
export function asideDatabases(database: string): string[] {
  const dir = dirname(database);
  try {
    return readdirSync(dir)
      .filter((name) => name.startsWith(ASIDE_BASE) && name.endsWith(".db"))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}
