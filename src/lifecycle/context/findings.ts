import { bounded, clipText, type Bounded } from "../../core/bounded.js";
import type { Severity, ValidationIssue } from "../../index/views/validate.js";

/**
 * Validation findings grouped for a prompt: every category with its full count, and a
 * few examples of each. A large unhealthy wiki can have tens of thousands of findings;
 * the agent needs their shape and where to start, and can list the rest itself.
 */

export interface Finding {
  message: string;
  page?: string;
  topic?: string;
  path?: string;
}

export interface FindingGroup {
  category: string;
  severity: Severity;
  count: number;
  omitted: number;
  samples: Finding[];
}

export interface FindingDigest {
  total: number;
  errors: number;
  warnings: number;
  shown: number;
  omitted: number;
  /** True only when every finding is in the samples. */
  complete: boolean;
  full_list: string;
  categories: Bounded<FindingGroup>;
}

export interface DigestLimits {
  samplesPerCategory: number;
  categories: number;
}

export const FULL_LIST_HINT =
  "Samples are partial when omitted > 0. `codealmanac validate --json` lists every finding; " +
  "`codealmanac health --json` lists the graph findings (orphans, broken links, dead refs, sources).";

const MESSAGE_CHARS = 240;

export interface IssueGroup {
  category: string;
  severity: Severity;
  issues: ValidationIssue[];
}

/** Groups once; the digest is then cut to any limits without touching the issues again. */
export function groupIssues(issues: readonly ValidationIssue[]): IssueGroup[] {
  const groups = new Map<string, IssueGroup>();
  for (const issue of issues) {
    const key = `${issue.severity}\u0000${issue.category}`;
    const group = groups.get(key);
    if (group) group.issues.push(issue);
    else groups.set(key, { category: issue.category, severity: issue.severity, issues: [issue] });
  }
  return [...groups.values()].sort(errorsFirst);
}

export function digest(groups: readonly IssueGroup[], limits: DigestLimits): FindingDigest {
  const total = groups.reduce((n, g) => n + g.issues.length, 0);
  const errors = groups.filter((g) => g.severity === "error").reduce((n, g) => n + g.issues.length, 0);
  const shownGroups = groups.slice(0, Math.max(0, limits.categories)).map((g) => sampleGroup(g, limits.samplesPerCategory));
  const shown = shownGroups.reduce((n, g) => n + g.samples.length, 0);
  return {
    total,
    errors,
    warnings: total - errors,
    shown,
    omitted: total - shown,
    complete: shown === total,
    full_list: FULL_LIST_HINT,
    categories: bounded(shownGroups, groups.length),
  };
}

function sampleGroup(group: IssueGroup, samples: number): FindingGroup {
  const kept = group.issues.slice(0, Math.max(0, samples)).map(toFinding);
  return {
    category: group.category,
    severity: group.severity,
    count: group.issues.length,
    omitted: group.issues.length - kept.length,
    samples: kept,
  };
}

/** Null locations are dropped rather than printed, to spend the budget on findings. */
function toFinding(issue: ValidationIssue): Finding {
  const finding: Finding = { message: clipText(issue.message, MESSAGE_CHARS) };
  if (issue.page !== null) finding.page = issue.page;
  if (issue.topic !== null) finding.topic = issue.topic;
  if (issue.path !== null) finding.path = issue.path;
  return finding;
}

function errorsFirst(a: IssueGroup, b: IssueGroup): number {
  if (a.severity !== b.severity) return a.severity === "error" ? -1 : 1;
  return b.issues.length - a.issues.length || (a.category < b.category ? -1 : a.category > b.category ? 1 : 0);
}
