import { patternOnFirstUse } from "../core/patterns.js";

/**
 * The words search indexes and looks up. A term is a maximal run of letters, digits and
 * private-use characters, lower-cased, with diacritics removed (compatibility-decomposed,
 * marks dropped): "Café_Budget" holds the terms "cafe" and "budget". On ASCII text these are
 * the words SQLite's unicode61 tokenizer finds, which the index used before it kept its own
 * postings (src/index/postings.ts), so the rankings stayed the same.
 */
const term = patternOnFirstUse(() => /[\p{L}\p{N}\p{Co}]+/gu);
const marks = patternOnFirstUse(() => /\p{M}+/gu);
const NON_ASCII = /[\u0080-\uffff]/;

/** The terms of a text, in order, repeats kept. */
export function termsOf(text: string | null): string[] {
  if (!text) return [];
  return fold(text).match(term()) ?? [];
}

/** Lower case before decomposing (a final sigma needs its word) and after (™ decomposes to "TM"). */
function fold(text: string): string {
  const lower = text.toLowerCase();
  return NON_ASCII.test(lower) ? lower.normalize("NFKD").replace(marks(), "").toLowerCase() : lower;
}

/** Search weights of a term found in the page title, a heading and a body (BM25, see src/index/views/search.ts). */
const TITLE_WEIGHT = 5;
const HEADING_WEIGHT = 3;

/**
 * Term numbers for one thread. Parse workers send sections as term numbers and, with each
 * batch, the names they numbered since the last one (`takeNew`), so millions of term
 * strings are not copied between threads; the writer's pool renumbers them into its own
 * thread's vocabulary (src/index/parse-pool.ts).
 *
 * An open-addressing table over FNV-1a hashes, because ASCII text (nearly all of a wiki)
 * is numbered straight from its characters (`numberTerms`): a build meets millions of words,
 * and making a string of each to look it up in a Map took most of a parse worker's added time.
 */
export class TermVocabulary {
  readonly names: string[] = [];
  private hashes = new Int32Array(1024);
  /**
   * Four numbers a slot: term number + 1 (0 where empty), the term's hash, and its
   * characters packed (`packedLow`, `packedHigh`). A term of up to 7 ASCII characters is
   * known by its packing alone, so most words are numbered without reading a name: one
   * slot, one cache line. Never more than half full.
   */
  private slots = new Int32Array(2048 * 4);
  private sent = 0;

  number(term: string): number {
    let hash = FNV_OFFSET;
    for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), FNV_PRIME);
    return this.find(hash, packedLow(term), packedHigh(term), term, 0, term.length);
  }

  /** The numbers of the terms of `text`, in order: the first `count` of `numbers`, overwritten by the next call. */
  numbers = new Uint32Array(4096);

  /** Numbers the terms of `text` into `numbers`; returns how many. */
  numberTerms(text: string): number {
    // Letters and digits read a character at a time, upper case folded in place; a character
    // beyond ASCII that folds to no term character separates terms as ASCII punctuation does,
    // and any other sends the whole text the slow way (diacritics, cases beyond ASCII).
    this.room(text.length >> 1);
    const numbers = this.numbers;
    const end = text.length;
    let count = 0;
    let i = 0;
    while (i < end) {
      const raw = text.charCodeAt(i);
      let c = raw | 0x20;
      if (!((c >= 97 && c <= 122) || (raw >= 48 && raw <= 57))) {
        if (needsFolding(raw)) return this.numberFolded(text);
        i++;
        continue;
      }
      const start = i;
      let hash = FNV_OFFSET;
      let low = 0;
      let high = 0;
      for (;;) {
        hash = Math.imul(hash ^ c, FNV_PRIME);
        const at = i - start;
        if (at < 4) low |= c << (at << 3);
        else if (at < 7) high |= c << ((at - 4) << 3);
        if (++i === end) break;
        const next = text.charCodeAt(i);
        c = next | 0x20;
        if (!((c >= 97 && c <= 122) || (next >= 48 && next <= 57))) break;
      }
      // A word running into a letter beyond ASCII is not numbered in part first.
      if (i < end && needsFolding(text.charCodeAt(i))) return this.numberFolded(text);
      numbers[count++] = this.find(hash, low, i - start > SHORT ? LONG : high | ((i - start) << 24), text, start, i);
    }
    return count;
  }

  /** `numberTerms` for text the ASCII reading cannot take: folded as `termsOf` folds. */
  private numberFolded(text: string): number {
    const terms = termsOf(text);
    this.room(terms.length);
    terms.forEach((term, i) => (this.numbers[i] = this.number(term)));
    return terms.length;
  }

  /** `numbers` holds at least `size`: a text of n characters has at most (n + 1) / 2 terms. */
  private room(size: number): void {
    if (size + 1 > this.numbers.length) this.numbers = new Uint32Array(Math.max(size + 1, this.numbers.length * 2));
  }

  /** The number of `text.slice(from, to)` (lower-cased), numbered now if new; `low` and `high` are its packing. */
  private find(hash: number, low: number, high: number, text: string, from: number, to: number): number {
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = slot << 2;
      const entry = slots[at]!;
      if (entry === 0) break;
      if (slots[at + 1] === hash && slots[at + 2] === low && slots[at + 3] === high && (high !== LONG || sameTerm(this.names[entry - 1]!, text, from, to))) {
        return entry - 1;
      }
    }
    // Lower case, and a copy, not a slice that would keep the whole text alive.
    const name = (" " + text.slice(from, to).toLowerCase()).slice(1);
    const number = this.names.length;
    this.names.push(name);
    if (number >= this.hashes.length) {
      const grown = new Int32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[number] = hash;
    if ((number + 1) * 2 > slots.length >> 2) this.rehash();
    else this.place(number, low, high);
    return number;
  }

  private place(number: number, low: number, high: number): void {
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    let slot = this.hashes[number]! & mask;
    while (slots[slot << 2] !== 0) slot = (slot + 1) & mask;
    const at = slot << 2;
    slots[at] = number + 1;
    slots[at + 1] = this.hashes[number]!;
    slots[at + 2] = low;
    slots[at + 3] = high;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let number = 0; number < this.names.length; number++) {
      const name = this.names[number]!;
      this.place(number, packedLow(name), packedHigh(name));
    }
  }

  /** The names numbered since the last call, and the number of the first. */
  takeNew(): { from: number; names: string[] } {
    const from = this.sent;
    this.sent = this.names.length;
    return { from, names: this.names.slice(from) };
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/**
 * A term's packing: its first four characters a byte each in `low`, the next three in
 * `high` with its length in the top byte. Only terms of up to SHORT ASCII characters are
 * told apart by it; every other term's `high` is LONG, and its name is compared too.
 */
const SHORT = 7;
const LONG = 0xff << 24;

function packedLow(term: string): number {
  let low = 0;
  for (let i = 0; i < Math.min(4, term.length); i++) low |= term.charCodeAt(i) << (i << 3);
  return low;
}

function packedHigh(term: string): number {
  if (term.length > SHORT || NON_ASCII.test(term)) return LONG;
  let high = 0;
  for (let i = 4; i < term.length; i++) high |= term.charCodeAt(i) << ((i - 4) << 3);
  return high | (term.length << 24);
}

/** What each UTF-16 code unit from 0x80 is known to be: 0 not yet asked, 1 a separator, 2 not (made on first need: most reads never meet one). */
let separatorKinds: Uint8Array | null = null;
const termOrMark = patternOnFirstUse(() => /[\p{L}\p{N}\p{Co}\p{M}]/u);

/**
 * Whether a non-ASCII code unit only ever separates terms: it is no letter, digit,
 * private-use character or mark, and folds (lower case, NFKD) to none. Such a character
 * leaves its neighbours' folding alone: the one context-dependent lower-casing (a final
 * sigma) needs a letter, and its decomposition holds no mark to reorder with theirs.
 * Surrogates are not asked about one by one: a text with any goes the slow way.
 */
function separates(code: number): boolean {
  separatorKinds ??= new Uint8Array(0x10000);
  let kind = separatorKinds[code]!;
  if (kind === 0) {
    const char = String.fromCharCode(code);
    const surrogate = code >= 0xd800 && code <= 0xdfff;
    kind = surrogate || termOrMark().test(char) || termOrMark().test(fold(char)) ? 2 : 1;
    separatorKinds[code] = kind;
  }
  return kind === 1;
}

/** A code unit the character-at-a-time reading cannot take: beyond ASCII and no mere separator. */
function needsFolding(code: number): boolean {
  return code >= 0x80 && !separates(code);
}

/** Whether the ASCII `text.slice(from, to)`, lower-cased, is `name`. */
function sameTerm(name: string, text: string, from: number, to: number): boolean {
  if (name.length !== to - from) return false;
  for (let i = 0; i < name.length; i++) {
    const c = text.charCodeAt(from + i);
    if (name.charCodeAt(i) !== (c >= 65 && c <= 90 ? c + 32 : c)) return false;
  }
  return true;
}

/** This thread's vocabulary: the one its parses and its index writer number terms in. */
export const vocabulary = new TermVocabulary();

/**
 * What search keeps of a page's sections: for section i, entries `ends[i - 1]` (0 for the
 * first) to `ends[i]` of `terms` (numbers in this thread's vocabulary) and `weights` (the
 * term's weighted count: title occurrences count 5, heading 3, body 1), and `lengths[i]`,
 * how many terms the section holds in all. One set of arrays a page keeps the messages from
 * parse workers few and cheap.
 */
export interface PageTerms {
  terms: Uint32Array;
  weights: Uint32Array;
  ends: Uint32Array;
  lengths: Uint32Array;
}

/**
 * Scratch space for `pageTerms`, reused from page to page: weighted counts by term number
 * (zero everywhere between sections), and the page's terms and weights so far.
 */
const scratch = { counts: new Uint32Array(4096), terms: new Uint32Array(4096), weights: new Uint32Array(4096) };

/** The sections' terms; `title` is the page title's (every section of a page carries its title). */
export function pageTerms(title: string | null, sections: readonly { heading: string; body: string }[]): PageTerms {
  const titleTerms = termNumbers(title);
  const ends = new Uint32Array(sections.length);
  const lengths = new Uint32Array(sections.length);
  let size = 0;
  for (let s = 0; s < sections.length; s++) {
    const section = sections[s]!;
    const from = size;
    size = tally(titleTerms, titleTerms.length, TITLE_WEIGHT, size);
    const inHeading = vocabulary.numberTerms(section.heading);
    size = tally(vocabulary.numbers, inHeading, HEADING_WEIGHT, size);
    const inBody = vocabulary.numberTerms(section.body);
    size = tally(vocabulary.numbers, inBody, 1, size);
    const { counts, terms, weights } = scratch;
    for (let k = from; k < size; k++) {
      const term = terms[k]!;
      weights[k] = counts[term]!;
      counts[term] = 0;
    }
    ends[s] = size;
    lengths[s] = titleTerms.length + inHeading + inBody;
  }
  return { terms: scratch.terms.slice(0, size), weights: scratch.weights.slice(0, size), ends, lengths };
}

/**
 * Adds `found` numbers, each counting `weight`, to the section being tallied, whose distinct
 * terms so far end at scratch term `size`; returns the new size.
 */
function tally(numbers: Uint32Array, found: number, weight: number, size: number): number {
  if (scratch.counts.length < vocabulary.names.length) scratch.counts = grown(scratch.counts, vocabulary.names.length * 2);
  if (scratch.terms.length < size + found) {
    scratch.terms = grown(scratch.terms, (size + found) * 2);
    scratch.weights = grown(scratch.weights, (size + found) * 2);
  }
  const { counts, terms } = scratch;
  for (let i = 0; i < found; i++) {
    const number = numbers[i]!;
    const before = counts[number]!;
    if (before === 0) terms[size++] = number;
    counts[number] = before + weight;
  }
  return size;
}

function grown(from: Uint32Array, size: number): Uint32Array<ArrayBuffer> {
  const to = new Uint32Array(size);
  to.set(from);
  return to;
}

/** A text's terms as numbers in this thread's vocabulary. */
export function termNumbers(text: string | null): Uint32Array {
  return text ? vocabulary.numbers.slice(0, vocabulary.numberTerms(text)) : new Uint32Array(0);
}
