import MarkdownIt from "markdown-it";
import { linkedRepositoryPath, SCHEME } from "./repository-path.js";
import type { MarkdownIt as MarkdownItInstance, Token } from "markdown-it";
import { resolvePageHref } from "./links.js";
import { CITATION, CITED_ID } from "./citations.js";

export interface PageRenderInput {
  /** Markdown without front matter. */
  body: string;
  slug: string;
  /** A folder's README.md (its relative links start from the folder itself). */
  isLanding: boolean;
  /** A first H1 equal to the title is dropped: the page header already shows it. */
  title: string | null;
  /** The href of a link to another page of the same wiki. */
  pageHref(slug: string): string;
  /** The href of a link to a repository file or folder (repo-relative path). */
  fileHref(path: string): string;
  pageExists(slug: string): boolean;
}

export interface RenderedPage {
  html: string;
  /** Cited source ids in first-appearance order: the citation numbers are their positions plus one. */
  citations: string[];
}

const WEB_OR_MAIL = /^(https?|mailto):/i;
const WEB = /^https?:/i;

let instance: MarkdownItInstance | undefined;

/**
 * A renderer of its own (the shared parser in markdown.ts is for indexing): CommonMark
 * with tables, raw HTML kept as text, no bare-URL links, no typographic replacements.
 */
function renderer(): MarkdownItInstance {
  if (!instance) {
    const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
    // Escapes stay separate tokens, so a literal `\[@id]` never becomes a citation.
    md.core.ruler.disable("text_join");
    const renderText = md.renderer.rules.text;
    if (renderText) md.renderer.rules.text_special = renderText;
    instance = md;
  }
  return instance;
}

/**
 * Page Markdown as safe HTML for the viewer: links only to web or mail addresses, other
 * pages (rewritten to the viewer's routes) and repository files; anything else, such as a
 * `javascript:` URL, stays plain text. `[@id]` citations become numbered links.
 */
export function renderPageHtml(input: PageRenderInput): RenderedPage {
  const md = renderer();
  const tokens = md.parse(input.body, {});
  dropTitleHeading(tokens, input.title);
  const rewriter = new InlineRewriter(md, input);
  for (const token of tokens) {
    if (token.type === "inline" && token.children) token.children = rewriter.rewrite(token.children);
  }
  return { html: md.renderer.render(tokens, md.options, {}), citations: rewriter.citations() };
}

function dropTitleHeading(tokens: Token[], title: string | null): void {
  const [open, inline] = tokens;
  if (title === null || open?.type !== "heading_open" || open.tag !== "h1" || inline?.type !== "inline") return;
  if (inline.content.trim() === title.trim()) tokens.splice(0, 3);
}

type LinkDecision = "keep" | "drop";

class InlineRewriter {
  private readonly numbers = new Map<string, number>();
  private readonly TokenClass: typeof Token;

  constructor(
    md: MarkdownItInstance,
    private readonly input: PageRenderInput,
  ) {
    this.TokenClass = new md.core.State("", md, {}).Token;
  }

  citations(): string[] {
    return [...this.numbers.keys()];
  }

  rewrite(children: Token[]): Token[] {
    const out: Token[] = [];
    const links: LinkDecision[] = [];
    let run: Token[] = [];
    const flush = () => {
      out.push(...(links.length === 0 ? this.cite(run) : run));
      run = [];
    };
    for (const child of children) {
      if (child.type === "text" || (child.type === "text_special" && child.info === "entity")) {
        run.push(child);
        continue;
      }
      flush();
      if (child.type === "link_open") {
        const decision = this.link(child);
        links.push(decision);
        if (decision === "keep") out.push(child);
      } else if (child.type === "link_close") {
        if (links.pop() === "keep") out.push(child);
      } else if (child.type === "image") {
        out.push(...this.image(child, links.length > 0));
      } else {
        out.push(child);
      }
    }
    flush();
    return out;
  }

  /** Rewrites a link in place, or says to drop it (its text stays). */
  private link(token: Token): LinkDecision {
    const href = String(token.attrGet("href") ?? "");
    if (WEB_OR_MAIL.test(href)) {
      if (!href.toLowerCase().startsWith("mailto:")) externalAttributes(token);
      return "keep";
    }
    // Protocol-relative `//host` links are dropped too: the client links only explicit http(s) and mailto.
    if (SCHEME.test(href) || href.startsWith("#") || href.startsWith("//") || href.trim() === "") return "drop";
    const page = resolvePageHref(href, this.input.slug, this.input.isLanding);
    if (page !== null) {
      token.attrSet("href", this.input.pageHref(page));
      token.attrSet("class", this.input.pageExists(page) ? "wiki-link" : "wiki-link wiki-link-missing");
      return "keep";
    }
    const file = linkedRepositoryPath(href, this.input.slug, this.input.isLanding);
    if (file === null) return "drop";
    token.attrSet("href", this.input.fileHref(file));
    token.attrSet("class", "wiki-file-link");
    return "keep";
  }

  /** Remote images would be blocked by the viewer's CSP (and tell a third party who reads): a link instead. */
  private image(token: Token, insideLink: boolean): Token[] {
    const src = String(token.attrGet("src") ?? "");
    const alt = token.content || src;
    if (insideLink || !WEB.test(src)) return [this.text(alt)];
    const open = new this.TokenClass("link_open", "a", 1);
    open.attrs = [
      ["href", src],
      ["class", "wiki-image-link"],
    ];
    externalAttributes(open);
    return [open, this.text(`Image: ${alt}`), new this.TokenClass("link_close", "a", -1)];
  }

  /** A run of adjacent text tokens with its `[@id]` citations turned into numbered links. */
  private cite(run: Token[]): Token[] {
    const text = run.map((t) => t.content).join("");
    if (!text.includes("[@")) return run;
    const out: Token[] = [];
    let last = 0;
    for (const match of text.matchAll(CITATION)) {
      if (match.index > last) out.push(this.text(text.slice(last, match.index)));
      for (const id of match[0].matchAll(CITED_ID)) out.push(...this.citation(id[1]!));
      last = match.index + match[0].length;
    }
    if (last === 0) return run;
    if (last < text.length) out.push(this.text(text.slice(last)));
    return out;
  }

  private citation(id: string): Token[] {
    let number = this.numbers.get(id);
    if (number === undefined) {
      number = this.numbers.size + 1;
      this.numbers.set(id, number);
    }
    const open = new this.TokenClass("link_open", "a", 1);
    open.attrs = [
      ["href", `#source-${encodeURIComponent(id)}`],
      ["class", "wiki-citation"],
      ["data-source-id", id],
    ];
    return [open, this.text(`[${number}]`), new this.TokenClass("link_close", "a", -1)];
  }

  private text(content: string): Token {
    const token = new this.TokenClass("text", "", 0);
    token.content = content;
    return token;
  }
}

function externalAttributes(token: Token): void {
  token.attrSet("target", "_blank");
  token.attrSet("rel", "noopener noreferrer");
}

