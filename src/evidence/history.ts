/**
 * The repository's history as drift needs it, from one `git log --name-status` walk:
 * which commits touched each path, which renamed it, and (for merges) who is whose ancestor.
 */

export interface Rename {
  from: string;
  to: string;
  /** Index of the commit in `commits` (0 is the newest). */
  at: number;
}

export class History {
  /** Commit ids, newest first (topological order). */
  readonly commits: string[] = [];
  private readonly position = new Map<string, number>();
  private readonly parents: number[][] = [];
  private readonly unresolvedParents: string[][] = [];
  /** Path → indexes of the commits that touched it, newest first. */
  private readonly touches = new Map<string, number[]>();
  /** Old path → its renames, newest first. */
  private readonly renamesFrom = new Map<string, Rename[]>();
  /** `<commit index>\0<path>` of renames that kept the content (R100): a move, not an edit. */
  private readonly pureRenames = new Set<string>();
  private hasMerges = false;
  private readonly ancestors = new Map<number, Uint8Array>();

  static parse(output: string): History {
    const history = new History();
    for (const chunk of output.split("\x1e")) {
      if (chunk === "") continue;
      history.addChunk(chunk);
    }
    history.resolveParents();
    return history;
  }

  private addChunk(chunk: string): void {
    const tokens = chunk.split("\0");
    const [sha = "", ...parentIds] = (tokens[0] ?? "").trim().split(" ");
    const at = this.commits.length;
    this.commits.push(sha);
    this.position.set(sha, at);
    this.unresolvedParents.push(parentIds.filter((p) => p !== ""));
    if (parentIds.length > 1) this.hasMerges = true;
    for (let i = 1; i < tokens.length; ) {
      const status = (tokens[i] ?? "").replace(/^\n/, "");
      if (status === "") {
        i++;
        continue;
      }
      if (status.startsWith("R") || status.startsWith("C")) {
        const from = tokens[i + 1] ?? "";
        const to = tokens[i + 2] ?? "";
        this.touch(to, at);
        if (status.startsWith("R")) {
          this.touch(from, at);
          this.rename({ from, to, at });
          if (status === "R100") {
            this.pureRenames.add(`${at}\0${from}`);
            this.pureRenames.add(`${at}\0${to}`);
          }
        }
        i += 3;
      } else {
        this.touch(tokens[i + 1] ?? "", at);
        i += 2;
      }
    }
  }

  private touch(path: string, at: number): void {
    const list = this.touches.get(path);
    if (!list) this.touches.set(path, [at]);
    else if (list[list.length - 1] !== at) list.push(at);
  }

  private rename(rename: Rename): void {
    const list = this.renamesFrom.get(rename.from);
    if (list) list.push(rename);
    else this.renamesFrom.set(rename.from, [rename]);
  }

  private resolveParents(): void {
    for (const ids of this.unresolvedParents) {
      this.parents.push(ids.map((id) => this.position.get(id)).filter((p): p is number => p !== undefined));
    }
  }

  indexOf(sha: string): number | undefined {
    if (sha.length === 40) return this.position.get(sha);
    // An abbreviated id written by hand: the first commit it names.
    const found = this.commits.findIndex((c) => c.startsWith(sha.toLowerCase()));
    return found < 0 ? undefined : found;
  }

  /** The newest commit that touched `path`, or undefined. */
  lastTouch(path: string): number | undefined {
    return this.touches.get(path)?.[0];
  }

  /**
   * Commits that changed the content at `path` and that `verified` had not seen (not its
   * ancestors, not itself), newest first. A rename that kept the content is not a change.
   */
  touchesSince(path: string, verified: number): number[] {
    const list = this.touches.get(path) ?? [];
    return list.filter((at) => at !== verified && !this.pureRenames.has(`${at}\0${path}`) && !this.isAncestor(at, verified));
  }

  /** Has any commit in `commits` (by index) touched `path`? */
  touchedBy(path: string, commits: ReadonlySet<number>): boolean {
    return (this.touches.get(path) ?? []).some((at) => commits.has(at));
  }

  /** The path `path` was renamed to after `verified`, following a chain of renames; undefined if none. */
  renamedSince(path: string, verified: number): { path: string; at: number } | undefined {
    let current = path;
    let found: { path: string; at: number } | undefined;
    const seen = new Set<string>();
    for (;;) {
      const renames = (this.renamesFrom.get(current) ?? []).filter((r) => r.at !== verified && !this.isAncestor(r.at, verified));
      // The oldest rename of this path after `verified` comes first in time.
      const next = renames[renames.length - 1];
      if (!next || seen.has(next.to)) return found;
      seen.add(next.to);
      found = { path: next.to, at: next.at };
      current = next.to;
    }
  }

  /** Every path a chain of renames took `path` to, at any time. */
  renameTargets(path: string): string[] {
    const found: string[] = [];
    const queue = [path];
    while (queue.length > 0) {
      for (const rename of this.renamesFrom.get(queue.pop()!) ?? []) {
        if (found.includes(rename.to) || rename.to === path) continue;
        found.push(rename.to);
        queue.push(rename.to);
      }
    }
    return found;
  }

  /** Commits reachable from the newest that `ancestorOf` cannot reach: what changed after it. */
  commitsNotIn(ancestorOf: number): Set<number> {
    const result = new Set<number>();
    for (let at = 0; at < this.commits.length; at++) {
      if (at !== ancestorOf && !this.isAncestor(at, ancestorOf)) result.add(at);
    }
    return result;
  }

  /**
   * Is commit `candidate` an ancestor of `of`? In topological order an ancestor always comes
   * later; in a history without merges every later commit is one.
   */
  isAncestor(candidate: number, of: number): boolean {
    if (candidate <= of) return false;
    if (!this.hasMerges) return true;
    return this.ancestorSet(of)[candidate] === 1;
  }

  private ancestorSet(of: number): Uint8Array {
    let set = this.ancestors.get(of);
    if (set) return set;
    set = new Uint8Array(this.commits.length);
    const stack = [...(this.parents[of] ?? [])];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (set[at] === 1) continue;
      set[at] = 1;
      for (const parent of this.parents[at] ?? []) if (set[parent] !== 1) stack.push(parent);
    }
    this.ancestors.set(of, set);
    return set;
  }
}
