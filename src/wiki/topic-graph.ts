import type { TopicDef } from "./types.js";

/** Parent lists by slug, duplicates unioned; a pure function of the definitions. */
function parentMap(topics: readonly TopicDef[]): Map<string, string[]> {
  const parents = new Map<string, string[]>();
  for (const topic of topics) {
    const list = parents.get(topic.slug) ?? [];
    for (const parent of topic.parents) if (!list.includes(parent)) list.push(parent);
    parents.set(topic.slug, list);
  }
  return parents;
}

/** Every topic reachable by following parent edges from `slug` (not `slug` itself unless on a cycle). */
export function ancestorsOf(topics: readonly TopicDef[], slug: string): Set<string> {
  const parents = parentMap(topics);
  const seen = new Set<string>();
  const pending = [...(parents.get(slug) ?? [])];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...(parents.get(next) ?? []));
  }
  return seen;
}

/** Enumerating elementary cycles is exponential in the worst case; a report needs only the first ones. */
const MAX_CYCLES = 1000;

/**
 * Every elementary cycle of the parent graph, once each. A cycle is listed from
 * its alphabetically smallest topic, each topic followed by its parent on the
 * cycle (`[a, b]`: a's parent is b and b's parent is a); a self-parent is `[x]`.
 * Cycles are ordered by start topic, then by the sorted order of parents walked.
 */
export function findCycles(topics: readonly TopicDef[]): string[][] {
  const parents = parentMap(topics);
  const nodes = [...new Set([...parents.keys(), ...[...parents.values()].flat()])].sort();
  const rank = new Map(nodes.map((slug, index) => [slug, index]));
  const sortedParents = (slug: string) => [...(parents.get(slug) ?? [])].sort();
  const cycles: string[][] = [];

  for (const start of nodes) {
    const startRank = rank.get(start) ?? 0;
    const path = [start];
    const onPath = new Set(path);
    // Only topics ranked above the start may appear, so each cycle is found from its smallest topic only.
    const walk = (slug: string): void => {
      for (const parent of sortedParents(slug)) {
        if (cycles.length >= MAX_CYCLES) return;
        if (parent === start) cycles.push([...path]);
        else if ((rank.get(parent) ?? 0) > startRank && !onPath.has(parent)) {
          path.push(parent);
          onPath.add(parent);
          walk(parent);
          path.pop();
          onPath.delete(parent);
        }
      }
    };
    walk(start);
  }
  return cycles;
}
