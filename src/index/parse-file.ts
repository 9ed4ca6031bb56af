import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { titleForSlug } from "../core/kebab.js";
import { sha256Hex } from "../core/crypto.js";
import { emptyBody, parsePage, type ParsedPage } from "../wiki/page.js";
import { findCycles, parseTopicsFile, type TopicDef } from "../wiki/topics-file.js";
import { isLandingPath } from "../wiki/slug.js";
import type { ScannedFile } from "./scan.js";
import { MAX_INDEXED_CHARS } from "./layout.js";

/** Loaded lazily: this module pulls in markdown-it and yaml, which unchanged reads never need. */

export interface FileProblem {
  category: string;
  message: string;
  line: number | null;
}

/** One search section as the index stores it: its body is indexed, and only its span kept. */
export interface IndexedSection {
  heading: string;
  body: string;
  /**
   * `body` is `text.slice(start, end)` of the page text as decoded here (UTF-8, a leading BOM
   * dropped), which src/index/views/section-text.ts decodes the same way to cut excerpts.
   */
  start: number;
  end: number;
}

/**
 * What the index stores of a page: the parse without what it never reads (the whole
 * body, heading paths), so results sent back from parse workers stay small.
 */
export type IndexedPage = Pick<ParsedPage, "title" | "summary" | "topics" | "sources" | "file_refs" | "links" | "citations"> & {
  sections: IndexedSection[];
};

export interface ParsedFile {
  file: ScannedFile;
  state: "page" | "skipped";
  hash: string;
  problems: FileProblem[];
  truncated: boolean;
  emptyBody: boolean;
  page: IndexedPage | null;
}

export interface TopicsParse {
  topics: TopicDef[];
  problems: { message: string; line: number | null }[];
}

export interface PageParser {
  parseFile(file: ScannedFile, knownHash?: string): ParsedFile;
  parseTopics(path: string): TopicsParse;
  titleForSlug(slug: string): string;
  findCycles(topics: TopicDef[]): string[][];
}


const decoder = new TextDecoder("utf-8", { fatal: true });

export function createPageParser(): PageParser {
  return { parseFile, parseTopics, titleForSlug, findCycles };
}

function parseFile(file: ScannedFile, knownHash?: string): ParsedFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file.absPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return skipped(file, "", "page_unreadable", `page could not be read (${code})`);
  }
  const hash = knownHash ?? sha256Hex(bytes);
  if (looksBinary(bytes)) {
    return skipped(file, hash, "binary_page", "binary file named .md; not indexed");
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return skipped(file, hash, "page_undecodable", "page is not valid UTF-8; not indexed");
  }
  const problems: FileProblem[] = [];
  let truncated = false;
  if (bytes.length > MAX_INDEXED_CHARS) {
    truncated = true;
    text = text.slice(0, MAX_INDEXED_CHARS);
    problems.push({
      category: "page_truncated",
      message: `page is ${(bytes.length / 1024 / 1024).toFixed(1)} MB; only the first 2 MB are indexed`,
      line: null,
    });
  }
  const page = parsePage({
    slug: file.slug,
    isLanding: isLandingPath(file.relPath),
    text,
    fileStem: basename(file.relPath, ".md"),
  });
  for (const problem of page.problems) problems.push({ ...problem });
  return { file, state: "page", hash, problems, truncated, emptyBody: emptyBody(page.body), page: indexedPage(page) };
}

function indexedPage(page: ParsedPage): IndexedPage {
  const { title, summary, topics, sources, file_refs, links, citations } = page;
  const sections = page.sections.map((section, i) => {
    const [start, end] = page.section_spans[i]!;
    return { heading: section.heading, body: section.body, start, end };
  });
  return { title, summary, topics, sources, file_refs, links, citations, sections };
}

function skipped(file: ScannedFile, hash: string, category: string, message: string): ParsedFile {
  return {
    file,
    state: "skipped",
    hash,
    problems: [{ category, message, line: null }],
    truncated: false,
    emptyBody: false,
    page: null,
  };
}

/** A NUL byte in the first 8 KB is the usual binary sniff (git uses the same rule). */
function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

function parseTopics(path: string): TopicsParse {
  let text: string | null = null;
  try {
    text = decoder.decode(readFileSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") {
      return { topics: [], problems: [{ message: "topics.yaml could not be read as UTF-8 text", line: null }] };
    }
  }
  const parsed = parseTopicsFile(text);
  return { topics: parsed.topics, problems: parsed.problems };
}
