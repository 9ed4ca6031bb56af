/* global document */
// Just enough Markdown for assistant messages in a transcript, built as DOM nodes (never
// as HTML): paragraphs, lists, fenced code, `code`, **bold**, *emphasis* and links whose
// URL passes safeHref (any other link stays plain text).
import { el, link } from "./dom.js";

const INLINE = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\[[^\]\n]+\]\([^)\s]+\))|(\*[^*\s\n][^*\n]*\*)/g;

export function miniMarkdown(text) {
  const fragment = document.createDocumentFragment();
  for (const block of blocks(text)) fragment.append(renderBlock(block));
  return fragment;
}

function blocks(text) {
  const out = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let current = [];
  const flush = () => {
    if (current.length > 0) out.push({ kind: "text", lines: current });
    current = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trimStart().startsWith("```")) {
      flush();
      const code = [];
      for (i++; i < lines.length && !lines[i].trimStart().startsWith("```"); i++) code.push(lines[i]);
      out.push({ kind: "code", text: code.join("\n") });
    } else if (line.trim() === "") {
      flush();
    } else {
      current.push(line);
    }
  }
  flush();
  return out;
}

function renderBlock(block) {
  if (block.kind === "code") return el("pre", {}, el("code", { text: block.text }));
  const { lines } = block;
  if (lines.every((line) => /^\s*[-*]\s+/.test(line))) return el("ul", {}, lines.map((line) => el("li", {}, inline(line.replace(/^\s*[-*]\s+/, "")))));
  if (lines.every((line) => /^\s*\d+[.)]\s+/.test(line))) return el("ol", {}, lines.map((line) => el("li", {}, inline(line.replace(/^\s*\d+[.)]\s+/, "")))));
  const paragraph = el("p");
  lines.forEach((line, index) => {
    if (index > 0) paragraph.append(el("br"));
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    paragraph.append(...(heading ? [el("strong", {}, inline(heading[1]))] : inline(line)));
  });
  return paragraph;
}

function inline(text) {
  const nodes = [];
  let at = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > at) nodes.push(text.slice(at, match.index));
    nodes.push(inlineNode(match[0]));
    at = match.index + match[0].length;
  }
  if (at < text.length) nodes.push(text.slice(at));
  return nodes;
}

function inlineNode(token) {
  if (token.startsWith("`")) return el("code", { text: token.slice(1, -1) });
  if (token.startsWith("**")) return el("strong", { text: token.slice(2, -2) });
  if (token.startsWith("[")) {
    const cut = token.indexOf("](");
    return link(token.slice(cut + 2, -1), token.slice(1, cut));
  }
  return el("em", { text: token.slice(1, -1) });
}
