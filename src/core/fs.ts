import { closeSync, constants, fstatSync, openSync, readFileSync, readlinkSync, realpathSync, statSync, type Stats } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";

export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A folder that really lies inside `root` (a real path): a symlink in the repository that
 * leads elsewhere does not count, so an answer never tells what exists outside it.
 */
export function isDirectoryWithin(path: string, root: string): boolean {
  const real = realpathOrNull(path);
  return real !== null && isPathInside(real, root) && isDirectory(real);
}

/** Something (file or folder) that really lies inside `root`, by the same rule as isDirectoryWithin. */
export function existsWithin(path: string, root: string): boolean {
  const real = realpathOrNull(path);
  return real !== null && isPathInside(real, root);
}

/** A text file's content, or null when it does not exist; other errors are thrown. */
export function readTextIfExists(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The path with every symlink resolved, or null when it cannot be (missing, unreadable). */
export function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The path with its symlinks resolved as far as it exists; missing trailing components are kept as written. */
export function realpathLoose(path: string): string {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = realpathSync(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** `path` is `root` or lies below it, compared component by component (`app` does not contain `app-2`). */
export function isPathInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** Why a file was refused by `openFileWithin`, as the `code` of the error it throws. */
export type WithinRefusal = "EOUTSIDE" | "ENOTREG";

/**
 * No symlink is followed at the last component (a FIFO would block the open; O_NONBLOCK
 * makes it return, and fstat then refuses it). Windows has neither flag.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** On Linux an open descriptor's real path is one readlink away; elsewhere the link checks must do. */
let fdPaths = process.platform === "linux";

/**
 * Opens a file for reading only when what is opened is a regular file inside `root` (a real
 * path), judged on the descriptor itself, so a file swapped for a symlink or a FIFO after
 * some earlier check cannot redirect the read. A path that is itself a symlink (a page
 * linked to another place in the wiki) is opened at its target, which must be inside
 * `root` too. On Linux the descriptor's real path is checked as well, which also catches
 * a folder on the way that was swapped for a link. The caller closes the descriptor.
 */
export function openFileWithin(path: string, root: string): { fd: number; stat: Stats } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOOP") throw error;
    const target = realpathSync.native(path);
    if (!isPathInside(target, root)) throw refusal("EOUTSIDE", path);
    fd = openSync(target, OPEN_FLAGS);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refusal("ENOTREG", path);
    const real = descriptorPath(fd);
    if (real !== null && !isPathInside(real.replace(/ \(deleted\)$/, ""), root)) throw refusal("EOUTSIDE", path);
    return { fd, stat };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function descriptorPath(fd: number): string | null {
  if (!fdPaths) return null;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    // No /proc mounted: the checks above are all there is.
    fdPaths = false;
    return null;
  }
}

function refusal(code: WithinRefusal, path: string): NodeJS.ErrnoException {
  const why = code === "EOUTSIDE" ? "it leads outside its folder" : "it is not a regular file";
  return Object.assign(new Error(`${path}: ${why}`), { code });
}
