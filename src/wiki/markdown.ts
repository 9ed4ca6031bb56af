import MarkdownIt from "markdown-it";
import type { MarkdownIt as MarkdownItInstance, Token } from "markdown-it";

export type { Token } from "markdown-it";

let instance: MarkdownItInstance | undefined;

/**
 * The shared CommonMark parser, built on first use because markdown-it is costly
 * to set up and most commands never parse Markdown. Raw HTML and bare URLs stay
 * text, so only written links are links.
 *
 * Backslash escapes and entities stay separate `text_special` tokens (the core
 * `text_join` rule is off) so scanners can tell a literal `\[@id]` from a
 * citation; they render exactly like text.
 */
export function markdown(): MarkdownItInstance {
  if (!instance) {
    const md = new MarkdownIt({ html: false, linkify: false });
    md.core.ruler.disable("text_join");
    const renderText = md.renderer.rules.text;
    if (renderText) md.renderer.rules.text_special = renderText;
    instance = md;
  }
  return instance;
}

export function parseMarkdown(source: string): Token[] {
  return markdown().parse(source, {});
}
