import { titleForSlug } from "../core/kebab.js";
import { citationsOf } from "./citations.js";
import { fileRefsFromSources } from "./file-refs.js";
import { splitFrontmatter } from "./frontmatter.js";
import { resolvePageHref } from "./links.js";
import { parseMarkdown } from "./markdown.js";
import type { Token } from "./markdown.js";
import { readPageMeta } from "./page-meta.js";
import { headingsOf, splitSections } from "./sections.js";
import type { HeadingMark } from "./sections.js";
import type { PageProblem, ParsedPage } from "./types.js";

export type {
  FileRef,
  PageProblem,
  PageSource,
  ParsedPage,
  Section,
  SourceType,
} from "./types.js";

export type PageInput = {
  slug: string;
  isLanding: boolean;
  text: string;
  /** File name without `.md`, the last title fallback for ordinary pages. */
  fileStem: string;
};

/** Turns one page file's text into everything the index stores about it. */
export function parsePage(input: PageInput): ParsedPage {
  const split = splitFrontmatter(input.text);
  const problems: PageProblem[] = [];
  const meta = readPageMeta(split, problems);

  // Trailing whitespace only: leading indentation can be an indented code block.
  const source = split.body.trimEnd();
  const tokens = parseMarkdown(source);
  const headings = headingsOf(tokens);
  const title = meta.title ?? firstH1(headings) ?? fallbackTitle(input);
  const { sections, spans } = splitSections(source, headings, title);
  // `source` starts where the body does: right after the front matter (`prefix`).
  const offset = split.prefix.length;

  return {
    title,
    summary: meta.summary,
    topics: meta.topics,
    sources: meta.sources,
    file_refs: fileRefsFromSources(meta.sources),
    links: pageLinks(tokens, input.slug, input.isLanding),
    citations: citationsOf(tokens),
    sections,
    section_spans: spans.map(([start, end]) => [offset + start, offset + end]),
    body: split.body.trim(),
    problems,
  };
}

function firstH1(headings: readonly HeadingMark[]): string | null {
  return headings.find((heading) => heading.level === 1 && heading.title !== "")?.title ?? null;
}

function fallbackTitle(input: PageInput): string {
  if (!input.isLanding) return input.fileStem;
  if (input.slug === "README") return "README";
  const folder = input.slug.slice(input.slug.lastIndexOf("/") + 1);
  return titleForSlug(folder) || folder;
}

function pageLinks(tokens: readonly Token[], slug: string, isLanding: boolean): string[] {
  const targets = new Set<string>();
  for (const token of tokens) {
    if (token.type !== "inline" || !token.children) continue;
    for (const child of token.children) {
      if (child.type !== "link_open") continue;
      const href = child.attrGet("href");
      const target = typeof href === "string" ? resolvePageHref(href, slug, isLanding) : null;
      if (target !== null) targets.add(target);
    }
  }
  return [...targets].sort();
}

const ATX_HEADING_LINE = /^ {0,3}#{1,6}(?:[ \t]|$)/;

/** One line and its end (CRLF, CR or LF, as markdown-it counts lines), from `lastIndex` on. */
const LINE = /([^\r\n]*)(?:\r\n|\r|\n|$)/y;

/** True when a body holds nothing but ATX heading lines and whitespace (read up to its first other line). */
export function emptyBody(body: string): boolean {
  LINE.lastIndex = 0;
  while (LINE.lastIndex < body.length) {
    const line = LINE.exec(body)![1]!;
    if (line.trim() !== "" && !ATX_HEADING_LINE.test(line)) return false;
  }
  return true;
}
