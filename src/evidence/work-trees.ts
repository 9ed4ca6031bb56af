import { lstatSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import type { GitReader, WorkTree } from "./git.js";

/**
 * Where each repository's work tree is and what HEAD is, remembered between drift reports
 * in one process (the MCP server, the viewer), so a warm search or page read does not
 * start git each time only to learn that nothing moved: that process was most of a warm
 * MCP search's time. An answer is reused while the files it rests on are unchanged:
 * HEAD, the branch it names (a loose ref, packed-refs or a reftable list) in the
 * repository's common folder, and every `.git` from the root up to the work tree's top.
 */
export class WorkTrees {
  private readonly known = new Map<string, { tree: WorkTree | null; stamp: string }>();

  async find(git: GitReader, root: string): Promise<WorkTree | null> {
    const known = this.known.get(root);
    if (known && stampOf(known.tree, root) === known.stamp) return known.tree;
    this.known.delete(root);
    const before = stampOf(null, root);
    const tree = await git.workTree();
    if (git.missing) return tree;
    // Kept only when a second look agrees: an answer and a stamp taken across a commit are never kept together.
    if (tree === null) {
      if (before === stampOf(null, root)) this.known.set(root, { tree, stamp: before });
      return tree;
    }
    const stamp = stampOf(tree, root);
    const again = await git.workTree();
    if (again !== null && again.head === tree.head && again.gitDir === tree.gitDir && stampOf(again, root) === stamp) this.known.set(root, { tree: again, stamp });
    return again;
  }
}

/** Every `.git` from `root` up to `top` (the file system's root when null): a new one moves the work tree. */
function dotGits(root: string, top: string | null): string[] {
  const parts: string[] = [];
  for (let dir = root; ; dir = dirname(dir)) {
    parts.push(fileStamp(join(dir, ".git")));
    if (dir === top || dirname(dir) === dir) return parts;
  }
}

function stampOf(tree: WorkTree | null, root: string): string {
  if (tree === null) return dotGits(root, null).join("|");
  const head = readOrNull(join(tree.gitDir, "HEAD"));
  const common = commonDir(tree.gitDir);
  const parts = [fileStamp(join(tree.gitDir, "HEAD")), head ?? "-", fileStamp(join(common, "packed-refs")), fileStamp(join(common, "reftable", "tables.list"))];
  const ref = head?.startsWith("ref: ") ? head.slice(5).trim() : null;
  if (ref !== null) parts.push(fileStamp(join(common, ref)), fileStamp(join(tree.gitDir, ref)));
  return [...parts, ...dotGits(root, tree.top)].join("|");
}

/** A linked work tree's git folder names the repository's own in `commondir`. */
function commonDir(gitDir: string): string {
  const named = readOrNull(join(gitDir, "commondir"))?.trim();
  if (!named) return gitDir;
  return isAbsolute(named) ? named : join(gitDir, named);
}

function fileStamp(path: string): string {
  try {
    const stat = lstatSync(path, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return "-";
  }
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
