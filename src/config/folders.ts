import { isAbsolute, join, resolve } from "node:path";

/**
 * Why `entry` cannot name a folder in `privacy.exclude`, or null when it can: an absolute
 * path, or one under the home folder written `~/…`. A relative path would mean a different
 * folder for every process that reads the file.
 */
export function folderProblem(entry: string): string | null {
  if (entry.trim() === "") return "is empty";
  if (entry === "~" || entry.startsWith("~/") || isAbsolute(entry)) return null;
  return "is not an absolute path or one starting with ~/";
}

/** The absolute folder an accepted entry names, `~` standing for `home`. */
export function expandFolder(entry: string, home: string): string {
  if (entry === "~") return resolve(home);
  return resolve(entry.startsWith("~/") ? join(home, entry.slice(2)) : entry);
}
