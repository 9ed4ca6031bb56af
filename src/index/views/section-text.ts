import { join } from "node:path";
import { splitFrontmatter } from "../../wiki/frontmatter.js";
import { MAX_INDEXED_BYTES } from "../layout.js";
import { readPageHead } from "../page-file.js";

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
 * the new text, and the whole current body (of its first 2 MB) stands in for the section.
 * Only the bytes the span can reach are read: a UTF-16 unit of the decoded text takes at
 * most 3 bytes, plus 3 for a BOM. `wikiRoot` is almanac/'s real path, which the file must
 * really lie inside.
 */
export function sectionText(almanacPath: string, wikiRoot: string, ref: SectionRef): string {
  const path = join(almanacPath, ref.rel_path);
  const spanned = ref.body_start !== null && ref.body_end !== null;
  const reach = spanned ? Math.min(MAX_INDEXED_BYTES, ref.body_end! * 3 + 3) : MAX_INDEXED_BYTES;
  try {
    const head = readPageHead(path, wikiRoot, { limit: reach });
    if (spanned && head.mtimeMs === ref.mtime_ms && head.size === ref.size) return decoder.decode(head.bytes).slice(ref.body_start!, ref.body_end!);
    const whole = reach === MAX_INDEXED_BYTES ? head : readPageHead(path, wikiRoot);
    return splitFrontmatter(decoder.decode(whole.bytes)).body.trim();
  } catch {
    return "";
  }
}
