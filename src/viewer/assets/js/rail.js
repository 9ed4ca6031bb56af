/* global window */
// The left rail: wiki switcher, navigation, pages tree and topics of the routed wiki.
import { clear, el } from "./dom.js";
import { plural } from "./format.js";
import { loadOverview, onOverview } from "./overview-cache.js";
import { sameViewIn, to } from "./routes.js";
import { buildTree, renderTreeLevel } from "./tree.js";

const NAV = [
  { label: "Overview", routes: ["overview"], href: (wiki) => to.overview(wiki) },
  { label: "Search", routes: ["search"], href: (wiki) => to.search(wiki) },
  { label: "Jobs", routes: ["jobs", "job"], href: (wiki) => to.jobs(wiki) },
  // From a page, the graph opens on that page's neighbourhood.
  { label: "Graph", routes: ["graph"], href: (wiki, route) => to.graph(wiki, { focus: route?.name === "page" ? route.slug : "" }) },
  { label: "Health", routes: ["health"], href: (wiki) => to.health(wiki) },
];

export function createRail(root) {
  const switcher = el("select", { class: "wiki-switcher", testid: "wiki-switcher", attrs: { "aria-label": "Wiki" } });
  const subtitle = el("p", { class: "rail-sub muted", text: "repo-owned wiki" });
  const nav = el("nav", { class: "rail-nav", attrs: { "aria-label": "Views" } });
  const tree = el("ul", { class: "tree-list tree-root", testid: "pages-tree" });
  const topics = el("ul", { class: "rail-topics", testid: "topics-list" });
  clear(root).append(
    el("div", { class: "rail-wiki" }, el("label", { class: "rail-label", text: "Wiki" }), switcher, subtitle),
    nav,
    el("section", { class: "rail-section" }, el("h2", { text: "Pages" }), tree),
    el("section", { class: "rail-section" }, el("h2", { text: "Topics" }), topics),
    el("p", { class: "rail-foot muted", text: "Read-only local viewer. Change the Markdown through the CLI." }),
  );

  const state = { wiki: null, route: null, folders: new Map(), loadedFor: null };

  switcher.addEventListener("change", () => {
    if (state.route && switcher.value) window.location.hash = sameViewIn(state.route, switcher.value);
  });

  onOverview((wiki, overview) => {
    if (wiki === state.wiki) fillFromOverview(overview);
  });

  function fillFromOverview(overview) {
    state.folders.clear();
    clear(tree);
    renderTreeLevel(state.wiki, buildTree(overview.navigation ?? []), tree, (path, details, ensure) => state.folders.set(path, { details, ensure }));
    if ((overview.navigation ?? []).length === 0) tree.append(el("li", { class: "muted", text: "No pages yet" }));
    state.pathBySlug = new Map((overview.navigation ?? []).map((page) => [page.slug, page.path]));
    fillTopics(overview.topics ?? []);
    state.loadedFor = state.wiki;
    highlight();
  }

  function fillTopics(list) {
    clear(topics);
    if (list.length === 0) topics.append(el("li", { class: "muted", text: "No topics" }));
    const sorted = [...list].sort((a, b) => (a.title || a.slug).localeCompare(b.title || b.slug));
    for (const topic of sorted) {
      topics.append(
        el(
          "li",
          {},
          el(
            "a",
            { href: to.topic(state.wiki, topic.slug), attrs: { title: plural(topic.page_count ?? 0, "page") }, dataset: { slug: topic.slug } },
            el("span", { text: topic.title || topic.slug }),
            el("span", { class: "count", text: String(topic.page_count ?? 0) }),
          ),
        ),
      );
    }
  }

  function renderNav() {
    clear(nav);
    for (const item of NAV) {
      const active = state.route && item.routes.includes(state.route.name);
      nav.append(el("a", { href: item.href(state.wiki, state.route), text: item.label, class: active ? "is-active" : "", attrs: { "aria-current": active ? "page" : null }, testid: `nav-${item.label.toLowerCase()}` }));
    }
  }

  function highlight() {
    for (const node of tree.querySelectorAll(".is-current")) {
      node.classList.remove("is-current");
      node.removeAttribute("aria-current");
    }
    for (const a of topics.querySelectorAll("a")) a.classList.toggle("is-current", state.route?.name === "topic" && a.dataset.slug === state.route.slug);
    if (!state.route || state.route.name !== "page" || !state.pathBySlug) return;
    const path = state.pathBySlug.get(state.route.slug);
    if (!path) return;
    const parts = path.split("/").slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      const folder = state.folders.get(parts.slice(0, i).join("/"));
      if (!folder) break;
      folder.ensure();
      folder.details.open = true;
    }
    const current = [...tree.querySelectorAll("a.tree-page")].find((a) => a.dataset.slug === state.route.slug);
    if (current) {
      current.classList.add("is-current");
      current.setAttribute("aria-current", "page");
    }
  }

  return {
    /** The list from /api/wikis; `current` may be a name the server does not know. */
    setWikis(wikis, current) {
      clear(switcher);
      const names = wikis.map((wiki) => wiki.name);
      for (const wiki of wikis) {
        const label = wiki.status && wiki.status !== "available" ? `${wiki.name} (${wiki.status})` : wiki.name;
        switcher.append(el("option", { text: label, attrs: { value: wiki.name, title: wiki.root_path } }));
      }
      if (current && !names.includes(current)) switcher.append(el("option", { text: `${current} (unknown)`, attrs: { value: current } }));
      if (switcher.options.length === 0) {
        switcher.append(el("option", { text: "No wikis", attrs: { value: "" } }));
        // No wiki means no overview will ever fill the tree and topics: say so instead of empty headings.
        clear(tree).append(el("li", { class: "muted", text: "No pages yet" }));
        clear(topics).append(el("li", { class: "muted", text: "No topics" }));
      }
      switcher.value = current ?? "";
      switcher.disabled = switcher.options.length <= 1;
      const selected = wikis.find((wiki) => wiki.name === current);
      subtitle.textContent = selected ? selected.root_path : "repo-owned wiki";
    },
    show(route) {
      state.route = route;
      const wikiChanged = route.wiki && route.wiki !== state.wiki;
      if (route.wiki) state.wiki = route.wiki;
      if (state.wiki) switcher.value = state.wiki;
      renderNav();
      if (wikiChanged) {
        clear(tree).append(el("li", { class: "muted", text: "Loading…" }));
        clear(topics);
        state.pathBySlug = null;
        const wiki = state.wiki;
        loadOverview(wiki).catch(() => {
          if (state.wiki !== wiki) return;
          clear(tree).append(el("li", { class: "muted", text: "Pages unavailable" }));
        });
      } else {
        highlight();
      }
    },
  };
}
