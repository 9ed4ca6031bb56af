import { readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import { isPathInside, realpathOrNull } from "../core/fs.js";
import { join } from "node:path";

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

/** A folder's page files and subfolders as the walk saw them, with the folder's mtime. */
export interface FolderListing {
  mtimeMs: number;
  /** Sorted names joined by "/" (which no name contains), each prefixed `d` (folder), `D` (symlink to a folder) or `f` (page file). */
  entries: string;
  /** Set on folders holding symlinks: their targets may change without the folder, so they are always read again. */
  reread?: true;
}

/**
 * What the previous scan saw: every folder's listing and every page file's size and mtime
 * in walk order. It lets the next scan skip readdir for unchanged folders and decide
 * "nothing changed" with one numeric comparison per file, with no digest and no objects.
 */
export interface ScanSnapshot {
  checkedAt: number;
  folders: Record<string, FolderListing>;
  /** Base64 of a Float64Array: size, mtimeMs for each page file in walk order (NaN for one that vanished mid-walk), then topics.yaml's (-1 when absent). */
  stats: string;
}

export interface WikiScan {
  almanacPath: string;
  /** Listings of every folder walked, for the next snapshot. */
  listings: Record<string, FolderListing>;
  /** Page files keyed by path (built on first use: an unchanged wiki never needs it). */
  readonly files: Map<string, ScannedFile>;
  fileCount: number;
  /** Newest mtime among page files and topics.yaml. */
  newestMtime: number;
  /** Same folders, same entries, and same size and mtime for every file as the snapshot given. */
  matchesSnapshot: boolean;
  /**
   * With the same folders and entries as the snapshot given (so every file has the slot it
   * had), the slots whose size or mtime differ from it, in walk order; null when the layout
   * changed, there was no snapshot, or too many differ to be worth listing. See `pathsOfSlots`.
   */
  changedSlots: number[] | null;
  topicsStat: { size: number; mtimeMs: number } | null;
  /** Runtime files or folders found directly in almanac/ (they belong under the state root). */
  runtimeEntries: string[];
  warnings: ScanWarning[];
  /** Size and mtime pairs in walk order, then topics.yaml's, for the next snapshot. */
  stats: Float64Array;
}

/** Root-level folders that never hold pages: the packaged manual and legacy runtime state. */
const RESERVED_ROOT_DIRS = new Set(["manual", "jobs", "runs"]);
const RUNTIME_ROOT_ENTRIES = ["index.db", "index.db-wal", "index.db-shm", "jobs", "runs"];
const NO_THROW = { throwIfNoEntry: false } as const;

/**
 * Lists page files with their stat data only; nothing is read or parsed here, which is
 * what keeps a read on an unchanged wiki cheap.
 */
export function scanWiki(almanacPath: string, previous?: ScanSnapshot | null): WikiScan {
  const topicsStat = statOrNull(join(almanacPath, "topics.yaml"));
  const before = previous ? decodeStats(previous.stats) : null;
  const state: WalkState = {
    rootReal: realpathOrNull(almanacPath) ?? almanacPath,
    ancestors: new Set(),
    linkedDirs: new Set(),
    previous: previous ?? null,
    before,
    same: before !== null,
    stats: new Float64Array(before ? before.length : 1024),
    used: 0,
    layoutSame: before !== null,
    changed: [],
    fileCount: 0,
    newest: topicsStat?.mtimeMs ?? 0,
    listings: {},
    runtimeEntries: [],
    warnings: [],
  };
  walk(state, almanacPath, "", false);
  record(state, topicsStat?.size ?? -1, topicsStat?.mtimeMs ?? -1);
  const stats = state.stats.subarray(0, state.used);
  const listings = state.listings;
  let files: Map<string, ScannedFile> | undefined;
  return {
    almanacPath,
    listings,
    get files() {
      return (files ??= filesOf(almanacPath, listings, stats));
    },
    fileCount: state.fileCount,
    newestMtime: state.newest,
    matchesSnapshot: state.same && before !== null && before.length === stats.length,
    changedSlots: state.layoutSame && before !== null && before.length === stats.length && state.changed.length <= MAX_LISTED_CHANGES ? state.changed : null,
    topicsStat,
    runtimeEntries: state.runtimeEntries,
    warnings: state.warnings,
    stats,
  };
}

/** The snapshot a later scan compares itself against. */
export function snapshotOf(scan: WikiScan, checkedAt: number): ScanSnapshot {
  const { buffer, byteOffset, byteLength } = scan.stats;
  return { checkedAt, folders: scan.listings, stats: Buffer.from(buffer, byteOffset, byteLength).toString("base64") };
}

function decodeStats(encoded: string): Float64Array | null {
  const bytes = Buffer.from(encoded, "base64");
  if (bytes.length % 8 !== 0) return null;
  // Copied, because a Float64Array view needs an 8-byte-aligned offset.
  const out = new Float64Array(bytes.length / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/**
 * The page files, rebuilt from the listings in the walk's own order: the walk itself
 * keeps only numbers, so a read on an unchanged wiki builds no path strings at all.
 */
function filesOf(almanacPath: string, listings: Record<string, FolderListing>, stats: Float64Array): Map<string, ScannedFile> {
  const files = new Map<string, ScannedFile>();
  replayFiles(listings, (slot, relDir, name) => {
    const size = stats[slot * 2]!;
    if (Number.isNaN(size)) return;
    const rel = relDir === "" ? name : `${relDir}/${name}`;
    files.set(rel, { relPath: rel, absPath: `${almanacPath}/${rel}`, size, mtimeMs: stats[slot * 2 + 1]!, slug: slugOfScanned(rel) });
  });
  return files;
}

/**
 * Visits every page file entry of the listings in the walk's order, with its slot (the
 * index of its size and mtime pair in the scan's stats); folders are entered where the walk
 * entered them. Only folder paths are built here, so a caller that wants a few files builds
 * only their paths.
 */
function replayFiles(listings: Record<string, FolderListing>, onFile: (slot: number, relDir: string, name: string) => void): void {
  let slot = 0;
  const replay = (relDir: string): void => {
    const listing = listings[relDir];
    if (!listing || listing.entries === "") return;
    for (const entry of listing.entries.split("/")) {
      const kind = entry.charCodeAt(0);
      if (kind === D || kind === LINKED_D) replay(relDir === "" ? entry.slice(1) : `${relDir}/${entry.slice(1)}`);
      else onFile(slot++, relDir, entry.slice(1));
    }
  };
  replay("");
}

/**
 * Whether every folder still has the listing the snapshot recorded, judged by the folders'
 * mtimes alone (an entry added, removed or renamed changes its folder's mtime): no folder
 * is read and no page file stat'ed. False for a folder holding symlinks (their targets may
 * change without it) or one modified within the racy window of the snapshot. Says nothing
 * about the page files' contents.
 */
export function foldersUnchanged(almanacPath: string, snapshot: ScanSnapshot): boolean {
  const same = (dir: string, relDir: string): boolean => {
    const listing = snapshot.folders[relDir];
    if (!listing || listing.reread) return false;
    const stats = statOrUndefined(dir);
    if (!stats || !stats.isDirectory() || stats.mtimeMs !== listing.mtimeMs || isRacy(stats.mtimeMs, snapshot.checkedAt)) return false;
    if (listing.entries === "") return true;
    for (const entry of listing.entries.split("/")) {
      const kind = entry.charCodeAt(0);
      if (kind === LINKED_D) return false;
      if (kind !== D) continue;
      const name = entry.slice(1);
      if (!same(`${dir}/${name}`, relDir === "" ? name : `${relDir}/${name}`)) return false;
    }
    return true;
  };
  return same(almanacPath, "");
}

/** A file or folder modified this close to when it was last checked may change again within the same mtime. */
export const RACY_WINDOW_MS = 2_000;

export function isRacy(mtimeMs: number, checkedAt: number): boolean {
  return mtimeMs + RACY_WINDOW_MS > checkedAt;
}

interface WalkState {
  rootReal: string;
  /** Folders on the current path (device:inode): a symlink back to one of them is a loop. */
  ancestors: Set<string>;
  /** Folders already entered through a symlink; each is expanded through links once, which bounds the walk. */
  linkedDirs: Set<string>;
  previous: ScanSnapshot | null;
  before: Float64Array | null;
  /** Still identical to the previous snapshot, as far as the walk has got. */
  same: boolean;
  /** Folders and entries still as the previous snapshot had them, so slots still line up. */
  layoutSame: boolean;
  /** Slots (pair indices) whose size or mtime differ from the previous snapshot's. */
  changed: number[];
  /** Size and mtime of each page file in walk order (NaN for one that vanished), then topics.yaml's. */
  stats: Float64Array;
  used: number;
  fileCount: number;
  newest: number;
  listings: Record<string, FolderListing>;
  runtimeEntries: string[];
  warnings: ScanWarning[];
}

/** A link to a sibling folder is not a loop: its pages are indexed under the link's path too. */
function walk(state: WalkState, dir: string, relDir: string, viaLink: boolean): void {
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch (error) {
    state.warnings.push({ category: "unreadable", path: relDir || ".", message: `cannot read folder: ${code(error)}` });
    state.same = false;
    state.layoutSame = false;
    return;
  }
  const key = `${stats.dev}:${stats.ino}`;
  if (state.ancestors.has(key)) {
    state.warnings.push({ category: "symlink_loop", path: relDir, message: "symlink loop: links back to a folder that contains it" });
    return;
  }
  if (viaLink) {
    if (state.linkedDirs.has(key)) return;
    state.linkedDirs.add(key);
  }
  state.ancestors.add(key);
  try {
    const cached = state.previous?.folders[relDir];
    // The root is always read: it is where misplaced runtime files would show up.
    const replay =
      relDir !== "" && cached !== undefined && !cached.reread && cached.mtimeMs === stats.mtimeMs && !isRacy(stats.mtimeMs, state.previous!.checkedAt);
    const listing = replay ? cached : readListing(state, dir, relDir, stats.mtimeMs);
    if (!listing) {
      state.same = false;
      state.layoutSame = false;
      return;
    }
    if (!replay && (cached === undefined || cached.entries !== listing.entries)) {
      state.same = false;
      state.layoutSame = false;
    }
    state.listings[relDir] = listing;
    visit(state, dir, relDir, listing.entries);
  } finally {
    state.ancestors.delete(key);
  }
}

const D = 100; // "d": a folder
const LINKED_D = 68; // "D": a symlink to a folder inside almanac/

/** Stats the listing's page files and walks its folders, in listing order. */
function visit(state: WalkState, dir: string, relDir: string, entries: string): void {
  if (entries === "") return;
  for (const entry of entries.split("/")) {
    const name = entry.slice(1);
    const kind = entry.charCodeAt(0);
    if (kind === D || kind === LINKED_D) {
      walk(state, `${dir}/${name}`, relDir === "" ? name : `${relDir}/${name}`, kind === LINKED_D);
      continue;
    }
    const s = statOrUndefined(`${dir}/${name}`);
    if (!s || !s.isFile()) {
      record(state, NaN, NaN);
      continue;
    }
    state.fileCount++;
    if (s.mtimeMs > state.newest) state.newest = s.mtimeMs;
    record(state, s.size, s.mtimeMs);
  }
}

/** Appends one size and mtime pair, comparing it with the previous snapshot's pair at the same place. */
function record(state: WalkState, size: number, mtimeMs: number): void {
  const i = state.used;
  if (i + 2 > state.stats.length) {
    const grown = new Float64Array(state.stats.length * 2 + 2);
    grown.set(state.stats);
    state.stats = grown;
  }
  state.stats[i] = size;
  state.stats[i + 1] = mtimeMs;
  state.used = i + 2;
  // NaN never equals anything: a file that vanished mid-walk always counts as a change.
  const before = state.before;
  if (before === null || before[i] !== size || before[i + 1] !== mtimeMs) {
    state.same = false;
    if (state.layoutSame && state.changed.length <= MAX_LISTED_CHANGES) state.changed.push(i / 2);
  }
}

/** Beyond this many changed files a refresh compares every file with its manifest row anyway. */
const MAX_LISTED_CHANGES = 2_000;

/**
 * The relative paths of some file slots (see `changedSlots`), replaying the listings in the
 * walk's order and building only the paths asked for. A slot past the page files (the last
 * one is topics.yaml's) has no path and is left out.
 */
export function pathsOfSlots(listings: Record<string, FolderListing>, slots: readonly number[]): Map<number, string> {
  const wanted = new Set(slots);
  const out = new Map<number, string>();
  replayFiles(listings, (slot, relDir, name) => {
    if (wanted.has(slot)) out.set(slot, relDir === "" ? name : `${relDir}/${name}`);
  });
  return out;
}

/** Reads a folder: page files and subfolders, sorted, with symlinks resolved and checked. */
function readListing(state: WalkState, dir: string, relDir: string, mtimeMs: number): FolderListing | null {
  let dirents;
  try {
    dirents = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    state.warnings.push({ category: "unreadable", path: relDir || ".", message: `cannot read folder: ${code(error)}` });
    return null;
  }
  dirents.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries: string[] = [];
  let hasLinks = false;
  for (const entry of dirents) {
    const name = entry.name;
    const rel = relDir === "" ? name : `${relDir}/${name}`;
    if (relDir === "" && RUNTIME_ROOT_ENTRIES.includes(name)) state.runtimeEntries.push(name);
    if (name.startsWith(".")) continue;
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    const isLink = entry.isSymbolicLink();
    if (isLink) {
      hasLinks = true;
      const target = linkTarget(state, `${dir}/${name}`, rel);
      if (!target) continue;
      isDir = target.isDirectory();
      isFile = target.isFile();
    }
    if (isDir) {
      if (relDir === "" && RESERVED_ROOT_DIRS.has(name)) continue;
      entries.push(`${isLink ? "D" : "d"}${name}`);
    } else if (isFile && name.endsWith(".md") && name !== ".md") {
      entries.push(`f${name}`);
    }
  }
  const listing: FolderListing = { mtimeMs, entries: entries.join("/") };
  if (hasLinks) listing.reread = true;
  return listing;
}

/** A symlink's target when it resolves inside almanac/; otherwise a warning and null. */
function linkTarget(state: WalkState, abs: string, rel: string): Stats | null {
  let real: string;
  try {
    real = realpathSync(abs);
  } catch (error) {
    state.warnings.push(
      code(error) === "ELOOP"
        ? { category: "symlink_loop", path: rel, message: "symlink loop: the link never resolves" }
        : { category: "unreadable", path: rel, message: `dangling symlink: cannot resolve it (${code(error)})` },
    );
    return null;
  }
  if (!isPathInside(real, state.rootReal)) {
    state.warnings.push({ category: "symlink_outside", path: rel, message: "symlink points outside almanac/; not followed" });
    return null;
  }
  return statOrUndefined(abs) ?? null;
}

/** slugForRelPath for paths that came out of readdir (no empty or dot components to check). */
export function slugOfScanned(rel: string): string {
  if (rel === "README.md") return "README";
  if (rel.endsWith("/README.md")) return rel.slice(0, -"/README.md".length);
  return rel.slice(0, -".md".length);
}

function statOrNull(path: string): { size: number; mtimeMs: number } | null {
  const s = statOrUndefined(path);
  return s && s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs } : null;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, NO_THROW);
  } catch {
    return undefined;
  }
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
