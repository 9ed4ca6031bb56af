import { similarityAtLeast } from "../../core/similarity.js";

const SUGGESTION_MIN = 0.6;

interface Suggestion {
  slug: string;
  score: number;
}

/**
 * The three slugs most like `wanted` scoring at least SUGGESTION_MIN (ties: slug order):
 * the did-you-mean of an unknown page. Once three are held, a candidate must reach the
 * third one's score, so most comparisons stop early.
 */
export function closestSlugs(slugs: readonly string[], wanted: string): string[] {
  const whole = new Letters(wanted.toLowerCase());
  const last = new Letters(whole.text.slice(whole.text.lastIndexOf("/") + 1));
  const best: Suggestion[] = [];
  const floor = { value: SUGGESTION_MIN };
  for (const slug of slugs) consider(best, floor, slug, whole, last);
  return best.map((s) => s.slug);
}

function consider(best: Suggestion[], floor: { value: number }, slug: string, whole: Letters, last: Letters): void {
  const lower = slug.toLowerCase();
  const tail = lower.slice(lower.lastIndexOf("/") + 1);
  const min = floor.value;
  // Each similarity is exact when it reaches the floor and 0 below it, so the score is
  // exact whenever the candidate can still make the list.
  let score = Math.max(
    last.mayReach(tail, min) ? similarityAtLeast(last.text, tail, min) : 0,
    whole.mayReach(lower, min) ? similarityAtLeast(whole.text, lower, min) : 0,
  );
  if (tail.includes(last.text) && last.text.length >= 3) score = Math.max(score, 0.8);
  if (score < min) return;
  best.push({ slug, score });
  best.sort((a, b) => b.score - a.score || (a.slug < b.slug ? -1 : 1));
  if (best.length > 3) best.pop();
  if (best.length === 3) floor.value = Math.max(SUGGESTION_MIN, best[2]!.score);
}

/**
 * A string's characters counted once, to bound its similarity to many others: a miss in a
 * 10,000-page wiki compares the wanted slug with every slug, in a process whose code is
 * still cold, so each comparison reads only the other string.
 */
class Letters {
  private readonly ascii: boolean;
  private readonly wanted = new Int32Array(128);
  private readonly taken = new Int32Array(128);
  /** Which comparison last set each character's `taken` (a generation, so nothing is cleared). */
  private readonly stamp = new Int32Array(128);
  private generation = 0;

  constructor(readonly text: string) {
    let ascii = true;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128) ascii = false;
      else this.wanted[c]!++;
    }
    this.ascii = ascii;
  }

  /**
   * False when `other` is surely less similar to this text than `min` (similarityAtLeast's
   * measure): the characters one string has and the other lacks (as multisets) each need an
   * edit, and a swap of neighbours changes none of them, so their count bounds the edits
   * from below. Linear, against the quadratic comparison it saves; strings beyond ASCII
   * are let through.
   */
  mayReach(other: string, min: number): boolean {
    const length = this.text.length;
    const allowed = Math.floor((1 - min) * Math.max(length, other.length) + 1e-9);
    if (Math.abs(length - other.length) > allowed) return false;
    if (!this.ascii) return true;
    const generation = ++this.generation;
    const { wanted, taken, stamp } = this;
    let unmatched = 0; // characters of `other` this text lacks
    for (let i = 0; i < other.length; i++) {
      const c = other.charCodeAt(i);
      if (c >= 128) return true;
      if (stamp[c] !== generation) {
        stamp[c] = generation;
        taken[c] = 0;
      }
      if (taken[c]! < wanted[c]!) taken[c]!++;
      else unmatched++;
    }
    const lacking = length - (other.length - unmatched); // characters of this text `other` lacks
    return Math.max(unmatched, lacking) <= allowed;
  }
}
