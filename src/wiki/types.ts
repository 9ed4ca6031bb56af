/** Shapes shared by the wiki-format modules; kept free of imports so fast paths stay light. */

export const SOURCE_TYPES = ["file", "web", "commit", "pr", "issue", "conversation", "wiki", "manual"] as const;

export type SourceType = (typeof SOURCE_TYPES)[number];

export type PageSource = {
  source_id: string;
  source_type: SourceType;
  target: string | null;
  title: string | null;
  retrieved_at: string | null;
  note: string | null;
  /** A file source's cited lines, as `40-88` or `40`; null for the whole file (and other types). */
  lines: string | null;
  /** The product's stamp: a fingerprint of what was cited, and the commit it was read at. */
  fingerprint: string | null;
  verified_at: string | null;
};

export type FileRef = {
  /** Case-folded shape, used for matching. */
  path: string;
  /** Same shape with the author's case, used for display and existence checks. */
  original_path: string;
  is_dir: boolean;
};

export type Section = {
  ordinal: number;
  section_id: string;
  heading: string;
  heading_path: string[];
  body: string;
};

export type PageProblem = {
  category: "frontmatter_invalid" | "source_invalid";
  message: string;
  line: number | null;
};

export type ParsedPage = {
  title: string;
  summary: string | null;
  topics: string[];
  sources: PageSource[];
  file_refs: FileRef[];
  links: string[];
  citations: string[];
  sections: Section[];
  /** Where each section's body lies in the page text given to parsePage: `text.slice(start, end)`. */
  section_spans: [start: number, end: number][];
  body: string;
  problems: PageProblem[];
};

export type TopicDef = {
  slug: string;
  title: string | null;
  description: string | null;
  parents: string[];
};
