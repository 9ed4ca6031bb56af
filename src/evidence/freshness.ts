/**
 * What readers see of drift: each page's freshness (`show`, MCP's read_page and search, the
 * viewer) and the stale pages (`health`, `validate`). Every call makes one report, for the
 * pages it shows, never one per page.
 */
import { isProductError, oneLine } from "../core/errors.js";
import type { WikiIndex } from "../index/service.js";
import type { HealthReport } from "../index/views/health.js";
import { SEVERITY, type ValidationIssue } from "../index/views/validate.js";
import { staleReason } from "./json.js";
import type { DriftService, EvidenceSource } from "./service.js";
import type { PageDrift, PageStatus } from "./types.js";

/** A page's freshness as readers get it. */
export interface PageFreshness {
  status: PageStatus;
  /** One line saying why the page is not fresh (for a stale page, which cited code changed); null when fresh. */
  reason: string | null;
  /** The commit its evidence was verified at, null when unknown. */
  verified_at: string | null;
}

/** A stale page as `health` and `validate` list it. */
export interface StalePage {
  slug: string;
  reason: string;
}

/** The drift of the pages one read shows. */
export class PagesDrift {
  constructor(
    private readonly pages: ReadonlyMap<string, PageDrift>,
    /** Why drift could not be judged at all (a git read failed), or null. */
    private readonly failure: string | null,
  ) {}

  page(slug: string): PageDrift | undefined {
    return this.pages.get(slug);
  }

  freshness(slug: string): PageFreshness {
    const page = this.pages.get(slug);
    if (!page) return { status: "unknown", reason: this.failure, verified_at: null };
    return { status: page.status, reason: reasonOf(page), verified_at: page.verified_at };
  }
}

/**
 * The drift of the named pages, from one report. Readers never fail for drift's sake: a
 * report that cannot be made (git timed out, say) leaves every page `unknown`, with why;
 * outside git the report itself says `unknown` for unstamped evidence.
 */
export async function readDrift(drift: DriftService, wiki: EvidenceSource, slugs: readonly string[]): Promise<PagesDrift> {
  // An empty list would mean every page to the report.
  if (slugs.length === 0) return new PagesDrift(new Map(), null);
  try {
    const report = await drift.report(wiki, { slugs });
    return new PagesDrift(new Map(report.pages.map((page) => [page.slug, page])), null);
  } catch (error) {
    if (!isProductError(error)) throw error;
    return new PagesDrift(new Map(), `drift could not be checked: ${oneLine(error)}`);
  }
}

/** Every stale page of the wiki, by slug; outside git only stamped evidence can make one (unknown is not stale). */
export async function stalePages(drift: DriftService, wiki: EvidenceSource): Promise<StalePage[]> {
  const report = await drift.report(wiki);
  return report.pages.flatMap((page) => (page.status === "stale" ? [{ slug: page.slug, reason: staleReason(page) ?? "its cited code changed" }] : []));
}

/** The index's health findings and the stale pages, which only drift (git) can find. */
/**
 * The health report, its stale pages, and `other_findings`: every problem `validate` reports
 * that has no section of its own here (undeclared topics, invalid front matter, secrets, …),
 * so health never says all is well while validate disagrees.
 */
export type HealthFindings = HealthReport & { stale_pages: StalePage[]; other_findings: ValidationIssue[] };

/** `extra`: issues the caller scanned for itself (`secret_found`, which needs the user's privacy rules). */
export async function healthFindings(drift: DriftService, index: WikiIndex, extra: readonly ValidationIssue[] = []): Promise<HealthFindings> {
  const report = await index.health();
  const sections = new Set<string>([...Object.keys(report), "stale_pages"]);
  const other = [...(await index.issues()), ...extra].filter((issue) => !sections.has(issue.category));
  return { ...report, stale_pages: await stalePages(drift, index), other_findings: other };
}

/** The index's validation findings, then each stale page as a warning (so only `--strict` fails on them). */
export async function validationIssues(drift: DriftService, index: WikiIndex): Promise<ValidationIssue[]> {
  const issues = await index.issues();
  return [...issues, ...staleIssues(await stalePages(drift, index))];
}

function staleIssues(pages: readonly StalePage[]): ValidationIssue[] {
  return pages.map((page) => ({
    category: "stale_pages",
    severity: SEVERITY.stale_pages ?? "error",
    message: `stale: ${page.reason}`,
    page: page.slug,
    topic: null,
    path: null,
  }));
}

/** The first source that makes the page what it is: changed or missing for stale, moved for moved, unknown for unknown. */
function reasonOf(page: PageDrift): string | null {
  if (page.status === "stale") return staleReason(page);
  if (page.status === "fresh") return null;
  return page.sources.find((source) => source.status === page.status)?.reason ?? null;
}
