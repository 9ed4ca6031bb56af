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
  const words = query.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const unique = [...new Set(words)];
  const meaningful = unique.filter((w) => !STOP_WORDS.has(w));
  return meaningful.length > 0 ? meaningful : unique;
}

const EXCERPT_WORDS = 32;
const LEAD_WORDS = 8;
const WORD = /[\p{L}\p{N}_]+/gu;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/**
 * Up to 32 words of a section around its first match, with " … " where text was cut.
 * One regular expression finds the first word starting with a query token.
 */
export function excerpter(tokens: string[]): (body: string) => string | null {
  const escaped = tokens.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const first = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${escaped.join("|")})`, "iu");
  return (body) => {
    const hit = first.exec(body)?.index ?? 0;
    // Walk back a few words from the hit, then forward to fill the window. matchAll starts
    // where WORD's lastIndex stands, which the walk below leaves past the last excerpt.
    WORD.lastIndex = 0;
    const before = [...body.slice(Math.max(0, hit - 200), hit).matchAll(WORD)];
    const backWords = before.slice(-LEAD_WORDS);
    const start = backWords.length > 0 ? Math.max(0, hit - 200) + backWords[0]!.index : hit;
    WORD.lastIndex = start;
    let count = 0;
    let end = start;
    let match: RegExpExecArray | null;
    while (count < EXCERPT_WORDS && (match = WORD.exec(body)) !== null) {
      end = match.index + match[0].length;
      count++;
    }
    if (count === 0) return null;
    // Extend to the next whitespace so closing punctuation such as `]` or `.` stays with its word.
    const tail = /\s/.exec(body.slice(end));
    const stop = tail ? end + tail.index : body.length;
    const text = body.slice(start, stop).replace(/\s+/g, " ").trim();
    if (text === "") return null;
    const cutBefore = WORD_CHAR.test(body.slice(0, start));
    const cutAfter = WORD_CHAR.test(body.slice(stop));
    return `${cutBefore ? "… " : ""}${text}${cutAfter ? " …" : ""}`;
  };
}
