/* global window */
import { apiPath, api } from "../api.js";
import { el } from "../dom.js";
import { plural } from "../format.js";
import { to } from "../routes.js";
import { emptyState, pageList, setTitle, topicChip, viewHeader } from "../ui.js";

export async function render({ route, main, signal }) {
  const topic = await api(apiPath("/api/topic/", route.slug), { wiki: route.wiki, params: { descendants: route.descendants ? "1" : "" }, signal });
  if (signal.aborted) return;
  const wiki = route.wiki;
  const title = topic.title || topic.slug;
  setTitle(title);
  const pages = topic.pages ?? [];
  const toggle = el("input", { attrs: { type: "checkbox", checked: route.descendants }, testid: "topic-descendants" });
  toggle.addEventListener("change", () => {
    window.location.hash = to.topic(wiki, route.slug, toggle.checked);
  });
  main.append(
    el(
      "div",
      { class: "view view-topic", testid: "topic" },
      viewHeader({ eyebrow: "Topic", title, deck: topic.description || null, testid: "topic-title" }),
      el(
        "div",
        { class: "facts" },
        relatives("Parents", wiki, topic.parents ?? []),
        relatives("Subtopics", wiki, topic.children ?? []),
        (topic.children ?? []).length > 0 ? el("label", { class: "check" }, toggle, " Include subtopics") : null,
      ),
      el("h2", { class: "section-title", text: plural(pages.length, "page") }),
      pages.length === 0 ? emptyState("No pages in this topic", "Tag a page with `ca tag` to list it here.") : pageList(wiki, pages, "topic-pages"),
    ),
  );
}

function relatives(label, wiki, slugs) {
  if (slugs.length === 0) return null;
  return el("span", { class: "chip-row" }, el("span", { class: "muted", text: `${label}:` }), slugs.map((slug) => topicChip(wiki, slug)));
}
