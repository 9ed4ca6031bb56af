/**
 * `ca drift`: which pages the code has moved under. Reads the wiki's file sources from its
 * index, and git in batches (one history walk, one status, one `cat-file --batch` for
 * contents at commits), never a process per page or source.
 */
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { CommandRunner } from "../core/command.js";
import { invalid } from "../core/errors.js";
import { isPathInside } from "../core/fs.js";
import type { PageEvidence } from "../index/views/evidence.js";
import { normalizeRefPath } from "../wiki/file-refs.js";
import { GitReader } from "./git.js";
import { History } from "./history.js";
import { baselineSpecs, judgePage, pageStatus, type Content, type EvidenceContext } from "./judge.js";
import type { DriftReport, DriftRequest, PageDrift } from "./types.js";

/** A cited file larger than this is not read; its evidence is `unknown`. */
const CITED_FILE_LIMIT = 32 * 1024 * 1024;

export interface EvidenceSource {
  repository: { rootPath: string };
  evidence(slugs?: readonly string[]): Promise<PageEvidence[]>;
}

export interface DriftDeps {
  commands: CommandRunner;
  env: NodeJS.ProcessEnv;
}

export class DriftService {
  constructor(private readonly deps: DriftDeps) {}

  async report(wiki: EvidenceSource, request: DriftRequest = {}): Promise<DriftReport> {
    const root = wiki.repository.rootPath;
    const pages = await wiki.evidence(request.slugs ?? []);
    const git = new GitReader(this.deps.commands, this.deps.env, root);
    const tree = await git.workTree();
    if (!tree || !tree.head) {
      if (request.ref !== undefined || request.base !== undefined) {
        const flag = request.base !== undefined ? "--base" : "--ref";
        throw invalid(`${flag} needs a git repository with commits: ${root} has none`);
      }
      return this.outsideGit(root, pages, tree === null ? "not a git work tree" : "no commit yet");
    }
    const compared = request.base !== undefined ? tree.head : request.ref !== undefined ? await git.resolve(request.ref, "--ref") : null;
    const base = request.base !== undefined ? await git.resolve(request.base, "--base") : null;
    const history = History.parse(await git.log(compared ?? tree.head));
    const uncommitted = compared === null ? await git.uncommitted() : new Set<string>();
    const current = compared === null ? workingTree(root) : await this.atCommit(git, compared, tree.prefix, pages, history);
    const specs = pages.flatMap((page) => baselineSpecs(page, { history, prefix: tree.prefix }));
    const baselines = await git.contents([...new Set(specs)]);
    const context: EvidenceContext = {
      history,
      prefix: tree.prefix,
      uncommitted,
      current,
      at: (commit, gitPath) => baselines.get(`${commit}:${gitPath}`) ?? null,
    };
    let judged = pages.map((page) => judgePage(page, context));
    if (base !== null) judged = await this.onlyChangedSince(git, base, tree.head, history, tree.prefix, judged);
    return { head: compared ?? tree.head, notice: null, pages: judged };
  }

  /** Outside git, stamps still hold; unstamped evidence is `unknown`, and the report says why once. */
  private outsideGit(root: string, pages: PageEvidence[], why: string): DriftReport {
    const context: EvidenceContext = { history: null, prefix: "", uncommitted: new Set(), current: workingTree(root), at: () => null };
    const judged = pages.map((page) => judgePage(page, context));
    const unstamped = judged.some((page) => page.sources.some((s) => s.status === "unknown"));
    return {
      head: null,
      notice: unstamped ? `${root}: ${why}, so only stamped evidence can be checked; unstamped sources are unknown` : null,
      pages: judged,
    };
  }

  /** Contents at a commit for every cited path and every path git renamed one to, in one batch. */
  private async atCommit(git: GitReader, commit: string, prefix: string, pages: PageEvidence[], history: History): Promise<(path: string) => Content> {
    const paths = new Set<string>();
    for (const page of pages) {
      for (const source of page.sources) {
        const shape = normalizeRefPath(source.target);
        if (!shape || shape.isDir) continue;
        paths.add(shape.shape);
        for (const target of history.renameTargets(prefix + shape.shape)) if (target.startsWith(prefix)) paths.add(target.slice(prefix.length));
      }
    }
    const list = [...paths];
    const found = await git.contents(list.map((path) => `${commit}:${prefix}${path}`));
    return (path) => found.get(`${commit}:${prefix}${path}`) ?? null;
  }

  /** Pull-request mode: keep the sources whose files the commits since the merge base touched, and the pages drifting through them. */
  private async onlyChangedSince(git: GitReader, base: string, head: string, history: History, prefix: string, pages: PageDrift[]): Promise<PageDrift[]> {
    const mergeBase = await git.mergeBase(base, head);
    const at = mergeBase === null ? undefined : history.indexOf(mergeBase);
    const since = at === undefined ? new Set(history.commits.map((_, i) => i)) : history.commitsNotIn(at);
    const touched = (path: string) => history.touchedBy(prefix + path, since);
    return pages
      .map((page) => ({ ...page, sources: page.sources.filter((s) => s.status !== "fresh" && (touched(s.path) || (s.now !== undefined && touched(s.now.path)))) }))
      .filter((page) => page.sources.length > 0)
      .map((page) => ({ ...page, status: pageStatus(page.sources) }));
  }
}

/** Reads a cited file from the working tree; a path that leaves the repository through a link is never read. */
function workingTree(root: string): (path: string) => Content {
  let realRoot: string | null = null;
  return (path) => {
    const full = join(root, path);
    try {
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) {
        realRoot ??= realpathSync(root);
        if (!isPathInside(realpathSync(full), realRoot)) return "unreadable";
      } else if (!stat.isFile()) {
        return null;
      }
      if (stat.size > CITED_FILE_LIMIT) return "unreadable";
      return readFileSync(full);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === "ENOENT" || code === "ENOTDIR" ? null : "unreadable";
    }
  };
}
