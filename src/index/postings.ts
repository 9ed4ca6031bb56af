import { cachedStatement, type Db } from "../core/sqlite.js";
import { SECTION_SLOTS } from "./layout.js";
import { readMeta, writeMeta } from "./meta.js";
import { vocabulary, type PageTerms } from "./search-terms.js";

/**
 * The search index: for each term, the sections holding it, each with the term's weighted
 * count there and the section's length in terms. One row per term and segment (the pages
 * whose ids share `page id / PAGES_PER_SEGMENT`), a blob of varints: the section rowid's
 * distance from the previous one (from the segment's first rowid for the first), the
 * weight, the length. Rows are keyed (segment, term): a full build appends them in key
 * order, an edit rewrites only the rows of the segments its pages are in, and a prefix's
 * postings are one range read per segment.
 * Search scores these itself (src/index/views/search.ts): scoring through FTS5's bm25()
 * cost about 3 µs a matching section, which for a broad query was most of its time.
 */
export const PAGES_PER_SEGMENT = 256;
const SEGMENT_ROWIDS = PAGES_PER_SEGMENT * SECTION_SLOTS;

export const POSTINGS_TOTALS_KEY = "search_totals";

/** Sections indexed, and their lengths summed (BM25's average length). */
export interface SearchTotals {
  sections: number;
  terms: number;
}

export function readSearchTotals(db: Db): SearchTotals {
  return readMeta<SearchTotals>(db, POSTINGS_TOTALS_KEY) ?? { sections: 0, terms: 0 };
}

/** Postings in rowid order, as parallel arrays. */
export interface Postings {
  rowids: number[];
  weights: number[];
  lengths: number[];
}

function emptyPostings(): Postings {
  return { rowids: [], weights: [], lengths: [] };
}

function segmentOf(rowid: number): number {
  return Math.floor(rowid / SEGMENT_ROWIDS);
}

/** Appends a row's postings to `into`. */
export function decodeInto(segment: number, data: Buffer, into: Postings): void {
  const decoded = decodeRows([["", segment, data]], 0, 1);
  for (let i = 0; i < decoded.count; i++) {
    into.rowids.push(decoded.rowids[i]!);
    into.weights.push(decoded.weights[i]!);
    into.lengths.push(decoded.lengths[i]!);
  }
}

/** A word's postings as search reads them: the first `count` entries, in rowid order. */
export interface WordPostings {
  count: number;
  rowids: Float64Array;
  weights: Uint32Array;
  lengths: Uint32Array;
}

function wordPostings(capacity: number): WordPostings {
  return { count: 0, rowids: new Float64Array(capacity), weights: new Uint32Array(capacity), lengths: new Uint32Array(capacity) };
}

/**
 * The sections holding a term that starts with `prefix`, each with the weights of all
 * such terms there summed. The range read relies on UTF-8 order being code point order:
 * every string starting with the prefix sorts before the prefix with its last character's
 * successor. One range per segment, segments in order, so each term's rows come in rowid
 * order.
 */
export function postingsWithPrefix(db: Db, prefix: string): WordPostings {
  const last = prefix.codePointAt(prefix.length - 1)!;
  const head = prefix.slice(0, prefix.length - (last > 0xffff ? 2 : 1));
  const upper = last < 0x10ffff ? head + String.fromCodePoint(last + 1) : null;
  const segments = (cachedStatement(db, "SELECT max(segment) FROM postings").pluck().get() as number | null) ?? -1;
  const rows = cachedStatement(
    db,
    `SELECT term, segment, data FROM postings
     WHERE segment IN (SELECT value FROM json_each(?)) AND term >= ?${upper === null ? "" : " AND term < ?"}`,
  )
    .raw()
    .all(JSON.stringify(Array.from({ length: segments + 1 }, (_, i) => i)), ...(upper === null ? [prefix] : [prefix, upper])) as [string, number, Buffer][];
  const byTerm = new Map<string, [string, number, Buffer][]>();
  for (const row of rows) {
    if (!row[0].startsWith(prefix)) continue;
    const list = byTerm.get(row[0]);
    if (list) list.push(row);
    else byTerm.set(row[0], [row]);
  }
  const terms = [...byTerm.values()].map((list) => decodeRows(list, 0, list.length));
  return terms.length === 1 ? terms[0]! : terms.reduce(summed, wordPostings(0));
}

/** Rows `from` to `to` (one term's, in segment order) decoded. A posting takes at least 3 bytes. */
function decodeRows(rows: [string, number, Buffer][], from: number, to: number): WordPostings {
  let bytes = 0;
  for (let i = from; i < to; i++) bytes += rows[i]![2].length;
  const out = wordPostings(Math.floor(bytes / 3));
  const { rowids, weights, lengths } = out;
  let k = 0;
  for (let i = from; i < to; i++) {
    const [, segment, data] = rows[i]!;
    const end = data.length;
    let at = 0;
    let rowid = segment * SEGMENT_ROWIDS;
    while (at < end) {
      // Three varints; most are one byte.
      let byte = data[at++]!;
      let value = byte & 0x7f;
      for (let scale = 0x80; byte >= 0x80; scale *= 0x80) value += ((byte = data[at++]!) & 0x7f) * scale;
      rowid += value;
      byte = data[at++]!;
      value = byte & 0x7f;
      for (let scale = 0x80; byte >= 0x80; scale *= 0x80) value += ((byte = data[at++]!) & 0x7f) * scale;
      weights[k] = value;
      byte = data[at++]!;
      value = byte & 0x7f;
      for (let scale = 0x80; byte >= 0x80; scale *= 0x80) value += ((byte = data[at++]!) & 0x7f) * scale;
      lengths[k] = value;
      rowids[k++] = rowid;
    }
  }
  out.count = k;
  return out;
}

/** Two lists as one in rowid order, the weights of a section in both added. */
function summed(a: WordPostings, b: WordPostings): WordPostings {
  const out = wordPostings(a.count + b.count);
  let i = 0;
  let j = 0;
  while (i < a.count || j < b.count) {
    const x = i < a.count ? a.rowids[i]! : Infinity;
    const y = j < b.count ? b.rowids[j]! : Infinity;
    const k = out.count++;
    if (x <= y) {
      out.rowids[k] = x;
      out.lengths[k] = a.lengths[i]!;
      out.weights[k] = a.weights[i++]! + (x === y ? b.weights[j++]! : 0);
    } else {
      out.rowids[k] = y;
      out.lengths[k] = b.lengths[j]!;
      out.weights[k] = b.weights[j++]!;
    }
  }
  return out;
}

/**
 * The postings added to one segment, flat: term numbers (in order of first use), rowids,
 * weights and lengths in growing typed arrays, so a full build's millions of postings
 * cost a few large arrays rather than an object each.
 */
class SegmentPostings {
  count = 0;
  terms = new Uint32Array(1024);
  rowids = new Float64Array(1024);
  weights = new Uint32Array(1024);
  lengths = new Uint32Array(1024);

  /** Section `ordinal` of a page's terms, as section `rowid`. */
  add(rowid: number, page: PageTerms, ordinal: number): void {
    const from = ordinal === 0 ? 0 : page.ends[ordinal - 1]!;
    const to = page.ends[ordinal]!;
    const length = page.lengths[ordinal]!;
    if (this.count + to - from > this.terms.length) this.grow(this.count + to - from);
    for (let i = from; i < to; i++) {
      const k = this.count++;
      this.terms[k] = page.terms[i]!;
      this.rowids[k] = rowid;
      this.weights[k] = page.weights[i]!;
      this.lengths[k] = length;
    }
  }

  private grow(needed: number): void {
    let size = this.terms.length;
    while (size < needed) size *= 2;
    const grown = <T extends Uint32Array | Float64Array>(from: T, make: (n: number) => T): T => {
      const to = make(size);
      to.set(from.subarray(0, this.count));
      return to;
    };
    this.terms = grown(this.terms, (n) => new Uint32Array(n));
    this.rowids = grown(this.rowids, (n) => new Float64Array(n));
    this.weights = grown(this.weights, (n) => new Uint32Array(n));
    this.lengths = grown(this.lengths, (n) => new Uint32Array(n));
  }

  /**
   * The postings grouped by term, by a stable counting sort: `order` lists posting indexes
   * term by term, the term `terms[g]`'s from `starts[g]` to `starts[g + 1]`, each term's in
   * the order added (rowid order, as sections are added).
   */
  grouped(): { terms: number[]; starts: Uint32Array; order: Uint32Array } {
    const slots = new Int32Array(vocabulary.names.length).fill(-1);
    const terms: number[] = [];
    const sizes: number[] = [];
    for (let k = 0; k < this.count; k++) {
      const term = this.terms[k]!;
      if (slots[term]! < 0) {
        slots[term] = terms.length;
        terms.push(term);
        sizes.push(0);
      }
      sizes[slots[term]!]!++;
    }
    const starts = new Uint32Array(terms.length + 1);
    for (let g = 0; g < terms.length; g++) starts[g + 1] = starts[g]! + sizes[g]!;
    const next = starts.slice(0, terms.length);
    const order = new Uint32Array(this.count);
    for (let k = 0; k < this.count; k++) order[next[slots[this.terms[k]!]!]!++] = k;
    return { terms, starts, order };
  }

  /** Postings `from` to `to` of `order`, as lists. */
  lists(order: Uint32Array, from: number, to: number): Postings {
    const out = emptyPostings();
    for (let i = from; i < to; i++) {
      const k = order[i]!;
      out.rowids.push(this.rowids[k]!);
      out.weights.push(this.weights[k]!);
      out.lengths.push(this.lengths[k]!);
    }
    return out;
  }
}

/**
 * Keeps the postings in step with the section rows inside a write transaction: pages
 * removed (before their rows are deleted) and sections added are collected per segment,
 * and `flush` rewrites the rows of the segments they touch. In a full build (`bulk`, the
 * table empty) page ids only grow, so a segment is written as soon as a later one starts.
 */
export class PostingsWriter {
  private readonly added = new Map<number, SegmentPostings>();
  private readonly removed = new Map<number, Set<number>>();
  private readonly totals: SearchTotals;
  private readonly statements;
  private encoded = Buffer.allocUnsafe(64 * 1024);

  constructor(
    private readonly db: Db,
    private readonly bulk: boolean,
  ) {
    this.totals = bulk ? { sections: 0, terms: 0 } : readSearchTotals(db);
    this.statements = {
      put: db.prepare("INSERT OR REPLACE INTO postings (term, segment, data) VALUES (?, ?, ?)"),
      drop: db.prepare("DELETE FROM postings WHERE term = ? AND segment = ?"),
      segmentRows: db.prepare("SELECT term, data FROM postings WHERE segment = ?").raw(),
      pageSections: db.prepare("SELECT count(*), total(length) FROM sections WHERE page_id = ?").raw(),
    };
  }

  /** A page about to be deleted: its postings go at the next flush. */
  removePage(pageId: number): void {
    const [sections, terms] = this.statements.pageSections.get(pageId) as [number, number];
    this.totals.sections -= sections;
    this.totals.terms -= terms;
    const segment = segmentOf(pageId * SECTION_SLOTS);
    const pages = this.removed.get(segment) ?? new Set<number>();
    pages.add(pageId);
    this.removed.set(segment, pages);
  }

  addSection(rowid: number, page: PageTerms, ordinal: number): void {
    const segment = segmentOf(rowid);
    let postings = this.added.get(segment);
    if (!postings) {
      if (this.bulk) for (const earlier of [...this.added.keys()]) this.flushSegment(earlier);
      this.added.set(segment, (postings = new SegmentPostings()));
    }
    this.totals.sections += 1;
    this.totals.terms += page.lengths[ordinal]!;
    postings.add(rowid, page, ordinal);
  }

  /** Writes every pending segment and the totals. */
  flush(): void {
    for (const segment of new Set([...this.added.keys(), ...this.removed.keys()])) this.flushSegment(segment);
    writeMeta(this.db, POSTINGS_TOTALS_KEY, this.totals);
  }

  private flushSegment(segment: number): void {
    const fresh = this.added.get(segment);
    const removed = this.removed.get(segment) ?? new Set<number>();
    this.added.delete(segment);
    this.removed.delete(segment);
    const group = fresh?.grouped() ?? { terms: [], starts: new Uint32Array(1), order: new Uint32Array(0) };
    if (this.bulk) {
      // The table is empty: each term's postings as added, in rowid order.
      for (let g = 0; g < group.terms.length; g++) {
        const data = this.encodeGroup(segment, fresh!, group.order, group.starts[g]!, group.starts[g + 1]!);
        this.statements.put.run(vocabulary.names[group.terms[g]!]!, segment, data);
      }
      return;
    }
    const pending = new Map<string, Postings>();
    for (let g = 0; g < group.terms.length; g++) pending.set(vocabulary.names[group.terms[g]!]!, fresh!.lists(group.order, group.starts[g]!, group.starts[g + 1]!));
    for (const [term, data] of this.statements.segmentRows.all(segment) as [string, Buffer][]) {
      const added = pending.get(term);
      if (added === undefined && removed.size === 0) continue;
      const existing = emptyPostings();
      decodeInto(segment, data, existing);
      const kept = withoutPages(existing, removed);
      if (added === undefined && kept.rowids.length === existing.rowids.length) continue;
      pending.set(term, added === undefined ? kept : merged(kept, added));
    }
    for (const [term, postings] of pending) {
      if (postings.rowids.length === 0) this.statements.drop.run(term, segment);
      else this.statements.put.run(term, segment, this.encode(segment, sorted(postings)));
    }
  }

  /** Like `encode`, straight from a segment's grouped postings (a full build's every row). */
  private encodeGroup(segment: number, postings: SegmentPostings, order: Uint32Array, from: number, to: number): Buffer {
    const out = this.room(to - from);
    const { rowids, weights, lengths } = postings;
    let at = 0;
    let previous = segment * SEGMENT_ROWIDS;
    for (let i = from; i < to; i++) {
      const k = order[i]!;
      at = putVarint(out, at, rowids[k]! - previous);
      at = putVarint(out, at, weights[k]!);
      at = putVarint(out, at, lengths[k]!);
      previous = rowids[k]!;
    }
    return out.subarray(0, at);
  }

  /** The row's blob, in a buffer reused from row to row (binding copies it). */
  private encode(segment: number, postings: Postings): Buffer {
    const out = this.room(postings.rowids.length);
    let at = 0;
    let previous = segment * SEGMENT_ROWIDS;
    for (let i = 0; i < postings.rowids.length; i++) {
      at = putVarint(out, at, postings.rowids[i]! - previous);
      at = putVarint(out, at, postings.weights[i]!);
      at = putVarint(out, at, postings.lengths[i]!);
      previous = postings.rowids[i]!;
    }
    return out.subarray(0, at);
  }

  /** The reused buffer, big enough for `postings` postings: three values below 2^32, at most 5 bytes each. */
  private room(postings: number): Buffer {
    const most = postings * 3 * 5;
    if (most > this.encoded.length) this.encoded = Buffer.allocUnsafe(Math.max(most, this.encoded.length * 2));
    return this.encoded;
  }
}

/**
 * Writes `value` at `at` as a varint and returns where the next one goes. Every value is
 * below 2^32 (rowid distances within a segment, counts), so shifts can do it.
 */
function putVarint(out: Buffer, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  out[at++] = value;
  return at;
}

function withoutPages(postings: Postings, pages: Set<number>): Postings {
  if (pages.size === 0) return postings;
  const kept = emptyPostings();
  for (let i = 0; i < postings.rowids.length; i++) {
    if (pages.has(Math.floor(postings.rowids[i]! / SECTION_SLOTS))) continue;
    kept.rowids.push(postings.rowids[i]!);
    kept.weights.push(postings.weights[i]!);
    kept.lengths.push(postings.lengths[i]!);
  }
  return kept;
}

function merged(a: Postings, b: Postings): Postings {
  return { rowids: [...a.rowids, ...b.rowids], weights: [...a.weights, ...b.weights], lengths: [...a.lengths, ...b.lengths] };
}

/** In rowid order (added sections may come in any page order outside a full build). */
function sorted(postings: Postings): Postings {
  const order = postings.rowids.map((_, i) => i);
  let inOrder = true;
  for (let i = 1; i < order.length && inOrder; i++) inOrder = postings.rowids[i - 1]! < postings.rowids[i]!;
  if (inOrder) return postings;
  order.sort((x, y) => postings.rowids[x]! - postings.rowids[y]!);
  return { rowids: order.map((i) => postings.rowids[i]!), weights: order.map((i) => postings.weights[i]!), lengths: order.map((i) => postings.lengths[i]!) };
}
