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
import { trace } from "../core/trace.js";
import type { PageEvidence } from "../index/views/evidence.js";
import type { WikiIndex } from "../index/service.js";
import type { Reanchor, ReanchorReport } from "../index/stamp-evidence.js";
import { GitReader, type WorkTree } from "./git.js";
import { WorkTrees } from "./work-trees.js";
import { DriftCache, fileState } from "./cache.js";
import { historyLog } from "./history-cache.js";
import { History } from "./history.js";
import { baselineSpecs, citedFiles, judgePage, pageStatus, type Content, type EvidenceContext } from "./judge.js";
import type { DriftReport, DriftRequest, PageDrift } from "./types.js";

/** Up to this many pages to judge, `git status` is asked about their files only. */
const FEW_PAGES = 50;

/** A cited file larger than this is not read; its evidence is `unknown`. */
const CITED_FILE_LIMIT = 32 * 1024 * 1024;

export interface EvidenceSource {
  repository: { rootPath: string; repositoryId: string };
  evidence(slugs?: readonly string[]): Promise<PageEvidence[]>;
  evidenceDigests(slugs?: readonly string[]): Promise<Map<string, string>>;
}

export interface DriftDeps {
  commands: CommandRunner;
  env: NodeJS.ProcessEnv;
  /** Where a wiki's drift cache lives (beside its index, under the state root). */
  cacheFile: (repository: { repositoryId: string }) => string;
  /** Where its history walk is kept. */
  historyFile: (repository: { repositoryId: string }) => string;
}

/** The repository-relative files a page cites (folders are not judged). */
function citedPaths(page: PageEvidence): string[] {
  return citedFiles(page).map((file) => file.path);
}

export class DriftService {
  private readonly workTrees = new WorkTrees();

  constructor(private readonly deps: DriftDeps) {}

  async report(wiki: EvidenceSource, request: DriftRequest = {}): Promise<DriftReport> {
    const root = wiki.repository.rootPath;
    const git = new GitReader(this.deps.commands, this.deps.env, root);
    // git starts first and runs while the index refreshes (reading the digests does that).
    const asked = this.workTrees.find(git, root);
    const digests = await wiki.evidenceDigests(request.slugs ?? []);
    const tree = await asked;
    trace("drift: work tree found");
    if (tree?.head && request.ref === undefined && request.base === undefined) {
      return this.workingTreeReport(git, tree as WorkTree & { head: string }, wiki, request.slugs ?? [], digests);
    }
    const pages = await wiki.evidence(request.slugs ?? []);
    if (!tree || !tree.head) {
      if (request.ref !== undefined || request.base !== undefined) {
        const flag = request.base !== undefined ? "--base" : "--ref";
        throw invalid(`${flag} needs a git repository with commits: ${root} has none`);
      }
      return this.outsideGit(root, pages, git.missing ? "git is not on PATH" : tree === null ? "not a git work tree" : "no commit yet");
    }
    const compared = request.base !== undefined ? tree.head : await git.resolve(request.ref!, "--ref");
    const base = request.base !== undefined ? await git.resolve(request.base, "--base") : null;
    const history = History.parse(await git.log(compared));
    const current = await this.atCommit(git, compared, tree.prefix, pages, history);
    let judged = await this.judge(git, history, tree.prefix, new Set(), current, pages);
    if (base !== null) judged = await this.onlyChangedSince(git, base, tree.head, history, tree.prefix, judged);
    return { head: compared, notice: null, pages: judged };
  }

  /**
   * The working tree against HEAD, through the cache: only pages whose inputs changed are
   * judged, and when none did, neither their sources nor git's history are read.
   */
  private async workingTreeReport(git: GitReader, tree: WorkTree & { head: string }, wiki: EvidenceSource, slugs: readonly string[], digests: ReadonlyMap<string, string>): Promise<DriftReport> {
    const root = wiki.repository.rootPath;
    const cache = new DriftCache(this.deps.cacheFile(wiki.repository), root, { head: tree.head, gitIndex: fileState(join(tree.gitDir, "index")) });
    trace("drift: cache read");
    const known = new Map<string, PageDrift>();
    const pending: string[] = [];
    for (const [slug, digest] of digests) {
      const hit = cache.lookup(slug, digest);
      if (hit) known.set(slug, hit);
      else pending.push(slug);
    }
    trace(`drift: ${known.size} pages from the cache`);
    if (pending.length > 0) {
      const pages = await wiki.evidence(pending.length === digests.size && slugs.length === 0 ? [] : pending);
      // Each file's state is taken before it is read, so an edit while we read shows up next time.
      for (const page of pages) for (const path of citedPaths(page)) cache.state(path);
      const history = History.parse(await historyLog(git, tree.head, this.deps.historyFile(wiki.repository)));
      trace("drift: history read");
      // A few pages (show, MCP's read_page): git checks only the files they involve.
      const few = pending.length <= FEW_PAGES ? pages.flatMap((page) => [`almanac/${page.rel_path}`, ...citedPaths(page)]) : undefined;
      const uncommitted = await git.uncommitted(few);
      const current = workingTree(root, (path) => cache.state(path));
      for (const drift of await this.judge(git, history, tree.prefix, uncommitted, current, pages)) {
        known.set(drift.slug, drift);
        cache.store(digests.get(drift.slug)!, drift);
      }
      if (slugs.length === 0) cache.keepOnly(new Set(digests.keys()));
      cache.save();
    }
    return { head: tree.head, notice: null, pages: [...digests.keys()].map((slug) => known.get(slug)!) };
  }

  private async judge(
    git: GitReader,
    history: History,
    prefix: string,
    uncommitted: ReadonlySet<string>,
    current: (path: string) => Content,
    pages: PageEvidence[],
  ): Promise<PageDrift[]> {
    const specs = pages.flatMap((page) => baselineSpecs(page, { history, prefix }));
    const baselines = await git.contents([...new Set(specs)]);
    trace("drift: contents read");
    const context: EvidenceContext = { history, prefix, uncommitted, current, at: (commit, gitPath) => baselines.get(`${commit}:${gitPath}`) ?? null };
    const judged = pages.map((page) => judgePage(page, context));
    trace("drift: judged");
    return judged;
  }

  /**
   * `ca drift --fix`: re-anchors every moved source (new lines, new path after a rename, a new
   * stamp of what it cites now) without an agent. Changed and missing sources are left alone.
   */
  async fix(wiki: WikiIndex, slugs: readonly string[] = []): Promise<{ head: string | null; fixed: ReanchorReport["fixed"]; unstamped: ReanchorReport["unstamped"] }> {
    const report = await this.report(wiki, { slugs });
    const moves: Reanchor[] = report.pages
      .map((page) => ({ slug: page.slug, sources: page.sources.flatMap((s) => (s.status === "moved" && s.now ? [{ id: s.id, path: s.path, now: s.now }] : [])) }))
      .filter((move) => move.sources.length > 0);
    if (moves.length === 0) return { head: report.head, fixed: [], unstamped: [] };
    const { reanchorEvidence } = await import("../index/stamp-evidence.js");
    const result = await reanchorEvidence(wiki, moves, report.head);
    return { head: report.head, ...result };
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
      for (const path of citedPaths(page)) {
        paths.add(path);
        for (const target of history.renameTargets(prefix + path)) if (target.startsWith(prefix)) paths.add(target.slice(prefix.length));
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
function workingTree(root: string, beforeRead: (path: string) => void = () => undefined): (path: string) => Content {
  let realRoot: string | null = null;
  const read = new Map<string, Content>();
  return (path) => {
    let content = read.get(path);
    if (content === undefined) {
      beforeRead(path);
      read.set(path, (content = readCited(path)));
    }
    return content;
  };
  function readCited(path: string): Content {
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
  }
}
