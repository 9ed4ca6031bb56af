import { CITATION } from "../../wiki/citations.js";
import { markdownCode, type Stretch } from "../../wiki/markdown-code.js";

/**
 * A section's text as excerpts are cut from: citations gone, fence lines gone (the code
 * between them stays), and the stretches a cut must not fall inside: inline code spans
 * and inline links, each whole with its marks.
 */
export interface ExcerptText {
  text: string;
  /** In text order, never overlapping. */
  atoms: Stretch[];
}

const CITATIONS = new RegExp(`(\\s*)${CITATION.source}`, "g");
const LINK = /!?\[[^\]\n]*\]\([^()\s]*(?:\s+"[^"\n]*")?\)/g;
/** What may follow a word directly: a citation before it leaves no space behind. */
const CLOSING = /[\s.,;:!?)\]}'"…]/;

/** A stretch of the section replaced in the excerpt's text. */
interface Edit extends Stretch {
  text: string;
}

export function excerptText(body: string): ExcerptText {
  const { fences, spans } = markdownCode(body);
  const code = [...fences, ...spans].sort((a, b) => a.start - b.start);
  // Fence lines are Markdown marks, not words; the code they hold reads as text.
  const edits: Edit[] = fences.flatMap((f) => [
    { start: f.start, end: f.contentStart, text: "\n" },
    ...(f.contentEnd < f.end ? [{ start: f.contentEnd, end: f.end, text: "\n" }] : []),
  ]);
  edits.push(...citations(body, code));
  edits.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  const atoms: Stretch[] = [];
  let cursor = 0;
  let shift = 0;
  let next = 0;
  for (const span of spans) {
    for (; next < edits.length && edits[next]!.start < span.start; next++) {
      const edit = edits[next]!;
      parts.push(body.slice(cursor, edit.start), edit.text);
      shift += edit.text.length - (edit.end - edit.start);
      cursor = edit.end;
    }
    atoms.push({ start: span.start + shift, end: span.end + shift });
  }
  for (; next < edits.length; next++) {
    parts.push(body.slice(cursor, edits[next]!.start), edits[next]!.text);
    cursor = edits[next]!.end;
  }
  parts.push(body.slice(cursor));
  const text = parts.join("");
  return { text, atoms: merged([...atoms, ...linksOutside(text, atoms)]) };
}

/**
 * `[@id]` citations leave with the space before them; where that would join what stood
 * apart (`word [@id]next`, `word [@id]\`code\``), one space stays. One in code, or escaped
 * (`\\[@id]`), is text and stays.
 */
function citations(body: string, code: Stretch[]): Edit[] {
  if (!body.includes("[@")) return [];
  const edits: Edit[] = [];
  for (const match of body.matchAll(CITATIONS)) {
    const at = match.index + match[1]!.length;
    if (body[at - 1] === "\\" || within(code, at)) continue;
    const end = match.index + match[0].length;
    const before = body[match.index - 1];
    const after = body[end];
    const joins = before !== undefined && after !== undefined && !/\s/.test(before) && !CLOSING.test(after);
    edits.push({ start: match.index, end, text: joins ? " " : "" });
  }
  return edits;
}

/** Whether `at` lies inside one of the sorted, non-overlapping stretches. */
function within(stretches: Stretch[], at: number): boolean {
  let low = 0;
  let high = stretches.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const s = stretches[mid]!;
    if (at < s.start) high = mid - 1;
    else if (at >= s.end) low = mid + 1;
    else return true;
  }
  return false;
}

/** Inline links `[text](target)` (images too) that do not start inside a code span. */
function linksOutside(text: string, code: Stretch[]): Stretch[] {
  const links: Stretch[] = [];
  for (const match of text.matchAll(LINK)) {
    const start = match.index;
    if (code.some((c) => c.start < start && start < c.end)) continue;
    links.push({ start, end: start + match[0].length });
  }
  return links;
}

/** Sorted, with overlapping stretches (a link around a code span) joined. */
function merged(stretches: Stretch[]): Stretch[] {
  const sorted = stretches.sort((a, b) => a.start - b.start);
  const out: Stretch[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
