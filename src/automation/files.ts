import { existsSync, mkdirSync, rmSync } from "node:fs";
import { readTextIfExists } from "../core/fs.js";
import { dirname } from "node:path";
import { writeFileAtomic } from "../wiki/atomic-write.js";

/** Replaces the file so a reader (or the scheduler) never sees half of it. */
export function writeTextAtomic(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, content);
}

/** Writes only when the content differs; says whether it wrote. */
export function writeIfChanged(path: string, content: string): boolean {
  if (readTextIfExists(path) === content) return false;
  writeTextAtomic(path, content);
  return true;
}

/** Deletes the file; says whether there was one. */
export function removeIfPresent(path: string): boolean {
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}
