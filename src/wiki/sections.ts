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

/**
 * Splits `source` (the exact text given to markdown-it, whose line numbers the
 * headings carry) into search sections.
 */
export function splitSections(source: string, headings: readonly HeadingMark[], pageTitle: string): Section[] {
  const first = headings[0];
  if (!first) return [section(0, [pageTitle], source.trim())];

  const lines = splitLines(source);
  const sections: Section[] = [];
  const lead = lines.slice(0, first.startLine).join("").trim();
  if (lead !== "") sections.push(section(0, [pageTitle], lead));

  const open: HeadingMark[] = [];
  headings.forEach((heading, index) => {
    while (open.length > 0 && (open[open.length - 1]?.level ?? 0) >= heading.level) open.pop();
    open.push(heading);
    const end = headings[index + 1]?.startLine ?? lines.length;
    const body = lines.slice(heading.endLine, end).join("");
    sections.push(section(sections.length, open.map((h) => h.title), body));
  });
  return sections;
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

/** Lines with their terminators, counted the way markdown-it counts them (CRLF, CR or LF). */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  const terminator = /\r\n|\r|\n/g;
  let start = 0;
  for (let match = terminator.exec(text); match; match = terminator.exec(text)) {
    const end = match.index + match[0].length;
    lines.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}
