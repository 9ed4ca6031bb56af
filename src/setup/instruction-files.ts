/**
 * The agents' global instruction files: Claude Code reads `CLAUDE.md` in its config
 * folder, Codex reads `AGENTS.override.md` in its home when that has content, else
 * `AGENTS.md`. `setup` installs the managed block there and `uninstall` takes it out.
 */
import { existsSync, lstatSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { conflict } from "../core/errors.js";
import { expandHome, homeDir } from "../core/paths.js";
import { writeFileAtomic } from "../wiki/atomic-write.js";
import { findBlock, MalformedBlockError, removeBlock, upsertBlock } from "./instruction-block.js";
import type { InstructionResult, InstructionTarget } from "./model.js";
import { readTextIfExists } from "../core/fs.js";

function configDir(variable: string | undefined, fallback: string, env: NodeJS.ProcessEnv): string {
  const configured = variable?.trim();
  return configured ? expandHome(configured, env) : join(homeDir(env), fallback);
}

export function claudeDir(env: NodeJS.ProcessEnv): string {
  return configDir(env.CLAUDE_CONFIG_DIR, ".claude", env);
}

export function codexDir(env: NodeJS.ProcessEnv): string {
  return configDir(env.CODEX_HOME, ".codex", env);
}

/** Every file a target may hold the block in (Codex has two). */
export function candidateFiles(target: InstructionTarget, env: NodeJS.ProcessEnv): string[] {
  if (target === "claude") return [join(claudeDir(env), "CLAUDE.md")];
  const dir = codexDir(env);
  return [join(dir, "AGENTS.override.md"), join(dir, "AGENTS.md")];
}

/** The file the agent reads, so the one the block belongs in. */
export function activeFile(target: InstructionTarget, env: NodeJS.ProcessEnv): string {
  const [first, second] = candidateFiles(target, env);
  if (target === "codex" && readTextIfExists(first!)?.trim()) return first!;
  return second ?? first!;
}

/** One target's file with the block in place, computed before anything is written. */
export interface InstructionEdit {
  result: InstructionResult;
  after: string;
}

/** Throws, naming the file, when a file holds half a block: nothing has been written then. */
export function planInstructions(target: InstructionTarget, env: NodeJS.ProcessEnv): InstructionEdit {
  const path = activeFile(target, env);
  const before = readTextIfExists(path) ?? "";
  const after = guarded(path, () => upsertBlock(before));
  if (after === before) return { result: { target, path, status: "already installed" }, after };
  return { result: { target, path, status: findBlock(before) ? "updated" : "installed" }, after };
}

export function applyInstructions(edit: InstructionEdit): InstructionResult {
  if (edit.result.status !== "already installed") writeThrough(edit.result.path, edit.after);
  return edit.result;
}

/** Files of a target that hold the block now. */
export function installedFiles(target: InstructionTarget, env: NodeJS.ProcessEnv): string[] {
  return candidateFiles(target, env).filter((path) => {
    const text = readTextIfExists(path);
    return text !== null && guarded(path, () => findBlock(text)) !== null;
  });
}

export interface RemovedFile {
  target: InstructionTarget;
  path: string;
  /** The file held nothing else, so it was deleted. */
  deleted: boolean;
}

export function removeInstructions(target: InstructionTarget, env: NodeJS.ProcessEnv): RemovedFile[] {
  return installedFiles(target, env).map((path) => {
    const after = removeBlock(readTextIfExists(path) ?? "");
    // A symlink is left in place (emptied through), so it never dangles.
    if (after.trim() === "" && !lstatSync(path).isSymbolicLink()) {
      rmSync(path, { force: true });
      return { target, path, deleted: true };
    }
    writeThrough(path, after);
    return { target, path, deleted: false };
  });
}

function guarded<T>(path: string, edit: () => T): T {
  try {
    return edit();
  } catch (error) {
    if (!(error instanceof MalformedBlockError)) throw error;
    throw conflict(`${path} has ${error.message} for the codealmanac block; fix or remove it by hand, then run this again`);
  }
}


/** Dotfiles are often symlinks into a dotfiles repository: write the file the link points at. */
function resolved(path: string): string {
  return existsSync(path) ? realpathSync(path) : path;
}

export function writeThrough(path: string, text: string): void {
  const target = resolved(path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileAtomic(target, text);
}
