import MarkdownIt from "markdown-it";
import type { MarkdownIt as MarkdownItInstance, Token } from "markdown-it";
import { fastParse } from "./fast-parse.js";

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
  instance ??= commonMark();
  return instance;
}

function commonMark(): MarkdownItInstance {
  const md = new MarkdownIt({ html: false, linkify: false });
  md.core.ruler.disable("text_join");
  const renderText = md.renderer.rules.text;
  if (renderText) md.renderer.rules.text_special = renderText;
  return md;
}

let pageInstance: MarkdownItInstance | undefined;

/**
 * The page parser's instance: the shared parser's rules, except that an inline run holding
 * no `[`, `<` or `&` is left unparsed (no children). Only links and citations are read from
 * inline tokens (src/wiki/page.ts), and without those characters a run has neither: a link
 * needs brackets or an autolink's `<`, a citation `[` (or an entity such as `&#91;`). The
 * heading text is the run's source, which stays. Inline parsing is most of markdown-it's
 * time, and most prose runs of a page hold none of them.
 */
function pageMarkdown(): MarkdownItInstance {
  if (!pageInstance) {
    const md = commonMark();
    md.core.ruler.at("inline", (state) => {
      const all = !fastParse();
      for (const token of state.tokens) {
        if (token.type !== "inline" || !token.children) continue;
        if (all || MAY_HOLD_LINK_OR_CITATION.test(token.content)) state.md.inline.parse(token.content, state.md, state.env, token.children);
      }
    });
    pageInstance = md;
  }
  return pageInstance;
}

const MAY_HOLD_LINK_OR_CITATION = /[[<&]/;

/** Block tokens of a page, with the inline children links and citations need (see pageMarkdown). */
export function parseMarkdown(source: string): Token[] {
  return pageMarkdown().parse(source, {});
}
