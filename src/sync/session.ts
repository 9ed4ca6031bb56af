import { basename, isAbsolute, resolve } from "node:path";
import { invalid } from "../core/errors.js";
import { realpathOrNull } from "../core/fs.js";
import type { TranscriptFile } from "./discovery/index.js";

/** What `sync --session` was given: a transcript file, or a session id to look up. */
export type SessionTarget = { path: string } | { id: string };

/** A value with a path separator or a transcript's extension is a path (relative ones to `cwd`); anything else is an id. */
export function sessionTarget(value: string, cwd: string): SessionTarget {
  const text = value.trim();
  if (text === "") throw invalid("--session needs a session id or a transcript path");
  if (/[\\/]/.test(text) || /\.jsonl(\.zst)?$/i.test(text)) return { path: isAbsolute(text) ? text : resolve(cwd, text) };
  return { id: text };
}

/**
 * The transcript the target names, among the files discovery lists (so a path must be a
 * transcript `sync` would read: in Claude Code's projects folder or Codex's sessions, not
 * a subagent's). An id is matched by file name, which both agents derive from it: Claude
 * Code's `<id>.jsonl`, Codex's `rollout-<time>-<id>.jsonl[.zst]`; the newest wins.
 */
export function findSessionFile(target: SessionTarget, files: readonly TranscriptFile[]): TranscriptFile {
  if ("path" in target) {
    const wanted = realpathOrNull(target.path);
    if (wanted === null) throw invalid(`--session ${target.path}: no such file`);
    const name = basename(wanted);
    const found = files.find((file) => basename(file.path) === name && realpathOrNull(file.path) === wanted);
    if (!found) throw invalid(`--session ${target.path} is not a Claude Code or Codex session transcript (sync reads those under their projects and sessions folders)`);
    return found;
  }
  const matches = files.filter((file) => namesSession(file, target.id)).sort((a, b) => b.mtimeMs - a.mtimeMs);
  if (matches.length === 0) throw invalid(`--session ${target.id}: no Claude Code or Codex session with this id`);
  return matches[0]!;
}

function namesSession(file: TranscriptFile, id: string): boolean {
  const stem = basename(file.path).replace(/\.jsonl(\.zst)?$/i, "");
  if (file.app === "claude") return stem === id;
  return stem.startsWith("rollout-") && (stem.endsWith(`-${id}`) || stem.includes(`-${id}_`));
}
