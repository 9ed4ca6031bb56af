/* global window */
// Turns the location hash into a view. Each navigation gets its own AbortController: the
// previous view's requests, polling and event streams stop when the route changes.
import { api, isAbort } from "./api.js";
import { clear, el } from "./dom.js";
import { parseHash, to } from "./routes.js";
import { emptyState, errorBlock, loading, setTitle, viewHeader } from "./ui.js";
import * as file from "./views/file.js";
import * as health from "./views/health.js";
import * as job from "./views/job.js";
import * as jobs from "./views/jobs.js";
import * as overview from "./views/overview.js";
import * as page from "./views/page.js";
import * as search from "./views/search.js";
import * as topic from "./views/topic.js";

const LOADING_DELAY_MS = 150;
const VIEWS = { overview, page, topic, search, file, jobs, job, health, graph: { render: (ctx) => import("./graph.js").then((graph) => graph.render(ctx)) } };
const NO_WIKIS = ["No wikis yet — run `ca init` in a repository", "Then reload this page: the viewer shows every wiki registered on this machine."];

export function createRouter({ main, rail, onRoute }) {
  let controller = null;
  let wikis = null;

  const wikiList = async (signal) => {
    if (!wikis) wikis = (await api("/api/wikis", { signal })).wikis ?? [];
    return wikis;
  };

  async function go() {
    // A hash that is not a route (an in-page anchor) leaves the current view alone; on the
    // first load there is no view yet, so it counts as `#/`.
    const route = parseHash(window.location.hash) ?? (controller ? null : { name: "root" });
    if (route === null) return;
    controller?.abort();
    controller = new AbortController();
    const { signal } = controller;
    onRoute(route);
    if (route.name === "root") return chooseWiki(signal);
    if (route.name === "unknown") return window.location.replace(to.overview(route.wiki));
    rail.show(route);
    wikiList(signal).then((list) => !signal.aborted && rail.setWikis(list, route.wiki), () => {});
    // The view draws into a host that is already in the document (the graph library
    // measures its container); "Loading…" shows only when the data is slow to come.
    const host = el("div", { class: "view-host" });
    const pending = el("div");
    clear(main).append(pending, host);
    window.scrollTo(0, 0);
    const spinner = setTimeout(() => pending.append(loading()), LOADING_DELAY_MS);
    try {
      await VIEWS[route.name].render({ route, main: host, signal });
    } catch (error) {
      if (!signal.aborted && !isAbort(error)) showFailure(error, route.wiki);
    } finally {
      clearTimeout(spinner);
      pending.remove();
    }
  }

  /** `#/`: the server picks the wiki (startup directory, else the first available one). */
  async function chooseWiki(signal) {
    setTitle("Overview");
    try {
      const data = await api("/api/wikis", { signal });
      wikis = data.wikis ?? [];
      if (signal.aborted) return;
      if (data.selected) return window.location.replace(to.overview(data.selected));
      rail.setWikis(wikis, null);
      if (wikis.length === 0) return clear(main).append(emptyState(...NO_WIKIS));
      clear(main).append(
        viewHeader({ eyebrow: "CodeAlmanac", title: "Choose a wiki" }),
        el("ul", { class: "plain-list", testid: "wiki-list" }, wikis.map((wiki) => el("li", {}, el("a", { href: to.overview(wiki.name), text: wiki.name }), el("span", { class: "muted", text: ` ${wiki.root_path} · ${wiki.status}` })))),
      );
    } catch (error) {
      if (!signal.aborted && !isAbort(error)) showFailure(error);
    }
  }

  function showFailure(error, wiki = null) {
    const noWiki = Boolean(error) && error.code === "no_wiki";
    clear(main).append(noWiki ? emptyState(...NO_WIKIS) : errorBlock(error, wiki));
    setTitle(noWiki ? "No wikis" : "Viewer error");
  }

  window.addEventListener("hashchange", go);
  return { go };
}
