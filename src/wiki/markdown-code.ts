/** A half-open stretch of a text: `text.slice(start, end)`. */
export interface Stretch {
  start: number;
  end: number;
}

/** A fenced code block: its whole extent (fence lines included) and its content between the fences. */
export interface Fence extends Stretch {
  contentStart: number;
  contentEnd: number;
}

/** Where a Markdown text holds code, in text order: fenced blocks, and inline code spans (backticks included). */
export interface MarkdownCode {
  fences: Fence[];
  spans: Stretch[];
}

/** Any indentation is allowed, so fences nested in list items are found too. */
const FENCE_OPEN = /^[ \t]*(`{3,}|~{3,})(.*)$/;
/** Lines that start a block of their own: an inline code span never reaches across them. */
const BLOCK_START = /^ {0,3}(?:#{1,6}(?:[ \t]|$)|[-*+][ \t]|\d{1,9}[.)][ \t]|>)/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;

/**
 * Finds the code in Markdown the way CommonMark pairs it, without a full parse: fenced
 * blocks by their fence lines, and inside each paragraph, code spans as a run of backticks
 * closed by the next run of the same length (an unmatched run is literal text, and a
 * backslash escapes the character after it). Excerpts use it to never cut a span in two,
 * and link rewriting to leave code alone.
 */
export function markdownCode(text: string): MarkdownCode {
  const fences: Fence[] = [];
  const spans: Stretch[] = [];
  let paragraph: number | null = null;
  let open: { marker: string; length: number; start: number; contentStart: number } | null = null;
  const endParagraph = (end: number) => {
    if (paragraph !== null) codeSpansIn(text, paragraph, end, spans);
    paragraph = null;
  };
  let pos = 0;
  while (pos <= text.length) {
    const newline = text.indexOf("\n", pos);
    const lineEnd = newline < 0 ? text.length : newline;
    const next = newline < 0 ? text.length + 1 : newline + 1;
    const line = text.slice(pos, lineEnd).replace(/\r$/, "");
    if (open !== null) {
      if (closesFence(line, open.marker, open.length)) {
        fences.push({ start: open.start, end: lineEnd, contentStart: open.contentStart, contentEnd: pos });
        open = null;
      }
    } else {
      const fence = FENCE_OPEN.exec(line);
      // A backtick fence's info string holds no backtick (CommonMark), else it is inline code.
      if (fence && !(fence[1]![0] === "`" && fence[2]!.includes("`"))) {
        endParagraph(pos);
        open = { marker: fence[1]![0]!, length: fence[1]!.length, start: pos, contentStart: Math.min(next, text.length) };
      } else if (line.trim() === "") {
        endParagraph(pos);
      } else if (BLOCK_START.test(line)) {
        endParagraph(pos);
        paragraph = pos;
        if (ATX_HEADING.test(line)) endParagraph(lineEnd);
      } else if (paragraph === null) {
        paragraph = pos;
      }
    }
    pos = next;
  }
  if (open !== null) fences.push({ start: open.start, end: text.length, contentStart: open.contentStart, contentEnd: text.length });
  endParagraph(text.length);
  return { fences, spans };
}

function closesFence(line: string, marker: string, length: number): boolean {
  const trimmed = line.trim();
  if (trimmed.length < length) return false;
  for (const ch of trimmed) if (ch !== marker) return false;
  return true;
}

/**
 * Code spans of one paragraph, `text.slice(from, to)`. Once a run length finds no closer,
 * no later run of that length can, so each length is searched for at most once in vain.
 */
function codeSpansIn(text: string, from: number, to: number, out: Stretch[]): void {
  const unmatched = new Set<number>();
  const marks = /[\\`]/g;
  let i = from;
  while (i < to) {
    marks.lastIndex = i;
    const mark = marks.exec(text);
    if (mark === null || mark.index >= to) return;
    i = mark.index;
    if (text[i] === "\\") {
      i += 2;
      continue;
    }
    const runEnd = runEndAt(text, i, to);
    const length = runEnd - i;
    const close = unmatched.has(length) ? -1 : closingRun(text, runEnd, to, length);
    if (close < 0) {
      unmatched.add(length);
      i = runEnd;
      continue;
    }
    out.push({ start: i, end: close + length });
    i = close + length;
  }
}

function runEndAt(text: string, at: number, to: number): number {
  let end = at;
  while (end < to && text[end] === "`") end++;
  return end;
}

function closingRun(text: string, from: number, to: number, length: number): number {
  let k = from;
  while (k < to) {
    const at = text.indexOf("`", k);
    if (at < 0 || at >= to) return -1;
    const end = runEndAt(text, at, to);
    if (end - at === length) return at;
    k = end;
  }
  return -1;
}
