import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { writeFileAtomic } from "../wiki/atomic-write.js";

/** A file's text, or null when it does not exist. */
export function readTextIfPresent(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Replaces the file so a reader (or the scheduler) never sees half of it. */
export function writeTextAtomic(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, content);
}

/** Writes only when the content differs; says whether it wrote. */
export function writeIfChanged(path: string, content: string): boolean {
  if (readTextIfPresent(path) === content) return false;
  writeTextAtomic(path, content);
  return true;
}

/** Deletes the file; says whether there was one. */
export function removeIfPresent(path: string): boolean {
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}
