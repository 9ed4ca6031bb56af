/**
 * The few git reads drift makes, each one process for the whole wiki: where the work tree
 * is, one history walk, the tracked files with uncommitted changes, and file contents at
 * commits through one `git cat-file --batch`.
 */
import { commandFailureLine, gitEnvironment, type CommandResult, type CommandRunner } from "../core/command.js";
import { ProductError, invalid } from "../core/errors.js";

const GIT_TIMEOUT_MS = 120_000;
const HISTORY_LIMIT_BYTES = 1024 * 1024 * 1024;
const CONTENTS_LIMIT_BYTES = 1024 * 1024 * 1024;

export interface WorkTree {
  /** The work tree's top folder. */
  top: string;
  /** The repository root's path below the top, `""` or ending in `/`: what git's paths start with. */
  prefix: string;
  /** The git folder (where the index file lives). */
  gitDir: string;
  /** HEAD's commit, null before the first commit. */
  head: string | null;
}

export class GitReader {
  constructor(
    private readonly run: CommandRunner,
    private readonly env: NodeJS.ProcessEnv,
    private readonly root: string,
  ) {}

  /** Set once git could not be started at all (not on PATH). */
  missing = false;

  private async git(args: string[], options: { input?: string; binary?: boolean; limit?: number } = {}) {
    const result = await this.run("git", ["-c", "core.quotePath=false", ...args], {
      cwd: this.root,
      env: gitEnvironment(this.env),
      timeoutMs: GIT_TIMEOUT_MS,
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.binary ? { binary: true } : {}),
      ...(options.limit !== undefined ? { maxOutputBytes: options.limit } : {}),
    });
    if (result.notFound) this.missing = true;
    return result;
  }

  /** Where the work tree is; null when the root is not in one (or git is missing). */
  async workTree(): Promise<WorkTree | null> {
    // One process: before the first commit git prints the folders, then fails on HEAD.
    const where = await this.git(["rev-parse", "--show-toplevel", "--show-prefix", "--absolute-git-dir", "HEAD"]);
    const [top = "", prefix = "", gitDir = "", head = ""] = where.stdout.split("\n");
    if (top === "" || gitDir === "") return null;
    return { top, prefix, gitDir, head: where.code === 0 && /^[0-9a-f]{40,64}$/.test(head) ? head : null };
  }

  /** A ref as a commit id; a ref git cannot resolve is the user's error. */
  async resolve(ref: string, flag: string): Promise<string> {
    const result = await this.git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
    if (result.code !== 0) throw invalid(`invalid ${flag} ${ref}: not a commit in this repository`);
    return result.stdout.trim();
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const result = await this.git(["merge-base", a, b]);
    return result.code === 0 ? result.stdout.trim() : null;
  }

  /** The whole history of `commit`, newest first, with the paths each commit changed. */
  async log(commit: string): Promise<string> {
    const result = await this.git(
      ["log", "--topo-order", "-z", "--name-status", "-M", "--no-color", "--format=%x1e%H %P", commit, "--"],
      { limit: HISTORY_LIMIT_BYTES },
    );
    if (result.code !== 0 || result.truncated) throw this.failure("git log", result);
    return result.stdout;
  }

  /** Is `ancestor` reachable from `commit`? */
  async isAncestor(ancestor: string, commit: string): Promise<boolean> {
    return (await this.git(["merge-base", "--is-ancestor", ancestor, commit])).code === 0;
  }

  /** The commits of `commit` that `since` lacks, newest first, in the format of `log`. */
  async logSince(since: string, commit: string): Promise<string> {
    const result = await this.git(
      ["log", "--topo-order", "-z", "--name-status", "-M", "--no-color", "--format=%x1e%H %P", `${since}..${commit}`, "--"],
      { limit: HISTORY_LIMIT_BYTES },
    );
    if (result.code !== 0 || result.truncated) throw this.failure("git log", result);
    return result.stdout;
  }

  /**
   * Tracked paths (from the top) whose working-tree content differs from HEAD; with `only`
   * (repository-relative paths), just those are checked, which is much cheaper in a large tree.
   */
  async uncommitted(only?: readonly string[]): Promise<Set<string>> {
    const pathspecs = only === undefined ? [] : ["--", ...only.map((path) => `:(literal)${path}`)];
    if (only !== undefined && only.length === 0) return new Set();
    const result = await this.git(["status", "--porcelain=v1", "-z", "--untracked-files=no", "--no-renames", ...pathspecs]);
    if (result.code !== 0) throw this.failure("git status", result);
    const paths = new Set<string>();
    for (const entry of result.stdout.split("\0")) if (entry.length > 3) paths.add(entry.slice(3));
    return paths;
  }

  /** Contents of `commit:path` for each spec; a spec git does not have maps to null. */
  async contents(specs: readonly string[]): Promise<Map<string, Buffer | null>> {
    const found = new Map<string, Buffer | null>();
    if (specs.length === 0) return found;
    const result = await this.git(["cat-file", "--batch"], { input: specs.map((s) => `${s}\n`).join(""), binary: true, limit: CONTENTS_LIMIT_BYTES });
    if (result.code !== 0 || result.truncated || !result.stdoutBytes) throw this.failure("git cat-file", result);
    const bytes = result.stdoutBytes;
    let offset = 0;
    for (const spec of specs) {
      const newline = bytes.indexOf(10, offset);
      if (newline < 0) break;
      const header = bytes.subarray(offset, newline).toString("utf8");
      offset = newline + 1;
      const match = / (blob|tree|commit|tag) (\d+)$/.exec(header);
      if (!match) {
        found.set(spec, null);
        continue;
      }
      const size = Number(match[2]);
      found.set(spec, match[1] === "blob" ? bytes.subarray(offset, offset + size) : null);
      offset += size + 1;
    }
    return found;
  }

  private failure(label: string, result: CommandResult): ProductError {
    const why = result.timedOut ? "timed out" : result.truncated ? "printed more than drift reads" : commandFailureLine(result) || `exit ${result.code}`;
    return new ProductError("execution_failed", `${label} failed in ${this.root}: ${why}`);
  }
}
