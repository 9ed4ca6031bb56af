/**
 * One page's file evidence judged against what it was verified against: the stamp when
 * the product wrote one, else the page file's last commit. Pure over what the service has
 * already read (history, uncommitted paths, contents), so it costs no process per source.
 */
import { normalizeRefPath } from "../wiki/file-refs.js";
import { anchorLines, anchorRange, fileFingerprint, fileLines, formatLineRange, parseLineRange, type Anchor, type LineRange } from "../wiki/evidence.js";
import type { PageEvidence } from "../index/views/evidence.js";
import type { History } from "./history.js";
import type { PageDrift, PageStatus, SourceDrift } from "./types.js";

export type Content = Buffer | null | "unreadable";

export interface EvidenceContext {
  /** Null outside a git work tree (or before the first commit). */
  history: History | null;
  /** The repository root below the work tree's top: `""` or ending in `/`. */
  prefix: string;
  /** Paths (from the top) with uncommitted changes; empty when comparing with a commit. */
  uncommitted: ReadonlySet<string>;
  /** The content now (working tree or the compared commit) of a repository-relative path. */
  current(path: string): Content;
  /** The content of a path (from the top) at a commit, as read ahead through `baselineSpecs`. */
  at(commit: string, gitPath: string): Buffer | null;
}

type Source = PageEvidence["sources"][number];

/** The `<commit>:<path>` contents `judgePage` will ask for: unstamped line ranges, at the page's last commit. */
/** The page's sources that cite a file (folders are not judged), each with its repository-relative path. */
export function citedFiles(page: PageEvidence): { source: Source; path: string }[] {
  const files: { source: Source; path: string }[] = [];
  for (const source of page.sources) {
    const shape = normalizeRefPath(source.target);
    if (shape && !shape.isDir) files.push({ source, path: shape.shape });
  }
  return files;
}

export function baselineSpecs(page: PageEvidence, context: Pick<EvidenceContext, "history" | "prefix">): string[] {
  const { history, prefix } = context;
  if (!history) return [];
  const verified = history.lastTouch(`${prefix}almanac/${page.rel_path}`);
  if (verified === undefined) return [];
  const specs: string[] = [];
  for (const { source, path } of citedFiles(page)) {
    if (source.fingerprint === null && source.lines !== null) specs.push(`${history.commits[verified]}:${prefix}${path}`);
  }
  return specs;
}

export function judgePage(page: PageEvidence, context: EvidenceContext): PageDrift {
  const { history, prefix } = context;
  const pageCommit = history?.lastTouch(`${prefix}almanac/${page.rel_path}`);
  const sources = citedFiles(page).map(({ source, path }) => judgeSource(source, path, pageCommit, context));
  const stampedAt = page.sources.find((s) => s.verified_at !== null)?.verified_at ?? null;
  return {
    slug: page.slug,
    file: `almanac/${page.rel_path}`,
    status: pageStatus(sources),
    verified_at: pageCommit !== undefined && history ? history.commits[pageCommit]! : stampedAt,
    sources,
  };
}

export function pageStatus(sources: readonly SourceDrift[]): PageStatus {
  if (sources.some((s) => s.status === "changed" || s.status === "missing")) return "stale";
  if (sources.some((s) => s.status === "moved")) return "moved";
  if (sources.some((s) => s.status === "unknown")) return "unknown";
  return "fresh";
}

/**
 * What the source was verified against: a stamp's fingerprint (of its lines, or of the whole
 * file), the cited lines as they were at the page's commit, or only that commit.
 */
type Baseline = { commit: number | undefined; fingerprint: string | null; cited: string[] | null; range: LineRange | null };

/** A file's lines, split once per content: every source citing one file shares them (and the searches over them). */
const linesCache = new WeakMap<Buffer, string[]>();

function linesOf(content: Buffer): string[] {
  let lines = linesCache.get(content);
  if (!lines) linesCache.set(content, (lines = fileLines(content.toString("utf8"))));
  return lines;
}

function judgeSource(source: Source, path: string, pageCommit: number | undefined, context: EvidenceContext): SourceDrift {
  const result = (status: SourceDrift["status"], reason: string, extra: Partial<SourceDrift> = {}): SourceDrift => ({
    id: source.source_id,
    path,
    lines: source.lines,
    status,
    commits: [],
    reason,
    ...extra,
  });
  const range = source.lines === null ? null : rangeOf(source.lines);
  const baseline = baselineOf(source, path, range, pageCommit, context);
  if (baseline === "unknown") return result("unknown", "unstamped, and there is no git history to check it against");
  if (baseline === "uncommitted-page") return result("fresh", "the page is not committed yet: it is checked once it is");

  const where = locate(path, baseline.commit, context);
  const commits = changedCommits(path, where.path, baseline.commit, context);
  const shas = commits.map((at) => context.history!.commits[at]!);
  if (where.content === null) {
    return result("missing", where.path === path ? `${path} is gone` : `${path} was renamed to ${where.path}, which is gone`, { commits: shas });
  }
  if (where.content === "unreadable") return result("unknown", `${where.path} cannot be read`);
  const renamed = where.path !== path;
  const moved = (lines: string | null, why: string) => result("moved", why, { now: { path: where.path, lines } });
  const pastEnd = (cited: LineRange, count: number) =>
    result("missing", `lines ${formatLineRange(cited)} run past the end of ${where.path} (${count} line${count === 1 ? "" : "s"})`, { commits: shas });
  const changed = (what: string) => {
    const dirty = context.uncommitted.has(context.prefix + where.path);
    const why = shas.length > 0 ? `${what} changed in ${shas.length} commit${shas.length === 1 ? "" : "s"} since it was verified` : dirty ? `${what} has uncommitted changes` : `${what} differs from what was verified`;
    return result("changed", why, { commits: shas });
  };

  if (baseline.range !== null && (baseline.fingerprint !== null || baseline.cited !== null)) {
    const now = linesOf(where.content);
    const anchor: Anchor =
      baseline.cited !== null ? anchorLines(now, baseline.range, baseline.cited) : anchorRange(now, baseline.range, baseline.fingerprint!);
    if (anchor.status === "changed") return now.length < baseline.range.end ? pastEnd(baseline.range, now.length) : changed(`lines ${formatLineRange(baseline.range)} of ${path}`);
    const lines = anchor.status === "moved" ? formatLineRange(anchor.range) : source.lines;
    if (anchor.status === "moved") return moved(lines, `the cited lines moved to ${renamed ? `${where.path}:` : "lines "}${lines}`);
    return renamed ? moved(lines, `${path} was renamed to ${where.path}`) : result("fresh", "unchanged");
  }
  if (baseline.fingerprint !== null) {
    if (fileFingerprint(where.content) !== baseline.fingerprint) return changed(path);
    return renamed ? moved(null, `${path} was renamed to ${where.path}`) : result("fresh", "unchanged");
  }
  // Cited lines that are not there at all (the page cited past the end, or the file shrank).
  if (range !== null) {
    const count = linesOf(where.content).length;
    if (count < range.end) return pastEnd(range, count);
  }
  // Only the commit is known: any later change to the file, committed or not, is a change.
  const dirty = context.uncommitted.has(context.prefix + where.path);
  if (commits.length > 0 || dirty) return changed(path);
  return renamed ? moved(source.lines, `${path} was renamed to ${where.path}`) : result("fresh", "unchanged");
}

function rangeOf(lines: string): LineRange | null {
  const parsed = parseLineRange(lines);
  return "range" in parsed ? parsed.range : null;
}

function baselineOf(
  source: Source,
  path: string,
  range: LineRange | null,
  pageCommit: number | undefined,
  context: EvidenceContext,
): Baseline | "unknown" | "uncommitted-page" {
  const { history } = context;
  if (source.fingerprint !== null) {
    const commit = source.verified_at !== null ? history?.indexOf(source.verified_at) : undefined;
    return { commit, fingerprint: source.fingerprint, cited: null, range };
  }
  if (!history) return "unknown";
  if (pageCommit === undefined) return "uncommitted-page";
  if (range !== null) {
    const then = context.at(history.commits[pageCommit]!, context.prefix + path);
    const lines = then === null ? null : linesOf(then);
    if (lines !== null && range.end <= lines.length) return { commit: pageCommit, fingerprint: null, cited: lines.slice(range.start - 1, range.end), range };
  }
  return { commit: pageCommit, fingerprint: null, cited: null, range: null };
}

/** The cited file now: at its path, or where git's rename detection followed it since it was verified. */
function locate(path: string, verified: number | undefined, context: EvidenceContext): { path: string; content: Content } {
  const content = context.current(path);
  if (content !== null || !context.history || verified === undefined) return { path, content };
  const renamed = context.history.renamedSince(context.prefix + path, verified);
  if (!renamed || !renamed.path.startsWith(context.prefix)) return { path, content };
  const now = renamed.path.slice(context.prefix.length);
  return { path: now, content: context.current(now) };
}

function changedCommits(path: string, now: string, verified: number | undefined, context: EvidenceContext): number[] {
  const { history, prefix } = context;
  if (!history || verified === undefined) return [];
  const all = new Set(history.touchesSince(prefix + path, verified));
  if (now !== path) for (const at of history.touchesSince(prefix + now, verified)) all.add(at);
  return [...all].sort((a, b) => a - b);
}
