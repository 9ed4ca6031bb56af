/**
 * The words search indexes and looks up. A term is a maximal run of letters, digits and
 * private-use characters, lower-cased, with diacritics removed (compatibility-decomposed,
 * marks dropped): "Café_Budget" holds the terms "cafe" and "budget". On ASCII text these are
 * the words SQLite's unicode61 tokenizer finds, which the index used before it kept its own
 * postings (src/index/postings.ts), so the rankings stayed the same.
 */
const TERM = /[\p{L}\p{N}\p{Co}]+/gu;
const MARKS = /\p{M}+/gu;
const NON_ASCII = /[\u0080-\uffff]/;

/** The terms of a text, in order, repeats kept. */
export function termsOf(text: string | null): string[] {
  if (!text) return [];
  return fold(text).match(TERM) ?? [];
}

function fold(text: string): string {
  const lower = text.toLowerCase();
  return NON_ASCII.test(lower) ? lower.normalize("NFKD").replace(MARKS, "") : lower;
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
  private hashes = new Uint32Array(1024);
  /** Term number + 1 per slot, 0 where empty; never more than half full. */
  private slots = new Int32Array(2048);
  private sent = 0;

  number(term: string): number {
    let hash = FNV_OFFSET;
    for (let i = 0; i < term.length; i++) hash = Math.imul(hash ^ term.charCodeAt(i), FNV_PRIME);
    return this.find(hash >>> 0, term, 0, term.length);
  }

  /** The numbers of the terms of `text`, in order: the first `count` of `numbers`, overwritten by the next call. */
  numbers = new Uint32Array(4096);

  /** Numbers the terms of `text` into `numbers`; returns how many. */
  numberTerms(text: string): number {
    if (NON_ASCII.test(text)) {
      const terms = termsOf(text);
      this.room(terms.length);
      terms.forEach((term, i) => (this.numbers[i] = this.number(term)));
      return terms.length;
    }
    // ASCII: letters and digits, read a character at a time, upper case folded in place.
    this.room(text.length >> 1);
    const numbers = this.numbers;
    const end = text.length;
    let count = 0;
    let i = 0;
    while (i < end) {
      let c = text.charCodeAt(i) | 0x20;
      if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57 && c === text.charCodeAt(i)))) {
        i++;
        continue;
      }
      const start = i;
      let hash = FNV_OFFSET;
      for (;;) {
        hash = Math.imul(hash ^ c, FNV_PRIME);
        if (++i === end) break;
        const raw = text.charCodeAt(i);
        c = raw | 0x20;
        if (!((c >= 97 && c <= 122) || (raw >= 48 && raw <= 57))) break;
      }
      numbers[count++] = this.find(hash >>> 0, text, start, i);
    }
    return count;
  }

  /** `numbers` holds at least `size`: a text of n characters has at most (n + 1) / 2 terms. */
  private room(size: number): void {
    if (size + 1 > this.numbers.length) this.numbers = new Uint32Array(Math.max(size + 1, this.numbers.length * 2));
  }

  /** The number of `text.slice(from, to)`, numbered now if new. */
  private find(hash: number, text: string, from: number, to: number): number {
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) break;
      const number = entry - 1;
      if (this.hashes[number] === hash && sameTerm(this.names[number]!, text, from, to)) return number;
    }
    // Lower case, and a copy, not a slice that would keep the whole text alive.
    const name = (" " + text.slice(from, to).toLowerCase()).slice(1);
    const number = this.names.length;
    this.names.push(name);
    if (number >= this.hashes.length) {
      const grown = new Uint32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[number] = hash;
    if ((number + 1) * 2 > this.slots.length) this.rehash();
    else this.place(number);
    return number;
  }

  private place(number: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[number]! & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = number + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let number = 0; number < this.names.length; number++) this.place(number);
  }

  /** The names numbered since the last call, and the number of the first. */
  takeNew(): { from: number; names: string[] } {
    const from = this.sent;
    this.sent = this.names.length;
    return { from, names: this.names.slice(from) };
  }
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

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

/** Weighted counts by term number, for one section at a time: zero everywhere between sections. */
let counts = new Uint32Array(4096);

/** The sections' terms; `title` is the page title's (every section of a page carries its title). */
export function pageTerms(title: string | null, sections: readonly { heading: string; body: string }[]): PageTerms {
  const titleTerms = termNumbers(title);
  const terms: number[] = [];
  const weights: number[] = [];
  const ends = new Uint32Array(sections.length);
  const lengths = new Uint32Array(sections.length);
  const seen: number[] = [];
  const tally = (numbers: Uint32Array, found: number, weight: number) => {
    // Every number is below the vocabulary's size.
    if (counts.length < vocabulary.names.length) {
      const grown = new Uint32Array(vocabulary.names.length * 2);
      grown.set(counts);
      counts = grown;
    }
    const local = counts;
    for (let i = 0; i < found; i++) {
      const number = numbers[i]!;
      const before = local[number]!;
      if (before === 0) seen.push(number);
      local[number] = before + weight;
    }
  };
  for (let s = 0; s < sections.length; s++) {
    const section = sections[s]!;
    tally(titleTerms, titleTerms.length, TITLE_WEIGHT);
    const inHeading = vocabulary.numberTerms(section.heading);
    tally(vocabulary.numbers, inHeading, HEADING_WEIGHT);
    const inBody = vocabulary.numberTerms(section.body);
    tally(vocabulary.numbers, inBody, 1);
    for (const number of seen) {
      terms.push(number);
      weights.push(counts[number]!);
      counts[number] = 0;
    }
    seen.length = 0;
    ends[s] = terms.length;
    lengths[s] = titleTerms.length + inHeading + inBody;
  }
  return { terms: Uint32Array.from(terms), weights: Uint32Array.from(weights), ends, lengths };
}

/** A text's terms as numbers in this thread's vocabulary. */
export function termNumbers(text: string | null): Uint32Array {
  return text ? vocabulary.numbers.slice(0, vocabulary.numberTerms(text)) : new Uint32Array(0);
}
