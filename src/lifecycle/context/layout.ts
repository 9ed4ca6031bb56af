/**
 * The shape of the repository from its file paths: what sits at the root (folders with
 * how many files they hold, at any depth), and which second-level folders are biggest,
 * which is where most of a project's modules usually live.
 */
export interface LayoutEntry {
  name: string;
  kind: "folder" | "file";
  /** Files at any depth below a folder. */
  files?: number;
}

export interface FolderSize {
  path: string;
  files: number;
}

export function rootLayout(paths: readonly string[]): LayoutEntry[] {
  const folders = new Map<string, number>();
  const files: string[] = [];
  for (const path of paths) {
    const slash = path.indexOf("/");
    if (slash < 0) files.push(path);
    else increment(folders, path.slice(0, slash));
  }
  const folderEntries = [...folders.entries()]
    .sort(byKey)
    .map(([name, count]): LayoutEntry => ({ name, kind: "folder", files: count }));
  const fileEntries = files.sort().map((name): LayoutEntry => ({ name, kind: "file" }));
  return [...folderEntries, ...fileEntries];
}

export function largestSubfolders(paths: readonly string[]): FolderSize[] {
  const folders = new Map<string, number>();
  for (const path of paths) {
    const first = path.indexOf("/");
    const second = first < 0 ? -1 : path.indexOf("/", first + 1);
    if (second > 0) increment(folders, path.slice(0, second));
  }
  return [...folders.entries()]
    .map(([path, files]) => ({ path, files }))
    .sort((a, b) => b.files - a.files || (a.path < b.path ? -1 : 1));
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function byKey([a]: [string, number], [b]: [string, number]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
