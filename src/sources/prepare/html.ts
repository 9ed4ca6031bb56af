/**
 * HTML to Markdown through node-html-markdown (pure JS), loaded on first use: only a
 * run that fetches a web page pays for it, never the CLI's start-up.
 */
const DROPPED_ELEMENTS = ["script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "head"];

export interface ConvertedPage {
  title?: string;
  markdown: string;
}

export async function htmlToMarkdown(html: string): Promise<ConvertedPage> {
  const { NodeHtmlMarkdown } = await import("node-html-markdown");
  const convert = (fragment: string) => NodeHtmlMarkdown.translate(fragment, { ignore: DROPPED_ELEMENTS, maxConsecutiveNewlines: 2 });
  const rawTitle = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title = rawTitle ? convert(rawTitle).replace(/\s+/g, " ").trim() : "";
  return { ...(title ? { title } : {}), markdown: convert(html).trim() };
}

/** `<meta charset="…">` or the http-equiv form, looked for where browsers look: the first 1024 bytes. */
export function metaCharset(bytes: Uint8Array): string | undefined {
  const start = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)/i.exec(start)?.[1];
}
