import { basename } from "node:path";
import { clipText } from "../../core/bounded.js";
import { manifestDetail } from "./manifests.js";

/**
 * Where the repository's programs start and how they are built and run, found from file
 * paths alone, plus a one-line detail read from a few small manifests (package.json
 * bins and scripts, Cargo bins, pyproject scripts, make targets, the Go module path).
 */
export interface EntryPoint {
  path: string;
  kind: EntryKind;
  detail?: string;
}

export type EntryKind =
  | "package manifest"
  | "go command"
  | "executable"
  | "python entry"
  | "rust binary"
  | "source entry"
  | "task runner"
  | "container"
  | "ci workflow";

/** Up to two folders deep, so workspace packages count but deep fixtures rarely do. */
const NEAR_ROOT = "(?:[^/]+/){0,2}";

const MANIFESTS = [
  "package.json",
  "Cargo.toml",
  "pyproject.toml",
  "setup.py",
  "go.mod",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "deno.json",
  "deno.jsonc",
  "composer.json",
  "Gemfile",
  "mix.exs",
  "CMakeLists.txt",
];

const CI_FILES = [".gitlab-ci.yml", ".circleci/config.yml", "Jenkinsfile", "azure-pipelines.yml", ".travis.yml"];

/** An alternation of literal names, for use inside a larger pattern. */
function oneOf(names: string[]): string {
  return `(?:${names.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`;
}

/** In priority order: the first rule a path matches decides its kind and its rank. */
const RULES: { kind: EntryKind; pattern: RegExp }[] = [
  {
    kind: "package manifest",
    pattern: new RegExp(`^${NEAR_ROOT}${oneOf(MANIFESTS)}$`),
  },
  { kind: "go command", pattern: /^(?:.*\/)?cmd\/[^/]+\/main\.go$/ },
  { kind: "executable", pattern: /^bin\/[^/]+$/ },
  { kind: "python entry", pattern: /(?:^|\/)(?:__main__|manage|wsgi|asgi)\.py$/ },
  { kind: "rust binary", pattern: new RegExp(`^${NEAR_ROOT}src/(?:main\\.rs|bin/[^/]+\\.rs)$`) },
  { kind: "source entry", pattern: new RegExp(`^${NEAR_ROOT}src/(?:main|index|app|cli|bin|server)\\.[A-Za-z]+$`) },
  { kind: "source entry", pattern: /^(?:main|index|app|server|cli)\.(?:[cm]?[jt]sx?|py|go|rb|php|java|kt|swift|c|cc|cpp)$/ },
  {
    kind: "task runner",
    pattern: /^(?:[^/]+\/)?(?:Makefile|GNUmakefile|[Jj]ustfile|Taskfile\.ya?ml|Rakefile|noxfile\.py|tox\.ini)$/,
  },
  {
    kind: "container",
    pattern: new RegExp(`^${NEAR_ROOT}(?:Dockerfile[^/]*|[^/]+\\.Dockerfile|(?:docker-)?compose[^/]*\\.ya?ml|Procfile)$`),
  },
  {
    kind: "ci workflow",
    pattern: new RegExp(`^(?:\\.github/workflows/[^/]+\\.ya?ml|${oneOf(CI_FILES)})$`),
  },
];

/** Manifests read for a detail line; the rest are listed by path only. */
const MAX_MANIFESTS_READ = 12;
const DETAIL_CHARS = 300;

export function findEntryPoints(root: string, paths: readonly string[]): EntryPoint[] {
  const found: { entry: EntryPoint; rank: number }[] = [];
  for (const path of paths) {
    const rank = RULES.findIndex((rule) => rule.pattern.test(path));
    if (rank >= 0) found.push({ entry: { path, kind: RULES[rank]!.kind }, rank });
  }
  found.sort((a, b) => a.rank - b.rank || depth(a.entry.path) - depth(b.entry.path) || compare(a.entry.path, b.entry.path));
  const entries = found.map((f) => f.entry);
  addDetails(root, entries);
  return entries;
}

function addDetails(root: string, entries: EntryPoint[]): void {
  let read = 0;
  for (const entry of entries) {
    if (read >= MAX_MANIFESTS_READ) return;
    const detail = manifestDetail(root, entry.path, basename(entry.path));
    if (detail === undefined) continue;
    read++;
    if (detail !== "") entry.detail = clipText(detail, DETAIL_CHARS);
  }
}

function depth(path: string): number {
  let slashes = 0;
  for (const char of path) if (char === "/") slashes++;
  return slashes;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
