import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Every file under `dir`, recursively, except the V8 compile cache (our own code, written by processes still exiting). */
function filesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    // A folder removed while we walk (a run's scratch space) held nothing to find.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "compile" ? [] : filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** The files among `files` and those under `dirs` that hold any of `secrets`; a file that vanished while we read is skipped. */
export function filesHolding(secrets: string[], files: string[], dirs: string[]): string[] {
  const holding: string[] = [];
  for (const file of [...files, ...dirs.flatMap(filesUnder)]) {
    let content: string;
    try {
      content = readFileSync(file, "latin1");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    if (secrets.some((secret) => content.includes(secret))) holding.push(file);
  }
  return holding;
}
