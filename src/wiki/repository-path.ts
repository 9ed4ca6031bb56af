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
