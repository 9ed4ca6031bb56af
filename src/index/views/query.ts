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

const WORD = /[\p{L}\p{N}_]+/gu;
const EXCERPT_TOKENS = 32;

/** Up to 32 words of the section around its first match, with " … " where text was cut. */
export function excerptFor(body: string, tokens: string[]): string | null {
  const words = [...body.matchAll(WORD)];
  if (words.length === 0) return null;
  const folded = tokens.map(fold);
  let hit = words.findIndex((m) => {
    const w = fold(m[0]);
    return folded.some((t) => w.startsWith(t));
  });
  if (hit < 0) hit = 0;
  const start = Math.max(0, Math.min(hit - 8, words.length - EXCERPT_TOKENS));
  const end = Math.min(words.length, start + EXCERPT_TOKENS);
  const first = words[start]!;
  const last = words[end - 1]!;
  // Extend to the next whitespace so closing punctuation such as `]` or `.` stays with its word.
  const tail = /\s/.exec(body.slice(last.index + last[0].length));
  const stop = tail ? last.index + last[0].length + tail.index : body.length;
  const text = body
    .slice(first.index, stop)
    .replace(/\s+/g, " ")
    .trim();
  if (text === "") return null;
  return `${start > 0 ? "… " : ""}${text}${end < words.length ? " …" : ""}`;
}

function fold(word: string): string {
  return word.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase();
}
