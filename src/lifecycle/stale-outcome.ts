/**
 * How a `garden --stale` run's targeted pages came out (almanac/architecture/evidence.md,
 * "Upkeep"): each page in exactly one list, and "left stale" wins over the others, since a
 * page whose evidence still drifts is not verified, whatever the agent did to it.
 */
import type { PageChanges, StalePagesOutcome } from "../runs/model.js";
import type { UnstampedSource } from "../index/stamp-evidence.js";

export interface StaleTarget {
  slug: string;
  /** The ids of the sources drift called changed or missing when the run started. */
  staleSources: readonly string[];
}

/** The targeted pages the agent neither rewrote nor removed: the run stamps them as confirmed. */
export function uneditedTargets(targets: readonly StaleTarget[], changes: PageChanges): string[] {
  const touched = new Set([...changes.updated, ...changes.deleted]);
  return targets.map((target) => target.slug).filter((slug) => !touched.has(slug));
}

export interface StaleFacts {
  targets: readonly StaleTarget[];
  changes: PageChanges;
  /** Pages drift calls stale after the stamp and the commit. */
  stillStale: ReadonlySet<string>;
  /** What the stamp could not stamp: a stale source among them keeps its page stale. */
  unstamped: readonly UnstampedSource[];
  noLongerStale: readonly string[];
}

export function staleOutcome(facts: StaleFacts): StalePagesOutcome {
  const slugs = facts.targets.map((target) => target.slug);
  const edited = new Set([...facts.changes.updated, ...facts.changes.deleted]);
  const staleSources = new Map(facts.targets.map((target) => [target.slug, new Set(target.staleSources)]));
  const left = new Set(facts.stillStale);
  // An unstamped range is judged against the page's new commit, where lines past the end no
  // longer count as a change: the stamp's own report is what says the evidence is still gone.
  for (const miss of facts.unstamped) if (miss.source !== null && staleSources.get(miss.page)?.has(miss.source)) left.add(miss.page);
  return {
    targeted: slugs,
    confirmed: slugs.filter((slug) => !left.has(slug) && !edited.has(slug)),
    corrected: slugs.filter((slug) => !left.has(slug) && edited.has(slug)),
    left_stale: slugs.filter((slug) => left.has(slug)),
    no_longer_stale: [...facts.noLongerStale],
  };
}
