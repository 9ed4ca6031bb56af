import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

/** True when the name is a path (it contains a separator) rather than a command to look up. */
export function isPathLike(executable: string): boolean {
  return executable.includes("/") || executable.includes("\\");
}

/**
 * Absolute path of an executable file, looked up on `env.PATH` unless already a path.
 * Nothing is started: this is the cheap "is it installed" check.
 */
export function resolveExecutable(executable: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (isPathLike(executable)) {
    const candidate = resolve(executable);
    return isExecutableFile(candidate) ? candidate : null;
  }
  const dirs = (env.PATH ?? env.Path ?? "").split(delimiter).filter((dir) => dir !== "");
  const extensions = process.platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT;.COM").split(";")] : [""];
  for (const dir of dirs) {
    if (!isAbsolute(dir)) continue; // a relative PATH entry would depend on the cwd
    for (const extension of extensions) {
      const candidate = join(dir, executable + extension);
      if (isExecutableFile(candidate)) return candidate;
    }
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
