/** A revision range as git spells it: `A..B` (commits in B not in A) or `A...B` (either side since they parted). */
export interface RevisionRange {
  from: string;
  to: string;
  operator: ".." | "...";
}

/** `main..HEAD`, `v1.0...feature`, `main..` (an empty side means HEAD, as in git). */
const RANGE = /^(\S*?)(\.\.\.?)(\S*)$/;

export function parseRevisionRange(spec: string): RevisionRange | null {
  const match = RANGE.exec(spec);
  if (!match) return null;
  const [, from = "", operator, to = ""] = match;
  if (from === "" && to === "") return null;
  if (to.startsWith(".") || to.startsWith("/") || from.endsWith("/")) return null;
  return { from: from || "HEAD", to: to || "HEAD", operator: operator as ".." | "..." };
}

/**
 * A bare argument that names a range rather than a path: `main..HEAD` but not `../x`
 * or `..`. Only consulted when no file of that name exists.
 */
export function isBareRange(input: string): boolean {
  if (input.startsWith(".") || input.startsWith("/") || input.startsWith("~")) return false;
  return parseRevisionRange(input) !== null;
}
