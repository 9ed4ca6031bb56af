import { similarityAtLeast } from "./similarity.js";

const MIN_SIMILARITY = 0.6;
const MAX_SUGGESTIONS = 3;

/**
 * Up to three names close to `wanted`, best first (ties: name order): spelled within the
 * similarity the CLI's slug suggestions use, or one containing the other. For errors a
 * model retries from, so the names are the ones the tool takes.
 */
export function closeNames(wanted: string, names: readonly string[]): string[] {
  const lower = wanted.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(names)) {
    const candidate = name.toLowerCase();
    if (candidate === lower) continue;
    let score = similarityAtLeast(lower, candidate, MIN_SIMILARITY);
    if (Math.min(lower.length, candidate.length) >= 3 && (candidate.includes(lower) || lower.includes(candidate))) score = Math.max(score, 0.8);
    if (score >= MIN_SIMILARITY) scored.push({ name, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
  return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.name);
}

/** ` (did you mean a, b?)`, or nothing. */
export function didYouMean(names: readonly string[]): string {
  return names.length > 0 ? ` (did you mean ${names.join(", ")}?)` : "";
}
