import { describe, expect, test } from "vitest";
import { similarity } from "../../src/core/similarity.js";
import { closestSlugs } from "../../src/index/views/slug-suggestions.js";

/** The suggestions by definition: every slug scored exactly, the best three of at least 0.6 (ties: slug order). */
function reference(slugs: string[], wanted: string): string[] {
  const whole = wanted.toLowerCase();
  const last = whole.slice(whole.lastIndexOf("/") + 1);
  return slugs
    .map((slug) => {
      const lower = slug.toLowerCase();
      const tail = lower.slice(lower.lastIndexOf("/") + 1);
      const score = Math.max(similarity(last, tail), similarity(whole, lower), tail.includes(last) && last.length >= 3 ? 0.8 : 0);
      return { slug, score };
    })
    .filter((s) => s.score >= 0.6)
    .sort((a, b) => b.score - a.score || (a.slug < b.slug ? -1 : 1))
    .slice(0, 3)
    .map((s) => s.slug);
}

/** A small deterministic generator, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

describe("did-you-mean slugs", () => {
  test("are the best three by exact score: the floor and the character count prune no candidate that could make the list", () => {
    const next = random(7);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    const word = () => Array.from({ length: 2 + Math.floor(next() * 7) }, () => pick([..."abcde-"])).join("");
    for (let trial = 0; trial < 300; trial++) {
      const folders = ["", "a/", "ab/", "Guides/", "guides/deep/", "ab/c/"];
      const slugs = [...new Set(Array.from({ length: 150 }, () => pick(folders) + word()))];
      const base = pick(slugs);
      const edits = [
        () => base.slice(0, -1),
        () => base + pick([..."abc"]),
        () => base.toUpperCase(),
        () => pick(folders) + base.slice(base.lastIndexOf("/") + 1),
        () => base.replace(/.$/, "z"),
        () => word(),
      ];
      const wanted = pick(edits)();
      expect(closestSlugs(slugs, wanted), `${wanted} among ${slugs.join(" ")}`).toEqual(reference(slugs, wanted));
    }
  });
});
