import { readFileSync, statSync } from "node:fs";
import { realpathOrNull } from "../core/fs.js";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Repository } from "./model.js";

/** How a working directory belongs to a registered repository. */
export type AffiliationKind = "root" | "subdirectory" | "worktree" | "symlink";

export type Affiliation =
  | { ok: true; repository: Repository; kind: AffiliationKind }
  | { ok: false; reason: "unregistered-cwd" | "cwd-missing" };

/**
 * Matches the directory an agent session ran in to a registered repository: the root
 * itself, a folder inside it, a git worktree of it, or a path that reaches it through a
 * symlink. The deepest matching root wins, so a wiki nested in a monorepo keeps its own
 * sessions. Answers are cached per directory: a sync asks about thousands of transcripts
 * from a handful of directories.
 */
export class Affiliator {
  private readonly roots: { root: string; repository: Repository }[];
  private readonly cache = new Map<string, Affiliation>();

  constructor(repositories: readonly Repository[]) {
    this.roots = repositories
      .map((repository) => ({ root: repository.rootPath, repository }))
      .sort((a, b) => b.root.length - a.root.length);
  }

  affiliate(cwd: string): Affiliation {
    const cached = this.cache.get(cwd);
    if (cached) return cached;
    const answer = this.compute(cwd);
    this.cache.set(cwd, answer);
    return answer;
  }

  private compute(cwd: string): Affiliation {
    const literal = resolve(cwd);
    const direct = this.match(literal);
    if (direct) return { ok: true, repository: direct.repository, kind: direct.exact ? "root" : "subdirectory" };
    const real = realpathOrNull(literal);
    if (real === null) return { ok: false, reason: "cwd-missing" };
    const viaLink = real !== literal ? this.match(real) : null;
    if (viaLink) return { ok: true, repository: viaLink.repository, kind: "symlink" };
    const mapped = mainCheckoutPath(real);
    const viaWorktree = mapped ? this.match(mapped) : null;
    if (viaWorktree) return { ok: true, repository: viaWorktree.repository, kind: "worktree" };
    return { ok: false, reason: "unregistered-cwd" };
  }

  private match(path: string): { repository: Repository; exact: boolean } | null {
    for (const { root, repository } of this.roots) {
      if (path === root) return { repository, exact: true };
      if (path.startsWith(root.endsWith(sep) ? root : root + sep)) return { repository, exact: false };
    }
    return null;
  }
}

/**
 * For a directory inside a linked git worktree, the same place in the main checkout.
 * A linked worktree's top holds a `.git` file naming `<main>/.git/worktrees/<name>`,
 * whose `commondir` leads back to the main repository's `.git`.
 */
export function mainCheckoutPath(dir: string): string | null {
  for (let current = dir; ; current = dirname(current)) {
    const gitFile = join(current, ".git");
    const kind = entryKind(gitFile);
    if (kind === "directory") return null;
    if (kind === "file") {
      const common = commonGitDir(gitFile);
      if (common === null || !common.endsWith(`${sep}.git`)) return null;
      return join(dirname(common), relative(current, dir));
    }
    if (dirname(current) === current) return null;
  }
}

function commonGitDir(gitFile: string): string | null {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readOrEmpty(gitFile));
  if (!match) return null;
  const gitDir = resolve(dirname(gitFile), match[1]!);
  const commondir = readOrEmpty(join(gitDir, "commondir")).trim();
  if (commondir === "") return null;
  const common = isAbsolute(commondir) ? commondir : resolve(gitDir, commondir);
  return realpathOrNull(common) ?? common;
}

function entryKind(path: string): "file" | "directory" | null {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? "directory" : stat.isFile() ? "file" : null;
  } catch {
    return null;
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

