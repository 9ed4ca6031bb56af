/**
 * A path inside the repository, as `/`-separated segments from its root: `""` is the root
 * itself, and a folder ends in `/`.
 */
export interface RepositoryPath {
  path: string;
  isDir: boolean;
}

/**
 * The one walk that makes a written path repository-relative; every surface that takes a
 * path (a page's file sources, a link in a rendered page, the viewer's and MCP's path
 * arguments) goes through it. `\` is read as `/`; empty and `.` segments are dropped; a
 * trailing `/`, `.` or `..` names a folder. What differs between callers is said here, once:
 *
 * - `climb: "refuse"`: any `..` makes the path meaningless (null). File sources and the
 *   viewer's `path` are compared with the paths the index holds, which never contain one.
 * - `climb: "resolve"`: `..` goes up a folder, from `from` (a rendered page's folder, or the
 *   root for a path an MCP client wrote), and climbing above the root is null.
 *
 * Absolute paths are the caller's business: they are read as if relative.
 */
export function walkRepositoryPath(text: string, options: { climb: "resolve" | "refuse"; from?: readonly string[] }): RepositoryPath | null {
  const raw = text.replace(/\\/g, "/").split("/");
  const last = raw[raw.length - 1];
  const namesFolder = last === "" || last === "." || last === "..";
  const segments = [...(options.from ?? [])];
  for (const segment of raw) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (options.climb === "refuse" || segments.length === 0) return null;
      segments.pop();
    } else {
      segments.push(segment);
    }
  }
  const joined = segments.join("/");
  if (joined === "") return { path: "", isDir: true };
  return namesFolder ? { path: `${joined}/`, isDir: true } : { path: joined, isDir: false };
}

/** `https:`, `mailto:` and the like: a link with a scheme is not a path. */
export const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * The repository path a page's relative link names (query and anchor left out), resolved
 * from the page's folder (almanac/ sits at the repository root), or null when it climbs out
 * of the repository, is absolute, or decodes to a control character or a scheme: not a path
 * anyone meant. The viewer's renderer and MCP's `read_page` both read links this way.
 */
export function linkedRepositoryPath(href: string, slug: string, isLanding: boolean): string | null {
  if (href.startsWith("/") || href.includes("\\")) return null;
  const path = href.split(/[?#]/, 1)[0] ?? "";
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  if ([...decoded].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) || SCHEME.test(decoded)) return null;
  const folder = slug === "README" ? [] : slug.split("/");
  const walked = walkRepositoryPath(decoded, { climb: "resolve", from: ["almanac", ...(isLanding ? folder : folder.slice(0, -1))] });
  return walked === null || walked.path === "" ? null : walked.path;
}
