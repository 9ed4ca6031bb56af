import type { Token } from "./markdown.js";
import type { Section } from "./types.js";

export type HeadingMark = {
  level: number;
  title: string;
  /** 0-based first source line of the heading (setext headings span several). */
  startLine: number;
  /** 0-based line just after the heading. */
  endLine: number;
};

/**
 * Document-level headings. A heading nested in a quote or list item belongs to
 * that block's content, and headings inside code are never heading tokens.
 */
export function headingsOf(tokens: readonly Token[]): HeadingMark[] {
  const headings: HeadingMark[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const open = tokens[i];
    if (!open || open.type !== "heading_open" || open.level !== 0 || !open.map) continue;
    const inline = tokens[i + 1];
    headings.push({
      level: Number(open.tag.slice(1)),
      title: headingText(inline?.type === "inline" ? inline.content : ""),
      startLine: open.map[0],
      endLine: open.map[1],
    });
  }
  return headings;
}

/** Setext headings may wrap; the stored title is one line. */
function headingText(raw: string): string {
  return raw.replace(/[ \t]*(?:\r\n|\r|\n)[ \t]*/g, " ").trim();
}

/** Where a section's body lies in the text it was split from: `text.slice(start, end)` is the body. */
export type SectionSpan = [start: number, end: number];

/**
 * Splits `source` (the exact text given to markdown-it, whose line numbers the
 * headings carry) into search sections, with the span of `source` each body is (the
 * index stores spans, not bodies, and cuts search excerpts from the page file with them).
 */
export function splitSections(
  source: string,
  headings: readonly HeadingMark[],
  pageTitle: string,
): { sections: Section[]; spans: SectionSpan[] } {
  const sections: Section[] = [];
  const spans: SectionSpan[] = [];
  const add = (path: string[], span: SectionSpan) => {
    sections.push(section(sections.length, path, source.slice(span[0], span[1])));
    spans.push(span);
  };
  const first = headings[0];
  if (!first) {
    add([pageTitle], trimmed(source, 0, source.length));
    return { sections, spans };
  }

  const starts = lineStarts(source);
  const at = (line: number) => starts[Math.min(line, starts.length - 1)]!;
  const lead = trimmed(source, 0, at(first.startLine));
  if (lead[1] > lead[0]) add([pageTitle], lead);

  const open: HeadingMark[] = [];
  headings.forEach((heading, index) => {
    while (open.length > 0 && (open[open.length - 1]?.level ?? 0) >= heading.level) open.pop();
    open.push(heading);
    const end = headings[index + 1]?.startLine ?? starts.length - 1;
    const from = at(heading.endLine);
    add(open.map((h) => h.title), [from, Math.max(from, at(end))]);
  });
  return { sections, spans };
}

/** The span of `text.slice(start, end).trim()`, as String.prototype.trim (and `\s`) define whitespace. */
function trimmed(text: string, start: number, end: number): SectionSpan {
  const raw = text.slice(start, end);
  const from = start + (raw.length - raw.trimStart().length);
  const to = end - (raw.length - raw.trimEnd().length);
  return to > from ? [from, to] : [start, start];
}

function section(ordinal: number, path: string[], body: string): Section {
  return {
    ordinal,
    section_id: String(ordinal).padStart(4, "0"),
    heading: path.join(" › "),
    heading_path: path,
    body,
  };
}

/**
 * Where each line starts, counting lines the way markdown-it does (CRLF, CR or LF), then
 * the text's length: line i is `text.slice(starts[i], starts[i + 1])`.
 */
function lineStarts(text: string): number[] {
  const starts = [0];
  const terminator = /\r\n|\r|\n/g;
  for (let match = terminator.exec(text); match; match = terminator.exec(text)) {
    const end = match.index + match[0].length;
    if (end < text.length) starts.push(end);
  }
  starts.push(text.length);
  return starts;
}
