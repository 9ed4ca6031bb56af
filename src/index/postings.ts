import { cachedStatement, type Db } from "../core/sqlite.js";
import { SECTION_SLOTS } from "./layout.js";
import { readMeta, writeMeta } from "./meta.js";
import { vocabulary, type PageTerms } from "./search-terms.js";
import { decodeTerms, type TermRow, type WordPostings } from "./postings-decoder.js";

export type { WordPostings };

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
  const byTerm = new Map<string, TermRow[]>();
  for (const [term, segment, data] of rows) {
    if (!term.startsWith(prefix)) continue;
    const row = { first: segment * SEGMENT_ROWIDS, data };
    const list = byTerm.get(term);
    if (list) list.push(row);
    else byTerm.set(term, [row]);
  }
  return decodeTerms([...byTerm.values()]);
}

/**
 * Appends a row's postings to `into`: for the writer, which merges an edit into the rows
 * it rewrites. Search decodes in WebAssembly instead (decodeTerms,
 * src/index/postings-decoder.ts); test/index/postings-decoder.test.ts holds the two to the
 * same postings.
 */
export function decodeInto(segment: number, data: Buffer, out: Postings): void {
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
    out.weights.push(value >>> 0);
    byte = data[at++]!;
    value = byte & 0x7f;
    for (let scale = 0x80; byte >= 0x80; scale *= 0x80) value += ((byte = data[at++]!) & 0x7f) * scale;
    out.lengths.push(value >>> 0);
    out.rowids.push(rowid);
  }
}

/**
 * The postings added to one segment, flat: four numbers a posting (term number, the rowid
 * less the segment's first, weight, length) in one growing array, so a full build's
 * millions of postings cost a few large arrays rather than an object each, and reading
 * them back in the order added touches memory in order.
 */
class SegmentPostings {
  count = 0;

  /** `records` may be a finished segment's, reused: a full build would otherwise allocate megabytes a segment. */
  constructor(
    private readonly first: number,
    public records = new Uint32Array(4096),
  ) {}

  /** Section `ordinal` of a page's terms, as section `rowid`. */
  add(rowid: number, page: PageTerms, ordinal: number): void {
    const from = ordinal === 0 ? 0 : page.ends[ordinal - 1]!;
    const to = page.ends[ordinal]!;
    const length = page.lengths[ordinal]!;
    const offset = rowid - this.first;
    if ((this.count + to - from) * 4 > this.records.length) this.grow((this.count + to - from) * 4);
    const records = this.records;
    let at = this.count * 4;
    for (let i = from; i < to; i++) {
      records[at] = page.terms[i]!;
      records[at + 1] = offset;
      records[at + 2] = page.weights[i]!;
      records[at + 3] = length;
      at += 4;
    }
    this.count += to - from;
  }

  private grow(needed: number): void {
    let size = this.records.length;
    while (size < needed) size *= 2;
    const grown = new Uint32Array(size);
    grown.set(this.records.subarray(0, this.count * 4));
    this.records = grown;
  }

  /** The postings by term name, each term's in the order added. */
  byTerm(): Map<string, Postings> {
    const lists = new Map<string, Postings>();
    const records = this.records;
    for (let at = 0; at < this.count * 4; at += 4) {
      const term = vocabulary.names[records[at]!]!;
      let list = lists.get(term);
      if (!list) lists.set(term, (list = emptyPostings()));
      list.rowids.push(this.first + records[at + 1]!);
      list.weights.push(records[at + 2]!);
      list.lengths.push(records[at + 3]!);
    }
    return lists;
  }

  /**
   * Every term's row blob, for a segment written once with its sections added in rowid
   * order (a full build): the terms in key order (so rows are appended to the table), and
   * blob g is `data` from `starts[g]` to `starts[g + 1]`. Two passes in the order added, one
   * to size each term's blob and one to fill it, so no posting is looked up out of order.
   */
  encoded(buffer: (size: number) => Buffer): { terms: number[]; data: Buffer; starts: Uint32Array } {
    const size = vocabulary.names.length;
    const bytes = new Uint32Array(size);
    const last = new Uint32Array(size);
    const terms: number[] = [];
    const records = this.records;
    const end = this.count * 4;
    for (let at = 0; at < end; at += 4) {
      const term = records[at]!;
      const offset = records[at + 1]!;
      if (bytes[term] === 0) terms.push(term);
      else if (offset <= last[term]!) throw new Error(`postings of term ${vocabulary.names[term]} added out of rowid order`);
      bytes[term] = bytes[term]! + varintSize(offset - last[term]!) + varintSize(records[at + 2]!) + varintSize(records[at + 3]!);
      last[term] = offset;
    }
    const names = vocabulary.names;
    terms.sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
    const starts = new Uint32Array(terms.length + 1);
    const cursors = last;
    for (let g = 0; g < terms.length; g++) {
      cursors[terms[g]!] = starts[g]!;
      starts[g + 1] = starts[g]! + bytes[terms[g]!]!;
    }
    const data = buffer(starts[terms.length]!);
    // `bytes` now holds each term's previous offset.
    const previous = bytes.fill(0);
    for (let at = 0; at < end; at += 4) {
      const term = records[at]!;
      const offset = records[at + 1]!;
      let cursor = putVarint(data, cursors[term]!, offset - previous[term]!);
      cursor = putVarint(data, cursor, records[at + 2]!);
      cursors[term] = putVarint(data, cursor, records[at + 3]!);
      previous[term] = offset;
    }
    return { terms, data, starts };
  }
}

function varintSize(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
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
  /** A written segment's records, for the next segment of a full build. */
  private spare: Uint32Array<ArrayBuffer> | undefined;

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
      this.added.set(segment, (postings = new SegmentPostings(segment * SEGMENT_ROWIDS, this.spare)));
      this.spare = undefined;
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
    if (this.bulk) {
      // The table is empty: each term's postings as added, in rowid order.
      if (!fresh) return;
      const { terms, data, starts } = fresh.encoded((size) => this.buffer(size));
      for (let g = 0; g < terms.length; g++) this.statements.put.run(vocabulary.names[terms[g]!]!, segment, data.subarray(starts[g]!, starts[g + 1]!));
      this.spare = fresh.records;
      return;
    }
    const pending = fresh?.byTerm() ?? new Map<string, Postings>();
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

  /** The row's blob, in a buffer reused from row to row (binding copies it). */
  private encode(segment: number, postings: Postings): Buffer {
    // Three values below 2^32 a posting, at most 5 bytes each.
    const out = this.buffer(postings.rowids.length * 3 * 5);
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

  /** The buffer reused from row to row, at least `size` bytes long. */
  private buffer(size: number): Buffer {
    if (size > this.encoded.length) this.encoded = Buffer.allocUnsafe(Math.max(size, this.encoded.length * 2));
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
