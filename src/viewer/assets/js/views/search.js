/* global window */
import { api } from "../api.js";
import { clear, el } from "../dom.js";
import { plural } from "../format.js";
import { loadOverview } from "../overview-cache.js";
import { to } from "../routes.js";
import { emptyState, pageList, setTitle, viewHeader } from "../ui.js";

export async function render({ route, main, signal }) {
  setTitle(route.q ? `Search: ${route.q}` : "Search");
  const results = el("div", { class: "search-results", testid: "search-results", attrs: { "aria-live": "polite" } });
  main.append(el("div", { class: "view view-search" }, viewHeader({ eyebrow: "Search", title: "Search the wiki" }), searchForm(route, signal), results));
  if (!route.q && route.topics.length === 0 && !route.mentions) {
    results.append(emptyState("Search the wiki", "Type words to look for, or filter by topic or by a file the pages mention."));
    return;
  }
  const data = await api("/api/search", { wiki: route.wiki, params: { q: route.q, topic: route.topics, mentions: route.mentions }, signal });
  if (signal.aborted) return;
  const pages = data.pages ?? [];
  const total = data.total ?? pages.length;
  clear(results).append(el("p", { class: "result-count", testid: "result-count", text: total > pages.length ? `${plural(total, "result")} (showing ${pages.length})` : plural(total, "result") }));
  results.append(pages.length === 0 ? el("p", { class: "muted", text: "No pages match." }) : pageList(route.wiki, pages, "search-result-list"));
}

function searchForm(route, signal) {
  const topics = [...route.topics];
  const query = el("input", { class: "input", testid: "search-query", attrs: { type: "search", name: "q", placeholder: "Words to find", value: route.q, "aria-label": "Query" } });
  const mentions = el("input", { class: "input", testid: "search-mentions", attrs: { type: "text", name: "mentions", placeholder: "src/path/or/folder/", value: route.mentions, "aria-label": "Mentions file or folder" } });
  const picker = el("select", { class: "input", testid: "search-topic", attrs: { "aria-label": "Add a topic filter" } }, el("option", { text: "Any topic", attrs: { value: "" } }));
  const chips = el("span", { class: "chip-row" });
  const go = () => {
    window.location.hash = to.search(route.wiki, { q: query.value.trim(), topics, mentions: mentions.value.trim() });
  };
  const drawChips = () => {
    clear(chips);
    for (const slug of topics) {
      chips.append(
        el(
          "button",
          {
            class: "chip chip-topic chip-removable",
            attrs: { type: "button", title: `Remove ${slug}` },
            on: {
              click: () => {
                topics.splice(topics.indexOf(slug), 1);
                go();
              },
            },
          },
          slug,
          el("span", { text: " ×", attrs: { "aria-hidden": "true" } }),
        ),
      );
    }
  };
  drawChips();
  picker.addEventListener("change", () => {
    if (picker.value && !topics.includes(picker.value)) {
      topics.push(picker.value);
      go();
    }
  });
  loadOverview(route.wiki).then((overview) => {
    if (signal.aborted) return;
    for (const topic of overview.topics ?? []) picker.append(el("option", { text: topic.title || topic.slug, attrs: { value: topic.slug } }));
  }, () => {});
  const form = el(
    "form",
    { class: "search-form", attrs: { role: "search" } },
    el("div", { class: "form-row" }, query, el("button", { class: "button", text: "Search", attrs: { type: "submit" } })),
    el("div", { class: "form-row" }, el("label", { class: "field" }, el("span", { text: "Topic" }), picker), el("label", { class: "field" }, el("span", { text: "Mentions" }), mentions)),
    topics.length > 0 ? el("div", { class: "form-row" }, el("span", { class: "muted", text: "Topics:" }), chips) : null,
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    go();
  });
  return form;
}
