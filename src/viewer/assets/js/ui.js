/* global document */
// Building blocks shared by the views: headers, page rows, chips, empty and error states.
import { el, pathCode, withCode } from "./dom.js";
import { to } from "./routes.js";

export function setTitle(leaf) {
  document.title = leaf ? `${leaf} | CodeAlmanac` : "CodeAlmanac";
}

/** The "Viewer error" block with the API's message; an unknown page's nearest pages as links. */
export function errorBlock(error, wiki = null) {
  const message = error && error.message ? error.message : String(error);
  const suggestions = wiki && Array.isArray(error?.suggestions) ? error.suggestions : [];
  const meant =
    suggestions.length > 0
      ? el("p", { testid: "did-you-mean" }, "Did you mean ", suggestions.flatMap((slug, i) => [i > 0 ? ", " : null, el("a", { href: to.page(wiki, slug), text: slug })]), "?")
      : null;
  return el("section", { class: "callout callout-alert", testid: "error", attrs: { role: "alert" } }, el("h2", { text: "Viewer error" }), el("p", { text: message }), meant);
}

/** A friendly empty state; backquoted words render as code. */
export function emptyState(title, body = "") {
  return el("section", { class: "empty", testid: "empty-state" }, el("h2", {}, withCode(title)), body ? el("p", {}, withCode(body)) : null);
}

export function viewHeader({ eyebrow, title, deck, testid, extra }) {
  return el(
    "header",
    { class: "view-header" },
    eyebrow ? el("p", { class: "eyebrow", text: eyebrow }) : null,
    el("h1", { testid }, title),
    deck ? el("p", { class: "deck" }, typeof deck === "string" ? withCode(deck) : deck) : null,
    extra ?? null,
  );
}

/** The "Stale" badge of a page whose cited code changed since it was verified (its reason as the tooltip), or null. */
export function staleBadge(freshness) {
  if (!freshness || freshness.status !== "stale") return null;
  return el("span", { class: "chip chip-warn", text: "Stale", testid: "stale-badge", attrs: { title: freshness.reason || "Its cited code changed since it was verified" } });
}

/** A commit id as `ca drift` prints it. */
export function shortCommit(sha) {
  return String(sha).slice(0, 10);
}

export function topicChip(wiki, slug) {
  return el("a", { class: "chip chip-topic", href: to.topic(wiki, slug), text: slug });
}

function topicsLine(wiki, topics) {
  if (!topics || topics.length === 0) return el("span", { class: "chip chip-muted", text: "untagged" });
  return el("span", { class: "chip-row" }, topics.slice(0, 3).map((slug) => topicChip(wiki, slug)));
}

/** One page row: title, summary (or "No summary"), file path, up to three topics; search adds the match. */
export function pageRow(wiki, page) {
  const match =
    page.matched_heading || page.excerpt
      ? el(
          "div",
          { class: "match" },
          page.matched_heading ? el("span", { class: "match-heading", text: `§ ${page.matched_heading}` }) : null,
          page.excerpt ? el("span", { class: "match-excerpt", text: page.excerpt }) : null,
        )
      : null;
  return el(
    "li",
    { class: "page-row", dataset: { slug: page.slug } },
    el("div", { class: "page-row-head" }, el("a", { class: "page-row-title", href: to.page(wiki, page.slug), text: page.title || page.slug }), staleBadge(page.freshness)),
    page.summary ? el("p", { class: "page-row-summary" }, withCode(page.summary)) : el("p", { class: "page-row-summary muted", text: "No summary" }),
    match,
    el("div", { class: "page-row-meta" }, pathCode(page.path || `${page.slug}.md`), topicsLine(wiki, page.topics)),
  );
}

export function pageList(wiki, pages, testid) {
  return el("ul", { class: "page-list", testid }, pages.map((page) => pageRow(wiki, page)));
}

/** A titled section whose empty content reads "None". */
export function section(title, items, { id, testid } = {}) {
  const body = items.length === 0 ? el("p", { class: "muted", text: "None" }) : el("ul", { class: "plain-list" }, items.map((item) => el("li", {}, item)));
  return el("section", { class: "side-section", attrs: { id }, testid }, el("h2", { text: title }), body);
}

export function loading(text = "Loading…") {
  return el("p", { class: "loading muted", text, attrs: { "aria-live": "polite" } });
}
