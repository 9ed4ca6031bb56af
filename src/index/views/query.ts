import { patternOnFirstUse } from "../../core/patterns.js";
import { excerptText } from "./excerpt-text.js";
import { termsOf } from "../search-terms.js";
import type { Stretch } from "../../wiki/markdown-code.js";

/**
 * Query analysis for search. Every word becomes a prefix term joined with OR; very
 * common English words are dropped unless the query has nothing else, so "how does
 * the worker stop" searches for worker and stop instead of matching every section.
 */
const STOP_WORDS = new Set(
  "a an and are as at be but by do does for from has have how i if in into is it its of on or so that the their then there these this to was what when where which who why will with you".split(
    " ",
  ),
);

export function queryTokens(query: string): string[] {
  // The index's terms (src/index/search-terms.ts): "retry_budget" is the words retry and budget.
  const words = termsOf(query.normalize("NFKC"));
  const unique = [...new Set(words)];
  const meaningful = unique.filter((w) => !STOP_WORDS.has(w));
  return meaningful.length > 0 ? meaningful : unique;
}

const EXCERPT_WORDS = 32;
const LEAD_WORDS = 8;
/** A code span or link longer than this is left out where the window ends in it, not cut. */
const MAX_ATOM = 160;
const words = patternOnFirstUse(() => /[\p{L}\p{N}_]+/gu);
const wordChar = patternOnFirstUse(() => /[\p{L}\p{N}_]/u);
const SPACE = /\s/g;

/**
 * Up to 32 words of a section around its first match, with " … " where text was cut,
 * read as prose (src/index/views/excerpt-text.ts): no citations, and never a cut inside an
 * inline code span or link, which is taken whole or left out. One regular expression
 * finds the first word starting with a query token.
 */
export function excerpter(tokens: string[]): (body: string) => string | null {
  const escaped = tokens.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const first = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${escaped.join("|")})`, "iu");
  return (body) => {
    const word = words();
    const { text, atoms } = excerptText(body);
    const hit = first.exec(text)?.index ?? 0;
    // Walk back a few words from the hit, then forward to fill the window. matchAll starts
    // where the word pattern's lastIndex stands, which the walk below leaves past the last excerpt.
    word.lastIndex = 0;
    const before = [...text.slice(Math.max(0, hit - 200), hit).matchAll(word)];
    const backWords = before.slice(-LEAD_WORDS);
    const start = startOutside(atoms, backWords.length > 0 ? Math.max(0, hit - 200) + backWords[0]!.index : hit, hit);
    word.lastIndex = start;
    let count = 0;
    let end = start;
    let match: RegExpExecArray | null;
    while (count < EXCERPT_WORDS && (match = word.exec(text)) !== null) {
      end = match.index + match[0].length;
      count++;
    }
    if (count === 0) return null;
    const stop = stopOutside(text, atoms, nextSpace(text, end), hit);
    const cut = text.slice(start, stop).replace(/\s+/g, " ").trim();
    if (cut === "") return null;
    const cutBefore = wordChar().test(text.slice(0, start));
    const cutAfter = wordChar().test(text.slice(stop));
    return `${cutBefore ? "… " : ""}${cut}${cutAfter ? " …" : ""}`;
  };
}

/** The next whitespace from `from`, so closing punctuation such as `]` or `.` stays with its word. */
function nextSpace(text: string, from: number): number {
  SPACE.lastIndex = from;
  return SPACE.exec(text)?.index ?? text.length;
}

function atomAround(atoms: Stretch[], at: number): Stretch | undefined {
  return atoms.find((a) => a.start < at && at < a.end);
}

/** A start inside a code span or link moves to its beginning, or past it when it is long and before the match. */
function startOutside(atoms: Stretch[], start: number, hit: number): number {
  const atom = atomAround(atoms, start);
  if (!atom) return start;
  return atom.end - atom.start <= MAX_ATOM || hit < atom.end ? atom.start : atom.end;
}

/** An end inside a code span or link moves past it (to the next space), or before it when it is long and after the match. */
function stopOutside(text: string, atoms: Stretch[], stop: number, hit: number): number {
  for (let atom = atomAround(atoms, stop); atom; atom = atomAround(atoms, stop)) {
    if (atom.end - atom.start > MAX_ATOM && atom.start > hit) return atom.start;
    stop = nextSpace(text, atom.end);
  }
  return stop;
}
