import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { splitFrontmatter } from "../../wiki/frontmatter.js";

/** A matched section as search reads it: the page file, the section's span in it, and the file's stat as indexed. */
export interface SectionRef {
  rel_path: string;
  body_start: number | null;
  body_end: number | null;
  size: number | null;
  mtime_ms: number | null;
}

/** Decodes like the indexer (src/index/parse-file.ts): UTF-8, a leading BOM dropped, so spans line up. */
const decoder = new TextDecoder("utf-8");

/**
 * A section's text, cut from the page file: the index keeps each section's span, not a
 * second copy of its text. Search refreshes the index first, so the file is normally as
 * indexed; when its stat no longer matches (rewritten since), the spans may not fit
 * the new text, and the whole current body stands in for the section.
 */
export function sectionText(almanacPath: string, ref: SectionRef): string {
  const path = join(almanacPath, ref.rel_path);
  let text: string;
  let unchanged: boolean;
  try {
    const stat = statSync(path);
    const bytes = readFileSync(path);
    unchanged = stat.mtimeMs === ref.mtime_ms && stat.size === ref.size && bytes.length === ref.size;
    text = decoder.decode(bytes);
  } catch {
    return "";
  }
  if (unchanged && ref.body_start !== null && ref.body_end !== null) return text.slice(ref.body_start, ref.body_end);
  return splitFrontmatter(text).body.trim();
}
