import { kebab } from "../core/kebab.js";

/** A front-matter `topics` value as the page means it: kebab-cased, non-empty, distinct, in order. */
export function normalizeTopicList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const topics: string[] = [];
  for (const item of value) {
    if (typeof item !== "string") continue;
    const slug = kebab(item);
    if (slug !== "" && !topics.includes(slug)) topics.push(slug);
  }
  return topics;
}
