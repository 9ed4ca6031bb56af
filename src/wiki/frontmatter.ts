/**
 * The one front-matter splitter. Reading, indexing, validation and the topic
 * rewriters all use it, so a file can never mean one thing to `show` and another
 * to `tag`.
 */

export type FrontmatterSplit = {
  hasFrontmatter: boolean;
  /** Text between the delimiter lines (with its own line endings), or null. */
  yaml: string | null;
  /** Everything after the closing delimiter line, untouched. */
  body: string;
  /** 1-based line of the original text where `body` starts. */
  bodyStartLine: number;
  eol: "\n" | "\r\n";
  bom: boolean;
  /** Exact original text before `body`: `prefix + body === text` always holds. */
  prefix: string;
};

const BOM = "\uFEFF";
const DELIMITER = /^-{3,}[ \t]*\r?$/;

export function splitFrontmatter(text: string): FrontmatterSplit {
  const bom = text.startsWith(BOM);
  const start = bom ? BOM.length : 0;
  const openerEnd = text.indexOf("\n", start);
  const none: FrontmatterSplit = {
    hasFrontmatter: false,
    yaml: null,
    body: text.slice(start),
    bodyStartLine: 1,
    // Lets a writer that prepends a new block match the file's existing line endings.
    eol: openerEnd > start && text[openerEnd - 1] === "\r" ? "\r\n" : "\n",
    bom,
    prefix: text.slice(0, start),
  };
  if (openerEnd < 0 || !DELIMITER.test(text.slice(start, openerEnd))) return none;

  let lineStart = openerEnd + 1;
  for (let line = 2; lineStart < text.length; line++) {
    const newline = text.indexOf("\n", lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    if (DELIMITER.test(text.slice(lineStart, lineEnd))) {
      const closeEnd = newline < 0 ? text.length : newline + 1;
      const prefix = text.slice(0, closeEnd);
      return {
        hasFrontmatter: true,
        yaml: text.slice(openerEnd + 1, lineStart),
        body: text.slice(closeEnd),
        bodyStartLine: line + 1,
        eol: prefix.includes("\r\n") ? "\r\n" : "\n",
        bom,
        prefix,
      };
    }
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return none;
}
