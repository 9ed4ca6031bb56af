/** What `ca drift` reports: each page's file evidence compared with what it was verified against. */

export const SOURCE_STATUSES = ["fresh", "moved", "changed", "missing", "unknown"] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

export const PAGE_STATUSES = ["fresh", "moved", "stale", "unknown"] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

export interface SourceDrift {
  id: string;
  /** The path the page cites (repository-relative). */
  path: string;
  /** The cited lines (`40-88`), or null for the whole file. */
  lines: string | null;
  status: SourceStatus;
  /** Commits that changed the cited evidence since it was verified, newest first. */
  commits: string[];
  /** One line saying why, for people (`moved to lines 52-100`, `uncommitted changes`). */
  reason: string;
  /** Where moved evidence is now: its new path and lines (for `--fix`). */
  now?: { path: string; lines: string | null };
}

export interface PageDrift {
  slug: string;
  /** The page file, relative to the repository root. */
  file: string;
  status: PageStatus;
  /** The commit the page's unstamped evidence was verified at (the last commit of the page file), or its stamps' commit. */
  verified_at: string | null;
  sources: SourceDrift[];
}

export interface DriftReport {
  /** The commit compared against (HEAD, or the `--ref`), null outside git. */
  head: string | null;
  /** Set when unstamped evidence cannot be judged here (no git work tree), said once. */
  notice: string | null;
  pages: PageDrift[];
}

export interface DriftRequest {
  /** Only these pages (slugs); every page when empty. */
  slugs?: readonly string[];
  /** Compare with this commit's content instead of the working tree. */
  ref?: string;
  /** Pull-request mode: only evidence changed between the merge base of this ref and HEAD. */
  base?: string;
}
