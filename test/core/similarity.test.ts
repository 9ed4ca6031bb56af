import { describe, expect, it } from "vitest";
import { similarity, similarityAtLeast } from "../../src/core/similarity.js";

/** A small deterministic generator, so a failure names its case. */
function* pairs(count: number): Generator<[string, string]> {
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const word = () => Array.from({ length: 1 + Math.floor(next() * 14) }, () => "abcdeé/-"[Math.floor(next() * 8)]).join("");
  for (let i = 0; i < count; i++) {
    const a = word();
    const b = next() < 0.5 ? word() : a.split("").reverse().join("").slice(0, Math.max(1, a.length - 1)) + (next() < 0.5 ? a[0] : "");
    yield [a, b];
  }
}

describe("similarityAtLeast", () => {
  it("equals similarity whenever that reaches the minimum, and is 0 otherwise", () => {
    for (const min of [0.4, 0.6, 0.8]) {
      for (const [a, b] of pairs(3000)) {
        const full = similarity(a, b);
        expect(similarityAtLeast(a, b, min), `${a} ~ ${b} at ${min}`).toBe(full >= min ? full : 0);
      }
    }
  });

  it("keeps the one-edit swap of neighbouring letters", () => {
    expect(similarityAtLeast("topcis", "topics", 0.6)).toBe(similarity("topcis", "topics"));
    expect(similarityAtLeast("topcis", "topics", 0.6)).toBeGreaterThan(0.8);
  });
});
