import { readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { join, relative, sep } from "node:path";

export interface ScannedFile {
  relPath: string;
  absPath: string;
  size: number;
  mtimeMs: number;
  slug: string;
}

export interface ScanWarning {
  category: "symlink_loop" | "symlink_outside" | "unreadable";
  path: string;
  message: string;
}

/** A folder's page files and subfolders, remembered with the folder's mtime. */
export interface FolderListing {
  mtimeMs: number;
  /** Sorted names, each prefixed `d` (folder) or `f` (page file). */
  entries: string[];
}

/** Folder listings from the previous scan; a folder whose mtime is unchanged is not read again. */
export interface ListingCache {
  checkedAt: number;
  folders: Record<string, FolderListing>;
}

export interface WikiScan {
  almanacPath: string;
  /** Listings of the folders scanned, for the next scan's cache (folders holding symlinks are left out). */
  listings: Record<string, FolderListing>;
  files: Map<string, ScannedFile>;
  topicsStat: { size: number; mtimeMs: number } | null;
  /** Runtime files or folders found directly in almanac/ (they belong under the state root). */
  runtimeEntries: string[];
  warnings: ScanWarning[];
}

/** Root-level folders that never hold pages: the packaged manual and legacy runtime state. */
const RESERVED_ROOT_DIRS = new Set(["manual", "jobs", "runs"]);
const RUNTIME_ROOT_ENTRIES = ["index.db", "index.db-wal", "index.db-shm", "jobs", "runs"];

/**
 * Lists page files with their stat data only; nothing is read or parsed here, which is
 * what keeps a read on an unchanged wiki cheap.
 */
export function scanWiki(almanacPath: string, cache?: ListingCache | null): WikiScan {
  const scan: WikiScan = {
    almanacPath,
    listings: {},
    files: new Map(),
    topicsStat: statOrNull(join(almanacPath, "topics.yaml")),
    runtimeEntries: [],
    warnings: [],
  };
  const rootReal = safeRealpath(almanacPath) ?? almanacPath;
  walk(scan, almanacPath, "", { rootReal, ancestors: new Set(), linkedDirs: new Set(), cache: cache ?? null }, false);
  return scan;
}

/** A folder changed this close to the previous scan may change again within the same mtime. */
const RACY_FOLDER_MS = 2_000;

interface WalkState {
  rootReal: string;
  /** Folders on the current path (device:inode): a symlink back to one of them is a loop. */
  ancestors: Set<string>;
  /** Folders already entered through a symlink; each is expanded through links once, which bounds the walk. */
  linkedDirs: Set<string>;
  cache: ListingCache | null;
}

/** A link to a sibling folder is not a loop: its pages are indexed under the link's path too. */
function walk(scan: WikiScan, dir: string, relDir: string, state: WalkState, viaLink: boolean): void {
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch (error) {
    scan.warnings.push({ category: "unreadable", path: relDir || ".", message: `cannot read folder: ${code(error)}` });
    return;
  }
  const key = `${stats.dev}:${stats.ino}`;
  if (state.ancestors.has(key)) {
    scan.warnings.push({ category: "symlink_loop", path: relDir, message: "symlink loop: links back to a folder that contains it" });
    return;
  }
  if (viaLink) {
    if (state.linkedDirs.has(key)) return;
    state.linkedDirs.add(key);
  }
  state.ancestors.add(key);
  try {
    const cached = relDir === "" ? undefined : state.cache?.folders[relDir];
    if (cached && cached.mtimeMs === stats.mtimeMs && stats.mtimeMs + RACY_FOLDER_MS <= state.cache!.checkedAt) {
      walkListing(scan, dir, relDir, state, cached);
    } else {
      walkEntries(scan, dir, relDir, state, stats.mtimeMs);
    }
  } finally {
    state.ancestors.delete(key);
  }
}

/** Replays a remembered listing: no readdir, only a stat per page file. */
function walkListing(scan: WikiScan, dir: string, relDir: string, state: WalkState, listing: FolderListing): void {
  scan.listings[relDir] = listing;
  for (const entry of listing.entries) {
    const name = entry.slice(1);
    const rel = `${relDir}/${name}`;
    const abs = `${dir}/${name}`;
    if (entry.charCodeAt(0) === 100 /* d */) {
      walk(scan, abs, rel, state, false);
    } else {
      addPage(scan, rel, abs, statOrUndefined(abs));
    }
  }
}

function addPage(scan: WikiScan, rel: string, abs: string, s: Stats | undefined): void {
  if (!s || !s.isFile()) return;
  scan.files.set(rel, { relPath: rel, absPath: abs, size: s.size, mtimeMs: s.mtimeMs, slug: slugOfScanned(rel) });
}

/** slugForRelPath for paths that came out of readdir (no empty or dot components to check). */
function slugOfScanned(rel: string): string {
  if (rel === "README.md") return "README";
  if (rel.endsWith("/README.md")) return rel.slice(0, -"/README.md".length);
  return rel.slice(0, -".md".length);
}

function walkEntries(scan: WikiScan, dir: string, relDir: string, state: WalkState, mtimeMs: number): void {
  const remembered: string[] = [];
  let hasLinks = false;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    scan.warnings.push({ category: "unreadable", path: relDir || ".", message: `cannot read folder: ${code(error)}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const name = entry.name;
    const rel = relDir === "" ? name : `${relDir}/${name}`;
    const abs = `${dir}/${name}`;
    if (relDir === "" && RUNTIME_ROOT_ENTRIES.includes(name)) scan.runtimeEntries.push(name);
    if (name.startsWith(".")) continue;

    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    let fileStats: Stats | undefined;
    if (entry.isSymbolicLink()) {
      hasLinks = true;
      let real: string;
      try {
        real = realpathSync(abs);
      } catch (error) {
        scan.warnings.push(
          code(error) === "ELOOP"
            ? { category: "symlink_loop", path: rel, message: "symlink loop: the link never resolves" }
            : { category: "unreadable", path: rel, message: `dangling symlink: cannot resolve it (${code(error)})` },
        );
        continue;
      }
      if (!isInside(real, state.rootReal)) {
        scan.warnings.push({ category: "symlink_outside", path: rel, message: "symlink points outside almanac/; not followed" });
        continue;
      }
      fileStats = statOrUndefined(abs);
      if (!fileStats) continue;
      isDir = fileStats.isDirectory();
      isFile = fileStats.isFile();
    }
    if (isDir) {
      if (relDir === "" && RESERVED_ROOT_DIRS.has(name)) continue;
      remembered.push(`d${name}`);
      walk(scan, abs, rel, state, entry.isSymbolicLink());
    } else if (isFile && name.endsWith(".md") && name !== ".md") {
      remembered.push(`f${name}`);
      addPage(scan, rel, abs, fileStats ?? statOrUndefined(abs));
    }
  }
  // Folders holding symlinks are always read again: their targets may change without the folder.
  if (!hasLinks && relDir !== "") scan.listings[relDir] = { mtimeMs, entries: remembered };
}

function statOrNull(path: string): { size: number; mtimeMs: number } | null {
  const s = statOrUndefined(path);
  return s && s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function safeRealpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel.split(sep)[0] !== "..");
}

function code(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? String(error);
}

/** Component-wise path order: `a/b.md` sorts before `a-b.md`. */
export function comparePaths(a: string, b: string): number {
  const pa = a.split("/");
  const pb = b.split("/");
  const n = Math.min(pa.length, pb.length);
  for (let i = 0; i < n; i++) {
    const x = pa[i]!;
    const y = pb[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}
