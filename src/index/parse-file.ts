import { basename } from "node:path";
import { titleForSlug } from "../core/kebab.js";
import { evidenceDigest } from "../wiki/evidence.js";
import { emptyBody, parsePage, type ParsedPage } from "../wiki/page.js";
import { findCycles, parseTopicsFile, type TopicDef } from "../wiki/topics-file.js";
import { isLandingPath } from "../wiki/slug.js";
import type { ScannedFile } from "./scan.js";
import { MAX_INDEXED_BYTES } from "./layout.js";
import { readPageHead, type PageHead } from "./page-file.js";
import { pageTerms, type PageTerms } from "./search-terms.js";

/** Loaded lazily: this module pulls in markdown-it and yaml, which unchanged reads never need. */

export interface FileProblem {
  category: string;
  message: string;
  line: number | null;
}

/** One search section as the index stores it: its heading, and where its body lies (its terms are the page's `search`). */
export interface IndexedSection {
  heading: string;
  /**
   * The body is `text.slice(start, end)` of the page text as decoded here (UTF-8, a leading BOM
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
  /** The sections' terms, for search (src/index/search-terms.ts). */
  search: PageTerms;
  /** `evidenceDigest` of the page's file sources, computed by the parser so the writing thread (a rebuild's critical path) need not. */
  evidenceDigest: string;
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
  /** `wikiRoot` is the wiki folder's real path: a page is read only when it really lies inside it. */
  parseFile(file: ScannedFile, wikiRoot: string, knownHash?: string): ParsedFile;
  parseTopics(path: string, wikiRoot: string): TopicsParse;
  titleForSlug(slug: string): string;
  findCycles(topics: TopicDef[]): string[][];
}


const decoder = new TextDecoder("utf-8", { fatal: true });

export function createPageParser(): PageParser {
  return { parseFile, parseTopics, titleForSlug, findCycles };
}

function parseFile(file: ScannedFile, wikiRoot: string, knownHash?: string): ParsedFile {
  let head: PageHead;
  try {
    // The bytes are decoded and hashed here and never kept.
    head = readPageHead(file.absPath, wikiRoot, { hash: knownHash === undefined, scratch: true });
  } catch (error) {
    return skipped(file, "", "page_unreadable", `page could not be read (${readFailure(error)})`);
  }
  const hash = knownHash ?? head.hash!;
  const bytes = head.bytes;
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
  if (head.truncated) {
    problems.push({
      category: "page_truncated",
      message: `page is ${(head.size / 1024 / 1024).toFixed(1)} MB; only the first ${MAX_INDEXED_BYTES / 1024 / 1024} MB are indexed`,
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
  return { file, state: "page", hash, problems, truncated: head.truncated, emptyBody: emptyBody(page.body), page: indexedPage(page, file.relPath) };
}

function indexedPage(page: ParsedPage, relPath: string): IndexedPage {
  const { title, summary, topics, sources, file_refs, links, citations } = page;
  const sections = page.sections.map((section, i) => {
    const [start, end] = page.section_spans[i]!;
    return { heading: section.heading, start, end };
  });
  const search = pageTerms(title, page.sections);
  return { title, summary, topics, sources, file_refs, links, citations, sections, search, evidenceDigest: evidenceDigest(relPath, sources) };
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

/** An open refused because the file led outside the wiki or was no file, in words; else the system's code. */
function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EOUTSIDE") return "it leads outside almanac/";
  if (code === "ENOTREG") return "not a regular file";
  return code ?? "error";
}

/** A NUL byte in the first 8 KB is the usual binary sniff (git uses the same rule). */
function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

function parseTopics(path: string, wikiRoot: string): TopicsParse {
  let text: string | null = null;
  try {
    text = decoder.decode(readPageHead(path, wikiRoot, { limit: Infinity }).bytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") {
      return { topics: [], problems: [{ message: "topics.yaml could not be read as UTF-8 text", line: null }] };
    }
  }
  const parsed = parseTopicsFile(text);
  return { topics: parsed.topics, problems: parsed.problems };
}
