import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { invalid } from "../core/errors.js";

/**
 * Replaces config.toml in one step: a reader (or a crash) sees the old file or the new
 * one, never half of it. The state directory is created on first write.
 */
export function writeConfigAtomically(path: string, text: string): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temp, text, { mode: existingMode(path) });
    renameSync(temp, path);
  } catch (error) {
    discard(temp);
    throw invalid(`cannot write config ${path}: ${(error as Error).message}`);
  }
}

/** Best effort: the write's own error is the one worth reporting. */
function discard(temp: string): void {
  try {
    rmSync(temp, { force: true });
  } catch {
    // not a file we made (a directory in the way, say): leave it
  }
}

function existingMode(path: string): number {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return 0o644;
  }
}
