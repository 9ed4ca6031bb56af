import { clip, clipText } from "../../core/bounded.js";
import type { WikiSummary } from "../../index/views/summary.js";
import type { ValidationIssue } from "../../index/views/validate.js";
import { fitToBudget } from "./budget.js";
import { digest, groupIssues, type FindingDigest, type IssueGroup } from "./findings.js";

/**
 * What a garden run is told about the wiki before it starts: the graph summary and the
 * validation findings the runner already collected for its baseline (so nothing is
 * refreshed or validated twice), cut to fit the prompt budget. Every cut list says how
 * much it left out.
 */
export interface GardenContext {
  wiki: WikiSummary;
  findings: FindingDigest;
}

export interface GardenContextInput {
  summary: WikiSummary;
  issues: readonly ValidationIssue[];
  budgetChars: number;
}

interface Squeeze {
  samplesPerCategory: number;
  summaryItems: number;
  categories: number;
}

const ALL = Number.POSITIVE_INFINITY;

/**
 * From richest to leanest. Finding samples shrink first, because their counts stay exact
 * and the agent can list them in full; the graph summary's lists go next, the per-category
 * counts last.
 */
const SQUEEZES: Squeeze[] = [
  { samplesPerCategory: 10, summaryItems: ALL, categories: ALL },
  { samplesPerCategory: 5, summaryItems: ALL, categories: ALL },
  { samplesPerCategory: 3, summaryItems: ALL, categories: ALL },
  { samplesPerCategory: 3, summaryItems: 10, categories: ALL },
  { samplesPerCategory: 2, summaryItems: 5, categories: ALL },
  { samplesPerCategory: 1, summaryItems: 5, categories: ALL },
  { samplesPerCategory: 1, summaryItems: 3, categories: ALL },
  { samplesPerCategory: 1, summaryItems: 1, categories: ALL },
  { samplesPerCategory: 0, summaryItems: 1, categories: ALL },
  { samplesPerCategory: 0, summaryItems: 0, categories: ALL },
  { samplesPerCategory: 0, summaryItems: 0, categories: 10 },
  { samplesPerCategory: 0, summaryItems: 0, categories: 3 },
  { samplesPerCategory: 0, summaryItems: 0, categories: 0 },
];

const TITLE_CHARS = 120;

/** Throws a RangeError only when even the bare counts exceed the budget. */
export function gardenContext({ summary, issues, budgetChars }: GardenContextInput): GardenContext {
  const groups = groupIssues(issues);
  const titled = clipTitles(summary);
  return fitToBudget(budgetChars, candidates(titled, groups));
}

function* candidates(summary: WikiSummary, groups: IssueGroup[]): Generator<GardenContext> {
  for (const squeeze of SQUEEZES) {
    yield {
      wiki: clipSummary(summary, squeeze.summaryItems),
      findings: digest(groups, { samplesPerCategory: squeeze.samplesPerCategory, categories: squeeze.categories }),
    };
  }
}

function clipSummary(summary: WikiSummary, items: number): WikiSummary {
  return {
    pages: summary.pages,
    topics: summary.topics,
    largest_topics: clip(summary.largest_topics, items),
    most_linked_pages: clip(summary.most_linked_pages, items),
    pages_without_inbound_links: clip(summary.pages_without_inbound_links, items),
    pages_without_topics: clip(summary.pages_without_topics, items),
    recently_changed: clip(summary.recently_changed, items),
    pages_with_broken_links: clip(summary.pages_with_broken_links, items),
  };
}

/** A page title is free text and could be any length; slugs identify the page anyway. */
function clipTitles(summary: WikiSummary): WikiSummary {
  const short = <T extends { title: string }>(item: T): T => ({ ...item, title: clipText(item.title, TITLE_CHARS) });
  const each = <T extends { title: string }>(list: { total: number; omitted: number; items: T[] }) => ({
    ...list,
    items: list.items.map(short),
  });
  return {
    ...summary,
    largest_topics: each(summary.largest_topics),
    most_linked_pages: each(summary.most_linked_pages),
    pages_without_inbound_links: each(summary.pages_without_inbound_links),
    pages_without_topics: each(summary.pages_without_topics),
    recently_changed: each(summary.recently_changed),
    pages_with_broken_links: each(summary.pages_with_broken_links),
  };
}
