/**
 * The managed block `setup` puts into an agent's global instruction file, and the pure
 * text edits that put it in and take it out. Everything outside the markers belongs to
 * the user and is kept byte for byte; the only bytes we add besides the block are one
 * blank line before it (and a final newline when the file lacked one).
 */
export const BLOCK_START = "<!-- codealmanac:start -->";
export const BLOCK_END = "<!-- codealmanac:end -->";

const GUIDE = `## CodeAlmanac wiki

A repository with an \`almanac/\` folder keeps a wiki of how its code works and why it is built that way. Read it before you change code:

- \`ca search "<words>"\` finds pages; \`ca show <slug>\` prints one.
- \`ca search --mentions <file>\` lists the pages about a file: run it before editing that file.
- \`ca topics\` shows how the pages are grouped; \`ca health\` lists stale or broken pages.

The code is the truth: when a page disagrees with it, trust the code and say which page is out of date.
Cite the pages you relied on as Markdown links to their files, such as \`[Run queue](almanac/architecture/run-queue.md)\`.
Do not edit \`almanac/\` on the side of another task. The wiki is maintained by \`ca ingest\`, \`ca garden\` and scheduled sync; when you learn something worth keeping, say so, or run \`ca ingest <file>\` if asked to.`;

/** The block as written, markers included, without a trailing newline. */
export function managedBlock(newline = "\n"): string {
  return [BLOCK_START, ...GUIDE.split("\n"), BLOCK_END].join(newline);
}

export interface BlockLocation {
  start: number;
  /** Just past the end marker. */
  end: number;
}

export class MalformedBlockError extends Error {}

/** Where the managed block is, null when absent; a start without its end (or the reverse) is malformed. */
export function findBlock(text: string): BlockLocation | null {
  const start = text.indexOf(BLOCK_START);
  const endMarker = text.indexOf(BLOCK_END, start === -1 ? 0 : start);
  if (start === -1 && text.indexOf(BLOCK_END) === -1) return null;
  if (start === -1 || endMarker === -1) {
    throw new MalformedBlockError(start === -1 ? "an end marker without a start marker" : "a start marker without an end marker");
  }
  if (text.indexOf(BLOCK_START, start + BLOCK_START.length) !== -1) throw new MalformedBlockError("two start markers");
  return { start, end: endMarker + BLOCK_END.length };
}

/** The file's own line ending, so the block matches it. */
export function lineEnding(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

/** The text with the block in place: replaced where it is, else appended after a blank line. */
export function upsertBlock(text: string): string {
  const newline = lineEnding(text);
  const block = managedBlock(newline);
  const found = findBlock(text);
  if (found) return text.slice(0, found.start) + block + text.slice(found.end);
  if (text === "") return block + newline;
  const ended = text.endsWith("\n") ? text : text + newline;
  return ended + newline + block + newline;
}

/** The text without the block, its newline and the blank line `upsertBlock` put before it. */
export function removeBlock(text: string): string {
  const found = findBlock(text);
  if (!found) return text;
  let { start, end } = found;
  if (text.startsWith("\r\n", end)) end += 2;
  else if (text.startsWith("\n", end)) end += 1;
  const before = text.slice(0, start);
  if (before.endsWith("\r\n\r\n")) start -= 2;
  else if (before.endsWith("\n\n")) start -= 1;
  return text.slice(0, start) + text.slice(end);
}
