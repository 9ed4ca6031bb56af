import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { decodeInto, type Postings } from "../../src/index/postings.js";
import { decodeTerms, walkSections, type TermRow, type WordPostings } from "../../src/index/postings-decoder.js";
import { decodeTermsInJavaScript, walkSectionsInJavaScript } from "../../src/index/postings-fallback.js";
import { ROOT } from "../support/cli.js";
import { seededRandom } from "../support/random.js";

/**
 * Search decodes and walks postings in WebAssembly (src/index/postings.wat). These hold it
 * to JavaScript, exactly: to the writer's decoder (`decodeInto`) for the postings, and to
 * the fallback for a Node without WebAssembly (the code it replaced) for the postings and
 * every score, bit for bit.
 */

const SEGMENT_ROWIDS = 256 * 4096;

function varint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** A row's blob as the writer encodes it: rowid distance, weight, length, a posting. */
function blob(segment: number, postings: [rowid: number, weight: number, length: number][]): Buffer {
  const bytes: number[] = [];
  let previous = segment * SEGMENT_ROWIDS;
  for (const [rowid, weight, length] of postings) {
    varint(bytes, rowid - previous);
    varint(bytes, weight);
    varint(bytes, length);
    previous = rowid;
  }
  return Buffer.from(bytes);
}

/** A term's rows: a few segments, each with sorted postings, some values needing several varint bytes. */
function termRows(next: () => number, shared: number[]): { rows: TermRow[]; segments: [number, Buffer][] } {
  const segments: [number, Buffer][] = [];
  for (let segment = 0; segment < 4; segment++) {
    if (next() < 0.25) continue;
    const rowids = new Set<number>();
    for (const rowid of shared) if (Math.floor(rowid / SEGMENT_ROWIDS) === segment && next() < 0.5) rowids.add(rowid);
    for (let i = Math.floor(next() * 60); i > 0; i--) rowids.add(segment * SEGMENT_ROWIDS + Math.floor(next() * SEGMENT_ROWIDS));
    const sorted = [...rowids].sort((a, b) => a - b);
    // Some segments draw from a handful of values, so sections of one page tie on score.
    const flat = next() < 0.3;
    const value = () => (flat ? 1 + Math.floor(next() * 2) : next() < 0.1 ? Math.floor(next() * 0xffffffff) : 1 + Math.floor(next() * 200));
    // Flat segments also crowd their sections into few pages.
    const crowded = flat ? sorted.map((rowid) => rowid - (rowid % (4096 * 64)) + (rowid % 8)) : sorted;
    const rowidsOf = [...new Set(crowded)].sort((a, b) => a - b);
    segments.push([segment, blob(segment, rowidsOf.map((rowid) => [rowid, value(), value()]))]);
  }
  return { rows: segments.map(([segment, data]) => ({ first: segment * SEGMENT_ROWIDS, data })), segments };
}

/** What the terms' rows hold, summed by section as search sums a prefix's terms: the reference. */
function reference(terms: [number, Buffer][][]): Postings {
  const bySection = new Map<number, [weight: number, length: number]>();
  for (const segments of terms) {
    const decoded: Postings = { rowids: [], weights: [], lengths: [] };
    for (const [segment, data] of segments) decodeInto(segment, data, decoded);
    decoded.rowids.forEach((rowid, i) => {
      const had = bySection.get(rowid);
      bySection.set(rowid, had ? [(had[0] + decoded.weights[i]!) >>> 0, had[1]] : [decoded.weights[i]!, decoded.lengths[i]!]);
    });
  }
  const rowids = [...bySection.keys()].sort((a, b) => a - b);
  return { rowids, weights: rowids.map((r) => bySection.get(r)![0]), lengths: rowids.map((r) => bySection.get(r)![1]) };
}

function plain(postings: WordPostings): Postings {
  return {
    rowids: Array.from(postings.rowids.subarray(0, postings.count)),
    weights: Array.from(postings.weights.subarray(0, postings.count)),
    lengths: Array.from(postings.lengths.subarray(0, postings.count)),
  };
}

describe("postings in WebAssembly", () => {
  test("the committed module is what postings.wat assembles to", () => {
    const check = spawnSync(process.execPath, [join(ROOT, "scripts", "build-wasm.mjs"), "--check"], { cwd: ROOT, encoding: "utf8" });
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
  });

  test("a prefix's terms decode and sum to what the writer's decoder reads, on 200 generated cases", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = seededRandom(seed);
      const shared = Array.from({ length: 40 }, () => Math.floor(next() * 4 * SEGMENT_ROWIDS));
      const terms = Array.from({ length: 1 + Math.floor(next() * 4) }, () => termRows(next, shared));
      const decoded = decodeTerms(terms.map((t) => t.rows));
      expect(plain(decoded), `seed ${seed}`).toEqual(reference(terms.map((t) => t.segments)));
    }
  });

  test("the JavaScript fallback decodes and sums as the WebAssembly does, on 200 generated cases", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = seededRandom(2000 + seed);
      const shared = Array.from({ length: 40 }, () => Math.floor(next() * 4 * SEGMENT_ROWIDS));
      const terms = Array.from({ length: 1 + Math.floor(next() * 4) }, () => termRows(next, shared).rows);
      expect(plain(decodeTermsInJavaScript(terms)), `seed ${seed}`).toEqual(plain(decodeTerms(terms)));
    }
  });

  test("no terms, and terms with no postings, decode to an empty list", () => {
    expect(decodeTerms([]).count).toBe(0);
    expect(decodeTerms([[{ first: 0, data: Buffer.alloc(0) }], []]).count).toBe(0);
  });

  test("a damaged blob (cut inside a varint) decodes as the writer's decoder reads it, and the next blob is untouched", () => {
    const whole = blob(0, [
      [5, 300, 70_000],
      [9, 2, 3],
    ]);
    const cut = whole.subarray(0, whole.length - 2);
    const next = blob(1, [[SEGMENT_ROWIDS + 7, 4, 5]]);
    const decoded = decodeTerms([[{ first: 0, data: cut }, { first: SEGMENT_ROWIDS, data: next }]]);
    const expected: Postings = { rowids: [], weights: [], lengths: [] };
    decodeInto(0, cut, expected);
    decodeInto(1, next, expected);
    expect(plain(decoded)).toEqual(expected);
  });

  test("the walk scores every section and keeps each page's best exactly as the JavaScript walk (the fallback, and what it replaced) does, on 200 generated queries", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = seededRandom(1000 + seed);
      const shared = Array.from({ length: 60 }, () => Math.floor(next() * 4 * SEGMENT_ROWIDS));
      const words = Array.from({ length: 1 + Math.floor(next() * 4) }, () => decodeTerms([termRows(next, shared).rows]));
      const idf = words.map(() => (next() < 0.1 ? 1e-6 : next() * 9));
      const average = 20 + next() * 400;
      const best = walkSections(words, { idf, average, k1: 1.2, b: 0.75, slots: 4096 });
      const expected = walkSectionsInJavaScript(words, { idf, average, k1: 1.2, b: 0.75, slots: 4096 });
      expect(best, `seed ${seed}`).toEqual(expected);
      // Scores must match bit for bit, -0 included.
      expect(Array.from(best.scores).every((s, i) => Object.is(s, expected.scores[i])), `seed ${seed}`).toBe(true);
    }
  });
});
