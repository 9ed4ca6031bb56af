/* global document */
import { apiPath, api } from "../api.js";
import { el, link, pathCode, pathText, safeHref, withCode } from "../dom.js";
import { dateTime, folderTitle, toDate } from "../format.js";
import { to } from "../routes.js";
import { section, setTitle, shortCommit, staleBadge, topicChip } from "../ui.js";

export async function render({ route, main, signal }) {
  const page = await api(apiPath("/api/page/", route.slug), { wiki: route.wiki, signal });
  if (signal.aborted) return;
  const wiki = route.wiki;
  const title = page.title || page.slug;
  setTitle(title);
  const sources = page.sources ?? [];
  const body = pageBody(page.html ?? "", sources);
  main.append(
    el(
      "div",
      { class: "view view-page" },
      breadcrumb(wiki, page.path, title),
      el(
        "header",
        { class: "view-header" },
        el("p", { class: "eyebrow" }, pathCode(page.path || `${page.slug}.md`)),
        el("h1", { text: title, testid: "page-title" }),
        page.summary ? el("p", { class: "deck", testid: "page-summary" }, withCode(page.summary)) : null,
        facts(wiki, page),
        page.truncation ? el("div", { class: "callout callout-info", testid: "page-truncated" }, el("p", { text: `Only part of this page is shown: ${page.truncation}.` })) : null,
      ),
      el("div", { class: "page-layout" }, body, sidePanel(wiki, page, sources)),
    ),
  );
}

function breadcrumb(wiki, path, title) {
  const folders = (path || "").split("/").slice(0, -1);
  const crumbs = [el("a", { href: to.overview(wiki), text: "CodeAlmanac" }), ...folders.map((name) => el("span", { text: folderTitle(name) })), el("span", { class: "crumb-leaf", text: title })];
  const nav = el("nav", { class: "breadcrumb", attrs: { "aria-label": "Breadcrumb" } });
  crumbs.forEach((crumb, index) => {
    if (index > 0) nav.append(el("span", { class: "crumb-sep", text: "›", attrs: { "aria-hidden": "true" } }));
    nav.append(crumb);
  });
  return nav;
}

function facts(wiki, page) {
  const updated = toDate(page.updated_at);
  return el(
    "div",
    { class: "facts" },
    el("a", { class: "chip", href: to.overview(wiki), text: "All pages" }),
    el("a", { class: "chip", href: to.graph(wiki, { focus: page.slug }), text: "Show in graph", testid: "page-graph" }),
    staleBadge(page.freshness),
    (page.topics ?? []).map((slug) => topicChip(wiki, slug)),
    updated ? el("span", { class: "muted", text: `Updated ${dateTime(updated)}` }) : null,
  );
}

/**
 * The server renders and sanitises the Markdown (raw HTML escaped, unsafe links dropped);
 * it is the only HTML the client inserts. Links are checked once more here, and citation
 * links scroll to their source instead of changing the route.
 */
function pageBody(html, sources) {
  const article = el("article", { class: "markdown", testid: "page-body" });
  article.innerHTML = html;
  const byId = new Map(sources.map((source) => [source.source_id, source]));
  for (const anchor of article.querySelectorAll("a[href]")) {
    const href = anchor.getAttribute("href") ?? "";
    const sourceId = citationId(anchor, href);
    if (sourceId !== null) {
      wireCitation(anchor, sourceId, byId.get(sourceId));
      continue;
    }
    const safe = safeHref(href);
    if (safe === null) {
      anchor.removeAttribute("href");
    } else if (!safe.startsWith("#")) {
      anchor.setAttribute("rel", "noopener noreferrer");
      anchor.setAttribute("target", "_blank");
    }
  }
  return article;
}

function citationId(anchor, href) {
  if (anchor.dataset.sourceId !== undefined) return anchor.dataset.sourceId;
  if (href.startsWith("#source-")) {
    try {
      return decodeURIComponent(href.slice("#source-".length));
    } catch {
      return href.slice("#source-".length);
    }
  }
  return null;
}

function wireCitation(anchor, sourceId, source) {
  anchor.classList.add("wiki-citation");
  if (source) anchor.setAttribute("title", `Source ${source.citation_number ?? "–"}: ${sourceTitle(source)} — ${sourceDetail(source)}`);
  anchor.addEventListener("click", (event) => {
    event.preventDefault();
    const target = document.getElementById(`source-${sourceId}`);
    if (!target) return;
    target.scrollIntoView({ behavior: "smooth", block: "center" });
    target.classList.remove("flash");
    void target.offsetWidth;
    target.classList.add("flash");
  });
}

function sourceTitle(source) {
  if (source.title) return source.title;
  if (source.note) return source.note;
  return folderTitle(String(source.source_id ?? "source"));
}

/** The note, unless it already serves as the title; else the target or the type. */
function sourceDetail(source) {
  const note = source.title ? source.note : null;
  return note || source.target || source.source_type || "";
}

function sidePanel(wiki, page, sources) {
  const pageLink = (summary) => el("a", { href: to.page(wiki, summary.slug), text: summary.title || summary.slug });
  const files = (page.files ?? []).map((file) => {
    const path = file.is_dir && !file.path.endsWith("/") ? `${file.path}/` : file.path;
    return el("a", { href: to.file(wiki, path), class: "path" }, pathText(path));
  });
  const outgoing = (page.outgoing ?? []).map((out) => (out.exists ? el("a", { href: to.page(wiki, out.slug), text: out.slug }) : el("span", { class: "broken", text: `${out.slug} (missing)` })));
  return el(
    "aside",
    { class: "page-side" },
    section("Backlinks", (page.backlinks ?? []).map(pageLink), { testid: "backlinks" }),
    section("Files", files, { testid: "files" }),
    freshnessSection(wiki, page.freshness),
    sourcesSection(wiki, sources),
    section("Related", (page.related ?? []).map(pageLink), { testid: "related" }),
    section("Links to", outgoing, { testid: "outgoing" }),
  );
}

/** Whether the cited code changed since the page was verified: each drifting source with its reason and commits. */
function freshnessSection(wiki, freshness) {
  if (!freshness) return null;
  const drifting = freshness.sources ?? [];
  const at = freshness.verified_at ? ` at ${shortCommit(freshness.verified_at)}` : "";
  const summary = {
    fresh: `The code it cites is as it was when verified${at}.`,
    moved: `Cited lines moved, unchanged, since it was verified${at}.`,
    stale: `Cited code changed since it was verified${at}: check it before relying on this page.`,
    unknown: freshness.reason || "Whether its cited code changed cannot be told here.",
  }[freshness.status] ?? "";
  const list = el("ul", { class: "plain-list drift-list" });
  for (const source of drifting) {
    const where = source.lines ? `${source.path}:${source.lines}` : source.path;
    const commits = (source.commits ?? []).slice(0, 5).map(shortCommit).join(" ") + ((source.commits ?? []).length > 5 ? " …" : "");
    list.append(
      el(
        "li",
        { class: `drift drift-${source.status}`, testid: "drift-source" },
        el("a", { class: "path", href: to.file(wiki, source.path) }, pathText(where)),
        el("span", { class: "drift-status", text: source.status }),
        el("span", { class: "source-detail muted", text: source.reason }),
        commits ? el("code", { class: "drift-commits path", text: commits }) : null,
      ),
    );
  }
  return el(
    "section",
    { class: "side-section", testid: "freshness", dataset: { status: freshness.status } },
    el("h2", { text: "Freshness" }),
    el("p", { class: freshness.status === "stale" ? "drift-summary drift-stale" : "drift-summary muted", text: summary }),
    drifting.length > 0 ? list : null,
  );
}

function sourcesSection(wiki, sources) {
  const list = el("ol", { class: "source-list" });
  for (const source of sources) {
    const title = sourceTitle(source);
    let heading;
    if (source.href) heading = link(source.href, title, { class: "source-title" });
    else if (source.source_type === "file" && source.target) heading = el("a", { class: "source-title", href: to.file(wiki, source.target), text: title });
    else heading = el("span", { class: "source-title", text: title });
    list.append(
      el(
        "li",
        { attrs: { id: `source-${source.source_id}` }, class: "source", testid: "source" },
        el("span", { class: "source-number", text: source.citation_number ? String(source.citation_number) : "–" }),
        el("div", {}, heading, el("span", { class: "source-detail muted", text: sourceDetail(source) })),
      ),
    );
  }
  const body = sources.length === 0 ? el("p", { class: "muted", text: "None" }) : list;
  return el("section", { class: "side-section", testid: "sources" }, el("h2", { text: "Sources" }), body);
}
