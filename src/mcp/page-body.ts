import { resolvePageHref } from "../wiki/links.js";
import { markdownCode, type Stretch } from "../wiki/markdown-code.js";
import { linkedRepositoryPath, SCHEME } from "../wiki/repository-path.js";
import { isLandingPath } from "../wiki/slug.js";

/** The page a body belongs to: its slug, title, and file relative to almanac/. */
export interface BodyPage {
  slug: string;
  title: string | null;
  path: string;
}

const TITLE_HEADING = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const REFERENCE_DEFINITION = /^ {0,3}\[(?:[^\]\\\n]|\\.)+\]:[ \t]*/gm;

/**
 * A page's Markdown as read_page gives it to a model: without a first `# heading` that
 * only repeats the title (the reply states the title already), and with links in the
 * names the other tools take: a page link becomes the page's slug (`../queue/x.md#part` →
 * `queue/x#part`, for read_page), a link to a repository file its path from the repository
 * root (for pages_for_file). Web links, in-page anchors and code stay as written.
 */
export function readableBody(body: string, page: BodyPage): string {
  return withToolLinks(withoutTitleHeading(body, page.title), page);
}

function withoutTitleHeading(body: string, title: string | null): string {
  if (title === null) return body;
  const newline = body.indexOf("\n");
  const first = newline < 0 ? body : body.slice(0, newline);
  const heading = TITLE_HEADING.exec(first.replace(/\r$/, ""));
  if (!heading || normalized(heading[1]!) !== normalized(title)) return body;
  return newline < 0 ? "" : body.slice(newline + 1).replace(/^(?:[ \t]*\r?\n)+/, "");
}

function normalized(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

/**
 * Every link target outside code, inline (`[text](target)`) or in a reference definition,
 * rewritten where it names a page or a file. Search excerpts take it too: they never cut
 * a link, so each one in them is whole.
 */
export function withToolLinks(body: string, page: BodyPage): string {
  const { fences, spans } = markdownCode(body);
  const code = [...fences, ...spans];
  const inCode = (at: number) => code.some((c: Stretch) => c.start <= at && at < c.end);
  const targets: Stretch[] = [];
  for (let at = body.indexOf("]("); at >= 0; at = body.indexOf("](", at + 2)) {
    if (inCode(at) || !opensLink(body, at)) continue;
    const target = inlineTarget(body, at + 2);
    if (target) targets.push(target);
  }
  for (const match of body.matchAll(REFERENCE_DEFINITION)) {
    const start = match.index + match[0].length;
    if (inCode(match.index)) continue;
    const target = angled(body, start) ?? bare(body, start, false);
    if (target) targets.push(target);
  }
  targets.sort((a, b) => a.start - b.start);
  const isLanding = isLandingPath(page.path);
  let out = "";
  let cursor = 0;
  for (const target of targets) {
    const angledTarget = body[target.start] === "<";
    const href = angledTarget ? body.slice(target.start + 1, target.end - 1) : body.slice(target.start, target.end);
    const rewritten = toolHref(href, page.slug, isLanding);
    if (rewritten === null) continue;
    out += body.slice(cursor, target.start) + (/[\s()<>]/.test(rewritten) ? `<${rewritten}>` : rewritten);
    cursor = target.end;
  }
  return out + body.slice(cursor);
}

/** How far back a link's `[` is looked for: further than any link text runs. */
const MAX_LINK_TEXT = 1000;

/** True when the `]` at `close` has its unescaped `[` earlier in its paragraph: `\\[x](y)` is text, not a link. */
function opensLink(body: string, close: number): boolean {
  if (escaped(body, close)) return false;
  let depth = 0;
  for (let i = close - 1; i >= Math.max(0, close - MAX_LINK_TEXT); i--) {
    const ch = body[i];
    if (ch === "\n" && body.slice(body.lastIndexOf("\n", i - 1) + 1, i).trim() === "") return false;
    if ((ch !== "[" && ch !== "]") || escaped(body, i)) continue;
    if (ch === "]") depth++;
    else if (depth === 0) return true;
    else depth--;
  }
  return false;
}

/** An odd number of backslashes before `at`. */
function escaped(body: string, at: number): boolean {
  let n = 0;
  while (body[at - 1 - n] === "\\") n++;
  return n % 2 === 1;
}

/** The target of an inline link whose `(` is just before `from`: `<…>`, or a run without spaces and with balanced parentheses. */
function inlineTarget(body: string, from: number): Stretch | null {
  let start = from;
  while (body[start] === " " || body[start] === "\t") start++;
  return angled(body, start) ?? bare(body, start, true);
}

function angled(body: string, start: number): Stretch | null {
  if (body[start] !== "<") return null;
  const close = body.indexOf(">", start);
  if (close < 0 || body.slice(start, close).includes("\n")) return null;
  return { start, end: close + 1 };
}

function bare(body: string, start: number, inParentheses: boolean): Stretch | null {
  let depth = 0;
  let end = start;
  for (; end < body.length; end++) {
    const ch = body[end]!;
    if (/\s/.test(ch)) break;
    if (ch === "\\") {
      end++;
      continue;
    }
    if (ch === "(") depth++;
    if (ch === ")") {
      if (depth === 0 && inParentheses) break;
      depth--;
    }
  }
  return end > start ? { start, end } : null;
}

/** A page's slug (with its anchor), a repository path, or null to leave the href as written. */
function toolHref(href: string, slug: string, isLanding: boolean): string | null {
  if (href === "" || href.startsWith("#") || href.startsWith("/") || href.includes("\\") || SCHEME.test(href)) return null;
  const hash = href.indexOf("#");
  const fragment = hash < 0 ? "" : href.slice(hash);
  const target = resolvePageHref(href, slug, isLanding);
  if (target !== null) return `${target}${fragment}`;
  const path = linkedRepositoryPath(href, slug, isLanding);
  return path === null ? null : `${path}${fragment}`;
}
