import type { DriftReport, PageDrift, SourceDrift } from "./types.js";

/** A page's drift as every surface prints it (`ca drift --json`, MCP, the viewer). */
export function pageDriftJson(page: PageDrift) {
  return {
    slug: page.slug,
    status: page.status,
    verified_at: page.verified_at,
    sources: page.sources.map((s) => ({ id: s.id, path: s.path, lines: s.lines, status: s.status, commits: s.commits, reason: s.reason })),
  };
}

/** `pages` holds what was asked for: the drifting pages, or every page with `all`. */
export function driftJson(report: DriftReport, options: { all: boolean }) {
  return {
    head: report.head,
    ...(report.notice !== null ? { notice: report.notice } : {}),
    pages: report.pages.filter((page) => options.all || page.status !== "fresh").map(pageDriftJson),
  };
}

/** One line naming why a page is stale, for `show` and search results. */
export function staleReason(page: PageDrift): string | null {
  const worst = page.sources.find((s) => s.status === "changed" || s.status === "missing");
  if (!worst) return null;
  const more = page.sources.filter((s) => s.status === "changed" || s.status === "missing").length - 1;
  return `${worst.reason}${more > 0 ? ` (and ${more} more source${more === 1 ? "" : "s"})` : ""}`;
}

/** A source that knows how many commits it has without listing them (one read back from the cache). */
export interface CountedCommits {
  readonly commitCount: number;
  newest(n: number): string[];
}

function counted(source: SourceDrift): source is SourceDrift & CountedCommits {
  return typeof (source as Partial<CountedCommits>).newest === "function";
}

/** How many commits changed a source, and the newest `n`, without listing every one when the source can count them. */
export function newestCommits(source: SourceDrift, n: number): { total: number; newest: string[] } {
  if (counted(source)) return { total: source.commitCount, newest: source.commitCount === 0 ? [] : source.newest(n) };
  return { total: source.commits.length, newest: source.commits.slice(0, n) };
}
