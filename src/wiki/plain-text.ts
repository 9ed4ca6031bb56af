import { CITATION } from "./citations.js";
import { markdown, type Token } from "./markdown.js";

/** A citation as the renderer finds it, with the space before it. */
const SPACED_CITATION = new RegExp(`\\s*${CITATION.source}`, "g");

/**
 * A line of Markdown as a reader sees it: emphasis, code marks and link targets dropped,
 * link and image text kept, citations removed. For excerpts shown as plain text, which
 * may start or end in the middle of a construct; what does not parse stays as written.
 */
export function plainText(source: string): string {
  const pieces: { text: string; literal: boolean }[] = [];
  for (const token of markdown().parseInline(source, {})[0]?.children ?? []) collect(token, pieces);
  let out = "";
  let run = "";
  for (const piece of pieces) {
    if (piece.literal) {
      out += run.replace(SPACED_CITATION, "") + piece.text;
      run = "";
    } else {
      run += piece.text;
    }
  }
  return (out + run.replace(SPACED_CITATION, "")).replace(/\s+/g, " ").trim();
}

/** An escaped `\[@id]` or one in code is text, never a citation. */
function collect(token: Token, pieces: { text: string; literal: boolean }[]): void {
  if (token.type === "text") pieces.push({ text: token.content, literal: false });
  // Entities join the prose around them, as for citations elsewhere; escapes and code break it.
  else if (token.type === "text_special" && token.info === "entity") pieces.push({ text: token.content, literal: false });
  else if (token.type === "text_special" || token.type === "code_inline") pieces.push({ text: token.content, literal: true });
  else if (token.type === "softbreak" || token.type === "hardbreak") pieces.push({ text: " ", literal: false });
  else if (token.type === "image") for (const child of token.children ?? []) collect(child, pieces);
}
