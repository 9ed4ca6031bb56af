import { isAbsolute, relative, resolve, sep } from "node:path";

/**
 * The folder of `privacy.exclude` (absolute, `~` already expanded) that holds `cwd`, or
 * null. A session started there, or anywhere below, is never read: not by sync, not as an
 * ingest source.
 */
export function excludingFolder(cwd: string, folders: readonly string[] | undefined): string | null {
  if (!folders || folders.length === 0) return null;
  const at = resolve(cwd);
  for (const folder of folders) {
    const rel = relative(folder, at);
    const outside = rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
    if (!outside) return folder;
  }
  return null;
}

/** The skip reason and error detail for such a session. */
export const EXCLUDED_REASON = "excluded-by-privacy";

export function exclusionDetail(cwd: string, folder: string): string {
  return `the session ran in ${cwd}, inside ${folder}, which privacy.exclude lists; it was not read`;
}
