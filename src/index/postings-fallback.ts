import { wordPostings as list, type BestSections, type TermRow, type WalkModel, type WordPostings } from "./postings-lists.js";

/**
 * Search's decoding and walk in JavaScript, for a Node without WebAssembly (`--jitless`
 * turns it off). They are what the WebAssembly in postings.wat replaced, and
 * test/index/postings-decoder.test.ts holds the two to the same postings and the same
 * scores, bit for bit.
 */

export function decodeTermsInJavaScript(terms: TermRow[][]): WordPostings {
  if (terms.length === 0) return list(0);
  return terms.map(decodeRows).reduce(summed);
}

/** One term's rows, in segment order, decoded. A posting takes at least 3 bytes. */
function decodeRows(rows: TermRow[]): WordPostings {
  let bytes = 0;
  for (const row of rows) bytes += row.data.length;
  const out = list(Math.floor(bytes / 3) + rows.length);
  const { rowids, weights, lengths } = out;
  let k = 0;
  for (const { first, data } of rows) {
    const end = data.length;
    let at = 0;
    let rowid = first;
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
  const out = list(a.count + b.count);
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

export function walkSectionsInJavaScript(phrases: WordPostings[], { idf, average, k1, b, slots }: WalkModel): BestSections {
  const pages: number[] = [];
  const scores: number[] = [];
  const sections: number[] = [];
  const words = phrases.length;
  const at = new Uint32Array(words);
  const heads = new Float64Array(words);
  for (let i = 0; i < words; i++) heads[i] = phrases[i]!.count > 0 ? phrases[i]!.rowids[0]! : Infinity;
  for (;;) {
    let rowid = Infinity;
    for (let i = 0; i < words; i++) if (heads[i]! < rowid) rowid = heads[i]!;
    if (rowid === Infinity) break;
    // FTS5 adds the words in query order; a word the section lacks adds nothing.
    let score = 0;
    let norm = 0;
    for (let i = 0; i < words; i++) {
      if (heads[i] !== rowid) continue;
      const p = phrases[i]!;
      const k = at[i]!;
      if (norm === 0) norm = k1 * (1 - b + (b * p.lengths[k]!) / average);
      const f = p.weights[k]!;
      score += idf[i]! * ((f * (k1 + 1.0)) / (f + norm));
      at[i] = k + 1;
      heads[i] = k + 1 < p.count ? p.rowids[k + 1]! : Infinity;
    }
    score = -1 * score;
    const page = Math.floor(rowid / slots);
    const last = pages.length - 1;
    if (last >= 0 && pages[last] === page) {
      // Rowids ascend, so an equal score keeps the earlier section.
      if (score < scores[last]!) {
        scores[last] = score;
        sections[last] = rowid;
      }
    } else {
      pages.push(page);
      scores.push(score);
      sections.push(rowid);
    }
  }
  return { pages: Int32Array.from(pages), scores: Float64Array.from(scores), sections: Float64Array.from(sections) };
}
