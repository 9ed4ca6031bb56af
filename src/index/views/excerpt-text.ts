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

export function excerptText(body: string): ExcerptText {
  const { fences, spans } = markdownCode(body);
  const code: (Stretch & { content?: Stretch })[] = [
    ...fences.map((f) => ({ start: f.start, end: f.end, content: { start: f.contentStart, end: f.contentEnd } })),
    ...spans,
  ].sort((a, b) => a.start - b.start);
  let text = "";
  const atoms: Stretch[] = [];
  let cursor = 0;
  for (const piece of code) {
    text += withoutCitations(body.slice(cursor, piece.start), text[text.length - 1], body[piece.start]);
    if (piece.content) {
      // Fence lines are Markdown marks, not words; the code they hold reads as text.
      text += `\n${body.slice(piece.content.start, piece.content.end)}\n`;
    } else {
      atoms.push({ start: text.length, end: text.length + piece.end - piece.start });
      text += body.slice(piece.start, piece.end);
    }
    cursor = piece.end;
  }
  text += withoutCitations(body.slice(cursor), text[text.length - 1], undefined);
  return { text, atoms: merged([...atoms, ...linksOutside(text, atoms)]) };
}

/**
 * `[@id]` citations leave with the space before them; where that would join what stood
 * apart (`word [@id]next`, `word [@id]\`code\``), one space stays. An escaped `\[@id]` is text and stays.
 */
function withoutCitations(prose: string, previous: string | undefined, following: string | undefined): string {
  return prose.replace(CITATIONS, (match: string, space: string, offset: number) => {
    const at = offset + space.length;
    if ((at > 0 ? prose[at - 1] : previous) === "\\") return match;
    const before = offset > 0 ? prose[offset - 1] : previous;
    const end = offset + match.length;
    const after = end < prose.length ? prose[end] : following;
    return before !== undefined && after !== undefined && !/\s/.test(before) && !CLOSING.test(after) ? " " : "";
  });
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
