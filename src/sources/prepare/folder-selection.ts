import { basename, extname } from "node:path";

/** A file that may go into a folder's material; `path` is relative to the folder, `/`-separated. */
export interface Candidate {
  path: string;
  changed: boolean;
}

/**
 * The order in which a folder's files are offered to the budget: changed files first
 * (that is usually why the folder was named), then the rest; within each, one file per
 * first-level subfolder in turn, so a bounded selection shows the folder's breadth
 * rather than the whole of its first subfolder. Each subfolder offers its most telling
 * file first: entry points and services before models, source before configuration,
 * shallow before deep.
 */
export function orderCandidates(candidates: Candidate[]): Candidate[] {
  const changed = candidates.filter((candidate) => candidate.changed);
  const unchanged = candidates.filter((candidate) => !candidate.changed);
  return [...roundRobin(changed), ...roundRobin(unchanged)];
}

function roundRobin(candidates: Candidate[]): Candidate[] {
  const groups = new Map<string, Candidate[]>();
  for (const candidate of [...candidates].sort(compareCandidates)) {
    const group = selectionGroup(candidate.path);
    groups.set(group, [...(groups.get(group) ?? []), candidate]);
  }
  // Sorting first means each group is ordered, and Map order is the order of each group's best file.
  const queues = [...groups.values()];
  const ordered: Candidate[] = [];
  for (let round = 0; ordered.length < candidates.length; round += 1) {
    for (const queue of queues) {
      const candidate = queue[round];
      if (candidate) ordered.push(candidate);
    }
  }
  return ordered;
}

/** Files directly in the folder form one group; each first-level subfolder is another. */
export function selectionGroup(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    roleRank(a.path) - roleRank(b.path) ||
    contentRank(a.path) - contentRank(b.path) ||
    depth(a.path) - depth(b.path) ||
    a.path.toLowerCase().localeCompare(b.path.toLowerCase())
  );
}

const ENTRY_POINTS = new Set(["main", "app", "index", "service", "server", "cli", "adapter", "mod", "lib", "program"]);
const STRUCTURE = new Set(["model", "models", "types", "schema", "store", "ports", "routes", "config", "settings", "renderer", "requests", "root", "api", "readme"]);
const PLACEHOLDERS = new Set([".gitkeep", ".keep", "__init__.py"]);

export function roleRank(path: string): number {
  const name = basename(path).toLowerCase();
  if (PLACEHOLDERS.has(name)) return 4;
  const stem = name.slice(0, name.length - extname(name).length);
  if (ENTRY_POINTS.has(stem)) return 0;
  if (STRUCTURE.has(stem)) return 1;
  return 2;
}

const SOURCE_EXTENSIONS = new Set(
  "c cc cpp cs css go h hpp html java js jsx kt mjs cjs php py rb rs scss sh sql swift ts tsx mts cts vue svelte ex exs scala clj lua zig dart".split(" "),
);
const STRUCTURED_EXTENSIONS = new Set("cfg ini json md toml yaml yml txt rst".split(" "));
const LOW_VALUE_NAMES = new Set(["package-lock.json", "yarn.lock", "pnpm-lock.yaml", "cargo.lock", "poetry.lock", "go.sum", "composer.lock", "gemfile.lock", "uv.lock"]);
const LOW_VALUE_SUFFIXES = [".min.js", ".min.css", ".map", ".snap", ".lock", ".svg"];

export function contentRank(path: string): number {
  const name = basename(path).toLowerCase();
  if (LOW_VALUE_NAMES.has(name) || LOW_VALUE_SUFFIXES.some((suffix) => name.endsWith(suffix))) return 3;
  const extension = extname(name).slice(1);
  if (SOURCE_EXTENSIONS.has(extension)) return 0;
  if (STRUCTURED_EXTENSIONS.has(extension)) return 1;
  return 2;
}

function depth(path: string): number {
  return path.split("/").length;
}
