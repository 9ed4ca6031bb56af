import { POSTINGS_WASM } from "./postings-wasm.js";
import { decodeTermsInJavaScript, walkSectionsInJavaScript } from "./postings-fallback.js";
import { wordPostings, type BestSections, type TermRow, type WalkModel, type WordPostings } from "./postings-lists.js";

export type { BestSections, TermRow, WalkModel, WordPostings };

interface Decoder {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  decode(src: number, end: number, rowid: number, rowids: number, weights: number, lengths: number, k: number): number;
  sum(ar: number, aw: number, al: number, an: number, br: number, bw: number, bl: number, bn: number, or: number, ow: number, ol: number): number;
  walk(table: number, words: number, k1: number, b: number, average: number, slots: number, pages: number, scores: number, sections: number): number;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

const PAGE = 65536;
/** A list's bytes an entry: the rowid (f64), the weight and the length (u32 each). */
const LIST_BYTES = 16;
/** Zero bytes after each blob: a damaged blob's last varint ends there instead of reading the next blob. */
const PADDING = 16;

/**
 * A memory can grow but never shrink, so after a query that needed more than this (a
 * one-letter prefix of a big wiki) the instance is let go, and a long-lived server does
 * not keep its memory.
 */
const RETAINED_BYTES = 32 * 1024 * 1024;

let compiled: object | null = null;
let decoder: Decoder | null = null;

/** `--jitless` (and a Node built without it) leaves no WebAssembly: the JavaScript versions stand in. */
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly ?? null;

/** Compiled on first use (well under a millisecond); postings.wat says why it exists. */
function instance(api: WasmApi): Decoder {
  if (!decoder) {
    compiled ??= new api.Module(Buffer.from(POSTINGS_WASM, "base64"));
    decoder = new api.Instance(compiled, {}).exports as Decoder;
  }
  return decoder;
}

/** Where one list lies in the decoder's memory. */
interface List {
  rowids: number;
  weights: number;
  lengths: number;
  count: number;
}

/**
 * The postings of several terms as one list (a prefix's terms): each term's rows, in
 * segment order, decoded, and the terms' lists summed in the order given, so a section in
 * more than one gets their weights added and the first one's length. Decoded in
 * WebAssembly (src/index/postings.wat), which a fresh process runs at close to the speed a
 * warm one reaches.
 */
export function decodeTerms(terms: TermRow[][]): WordPostings {
  if (terms.length === 0) return wordPostings(0);
  if (!wasm) return decodeTermsInJavaScript(terms);
  return decodeTermsIn(instance(wasm), terms);
}

function decodeTermsIn(wasm: Decoder, terms: TermRow[][]): WordPostings {
  // The blobs, each followed by its padding; one list a term is decoded into; and two
  // lists the sums go back and forth between.
  let blobBytes = 0;
  for (const rows of terms) for (const row of rows) blobBytes += row.data.length + PADDING;
  const capacities = terms.map((rows) => rows.reduce((n, row) => n + Math.floor(row.data.length / 3) + 1, 0));
  const all = capacities.reduce((n, c) => n + c, 0);
  const largest = Math.max(...capacities);
  const needed = align(blobBytes) + LIST_BYTES * (terms.length > 1 ? largest + 2 * all : all);
  const heap = memoryOf(wasm, needed);

  const spans: [start: number, end: number, first: number][][] = [];
  let at = 0;
  for (const rows of terms) {
    const term: [number, number, number][] = [];
    for (const row of rows) {
      heap.set(row.data, at);
      heap.fill(0, at + row.data.length, at + row.data.length + PADDING);
      term.push([at, at + row.data.length, row.first]);
      at += row.data.length + PADDING;
    }
    spans.push(term);
  }
  let free = align(at);
  const list = (capacity: number): List => {
    const placed = { rowids: free, weights: free + capacity * 8, lengths: free + capacity * 12, count: 0 };
    free += LIST_BYTES * capacity;
    return placed;
  };
  const decodeInto = (target: List, term: number) => {
    target.count = 0;
    for (const [start, end, first] of spans[term]!) target.count = wasm.decode(start, end, first, target.rowids, target.weights, target.lengths, target.count);
  };
  let result = list(all);
  decodeInto(result, 0);
  if (terms.length > 1) {
    let spare = list(all);
    const term = list(largest);
    for (let t = 1; t < terms.length; t++) {
      decodeInto(term, t);
      spare.count = wasm.sum(result.rowids, result.weights, result.lengths, result.count, term.rowids, term.weights, term.lengths, term.count, spare.rowids, spare.weights, spare.lengths);
      [result, spare] = [spare, result];
    }
  }
  const postings = copied(wasm.memory.buffer, result);
  release(wasm);
  return postings;
}

/**
 * Scores every section holding one of the words and keeps each page's best, in page order
 * (search.ts `bestSections` says how), in WebAssembly (postings.wat `walk`).
 */
export function walkSections(words: WordPostings[], model: WalkModel): BestSections {
  if (!wasm) return walkSectionsInJavaScript(words, model);
  return walkSectionsIn(instance(wasm), words, model);
}

function walkSectionsIn(wasm: Decoder, words: WordPostings[], model: WalkModel): BestSections {
  const all = words.reduce((n, w) => n + w.count, 0);
  const table = 64 * words.length;
  const heap = memoryOf(wasm, table + LIST_BYTES * all + 20 * all);
  const numbers = new Float64Array(heap.buffer, 0, 8 * words.length);
  let free = table;
  words.forEach((word, i) => {
    const rowids = free;
    const weights = rowids + 8 * word.count;
    const lengths = weights + 4 * word.count;
    free = lengths + 4 * word.count;
    new Float64Array(heap.buffer, rowids, word.count).set(word.rowids.subarray(0, word.count));
    new Uint32Array(heap.buffer, weights, word.count).set(word.weights.subarray(0, word.count));
    new Uint32Array(heap.buffer, lengths, word.count).set(word.lengths.subarray(0, word.count));
    numbers.set([rowids, weights, lengths, word.count, model.idf[i]!, 0, 0, 0], 8 * i);
  });
  const scores = free;
  const sections = scores + 8 * all;
  const pages = sections + 8 * all;
  const count = wasm.walk(0, words.length, model.k1, model.b, model.average, model.slots, pages, scores, sections);
  const best = {
    pages: new Int32Array(heap.buffer, pages, count).slice(),
    scores: new Float64Array(heap.buffer, scores, count).slice(),
    sections: new Float64Array(heap.buffer, sections, count).slice(),
  };
  release(wasm);
  return best;
}

/** The decoder's memory, grown to hold `bytes` at least. */
function memoryOf(wasm: Decoder, bytes: number): Uint8Array {
  const short = bytes - wasm.memory.buffer.byteLength;
  if (short > 0) wasm.memory.grow(Math.ceil(short / PAGE));
  return new Uint8Array(wasm.memory.buffer);
}

/** Lets a grown instance go (see RETAINED_BYTES). */
function release(wasm: Decoder): void {
  if (wasm.memory.buffer.byteLength > RETAINED_BYTES) decoder = null;
}

/** The list out of the decoder's memory, which the next call reuses. */
function copied(buffer: ArrayBuffer, list: List): WordPostings {
  return {
    count: list.count,
    rowids: new Float64Array(buffer, list.rowids, list.count).slice(),
    weights: new Uint32Array(buffer, list.weights, list.count).slice(),
    lengths: new Uint32Array(buffer, list.lengths, list.count).slice(),
  };
}

function align(offset: number): number {
  return Math.ceil(offset / 8) * 8;
}
