/* global document */
// DOM helpers. Data only ever reaches the page as text nodes or as attributes set
// through the DOM; the single exception (server-rendered page HTML) lives in views/page.js.
import { inlineParts } from "./format.js";

const SAFE_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/**
 * The only way the client turns a string into an href: http, https and mailto URLs and
 * our own `#/` routes pass; everything else (javascript:, data:, relative paths…) is null.
 */
export function safeHref(url) {
  if (typeof url !== "string") return null;
  const trimmed = url.trim();
  if (trimmed.startsWith("#/")) return trimmed;
  let parsed;
  try {
    parsed = new URL(trimmed);
  } catch {
    return null;
  }
  return SAFE_SCHEMES.has(parsed.protocol) ? parsed.href : null;
}

/**
 * Creates an element. `props`: `class`, `text`, `testid`, `href` (through safeHref),
 * `attrs` (plain attributes), `on` (event listeners), `dataset`; children may be
 * nodes, strings (as text) or null/false (skipped).
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  if (props.class) node.className = props.class;
  if (props.text !== undefined && props.text !== null) node.textContent = String(props.text);
  if (props.testid) node.setAttribute("data-testid", props.testid);
  if (props.href !== undefined) setHref(node, props.href);
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [name, value] of Object.entries(props.dataset ?? {})) node.dataset[name] = String(value);
  for (const [type, listener] of Object.entries(props.on ?? {})) node.addEventListener(type, listener);
  append(node, ...children);
  return node;
}

export function append(parent, ...children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
  return parent;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

function setHref(node, url) {
  const href = safeHref(url);
  if (href === null) return;
  node.setAttribute("href", href);
  if (!href.startsWith("#")) {
    node.setAttribute("rel", "noopener noreferrer");
    node.setAttribute("target", "_blank");
  }
}

/** A link when the URL is safe, otherwise the same text as a plain span. */
export function link(url, text, props = {}) {
  const href = safeHref(url);
  if (href === null) return el("span", { ...props, text });
  return el("a", { ...props, href, text });
}

/**
 * A one-line text with inline Markdown (a summary, an error, a hint): code spans become
 * <code>, emphasis marks go, and `snake_case` words stay as written (see format.js).
 */
export function withCode(sentence) {
  return inlineParts(String(sentence ?? "")).map((part) => (part.code ? el("code", { text: part.text }) : part.text));
}

/**
 * A file path that wraps at its slashes: a <wbr> after each `/`, so a long path breaks
 * between folders, and inside a name only when one alone is wider than the line.
 */
export function pathText(path) {
  const pieces = String(path ?? "").split(/(?<=\/)/);
  return pieces.flatMap((piece, i) => (i < pieces.length - 1 ? [piece, el("wbr")] : [piece]));
}

/** `<code class="path">` holding a path that wraps at its slashes. */
export function pathCode(path, props = {}) {
  return el("code", { ...props, class: props.class ? `path ${props.class}` : "path" }, pathText(path));
}
