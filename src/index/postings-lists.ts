/** The lists search decodes and walks (postings-decoder.ts), shared with the JavaScript fallback. */

/** A word's postings as search reads them: the first `count` entries, in rowid order. */
export interface WordPostings {
  count: number;
  rowids: Float64Array;
  weights: Uint32Array;
  lengths: Uint32Array;
}

/** One row of a term: its segment's first rowid and its blob of varint triples. */
export interface TermRow {
  first: number;
  data: Uint8Array;
}

export function wordPostings(capacity: number): WordPostings {
  return { count: 0, rowids: new Float64Array(capacity), weights: new Uint32Array(capacity), lengths: new Uint32Array(capacity) };
}

/** Each page's best section and its score, in page order. */
export interface BestSections {
  pages: Int32Array;
  scores: Float64Array;
  sections: Float64Array;
}

/** BM25's parameters as search uses them, and the rowids a page spans. */
export interface WalkModel {
  idf: number[];
  average: number;
  k1: number;
  b: number;
  slots: number;
}
