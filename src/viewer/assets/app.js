/* global document, window, HTMLElement */
// CodeAlmanac viewer: the browser side of `ca serve`. Plain ES modules, no build step.
// Routes are documented in js/routes.js; data comes only through js/api.js.
//
// data-testid attributes (stable, for the browser tests):
//   overview            overview view root
//   page-title          page view <h1>
//   page-body           page view rendered Markdown (server HTML)
//   backlinks, files, sources, related, outgoing   page view side sections; source (each source row)
//   freshness           page view side section (data-status = fresh|moved|stale|unknown); drift-source (each drifting source)
//   stale-badge         the "Stale" chip of a stale page (page header, search and file results)
//   stale-pages         the overview's stale pages section; stale-list (its pages), stale-none (none are stale)
//   search-input        header search box (every view)
//   search-query        query box in the search view; search-topic (topic filter select), search-mentions
//   search-results      search view results container; result-count, search-result-list
//   recent-pages, topic-pages, file-pages   page lists; topic, topic-title, topic-descendants; file (data-exists), file-path
//   file-missing        the file view's notice that the cited file no longer exists in the repository
//   page-summary        page view summary (inline code rendered); did-you-mean (an unknown page's nearest pages, as links)
//   stat-pages|stat-topics|stat-current-wiki|stat-health   the overview's cards (the health card links to the health view)
//   health              health view root; health-group (data-category, data-severity); health-issue
//   jobs-list           jobs view list container; job-filter-all|active|done|attention (filter chips)
//   job-card            one run in the jobs list (data-run-id, data-status)
//   job-status          status chip (data-status = queued|running|done|failed|cancelled)
//   impact-created|impact-updated|impact-deleted, job-warnings   chips
//   job                 job detail root (data-run-id); job-title, job-meta, job-summary, job-failure
//   job-secrets         the secret gate's findings of a failed run; job-secret (one file, line and kind)
//   job-steps           transcript list; job-step (one step: data-seq, data-kind); job-step-count
//   job-live            live-stream state badge (data-state = connecting|live|reconnecting|ended|stopped)
//   cancel-button       cancel a queued/running run; cancel-confirm, cancel-dismiss, cancel-result
//   graph               graph canvas (data-node-count, data-edge-count, data-layout, data-mode, data-focus, data-draw-ms); graph-toggle, graph-depth, graph-legend
//   graph-list          the graph as a list; graph-list-node (data-slug), graph-list-out, graph-list-in; page-graph (a page's "Show in graph")
//   wiki-switcher       wiki <select> in the left rail; nav-overview|search|jobs|graph|health; pages-tree; topics-list; wiki-list
//   empty-state         any empty state (no wikis, no pages, no runs, empty search)
//   error               the "Viewer error" block with the API's message
//   uninstalled-banner  above every view once the state directory is gone (`ca uninstall` under a running viewer)
import { el } from "./js/dom.js";
import { createRail } from "./js/rail.js";
import { createRouter } from "./js/router.js";
import { to } from "./js/routes.js";

const main = document.getElementById("main");
const rail = createRail(document.getElementById("rail"));
const search = document.getElementById("header-search");
const searchInput = search.querySelector("input");
let currentWiki = null;

const router = createRouter({
  main,
  rail,
  onRoute(route) {
    if (route.wiki) currentWiki = route.wiki;
    searchInput.value = route.name === "search" ? route.q : "";
    document.body.classList.remove("rail-open");
  },
});

search.addEventListener("submit", (event) => {
  event.preventDefault();
  if (!currentWiki) return;
  window.location.hash = to.search(currentWiki, { q: searchInput.value.trim() });
});

// "/" jumps to the search box, as on most documentation sites.
document.addEventListener("keydown", (event) => {
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName))) return;
  event.preventDefault();
  searchInput.focus();
});

// After `ca uninstall` (the state directory is gone) every API answer is 410: a banner above
// every view says so once, whichever view asked first.
window.addEventListener("codealmanac:uninstalled", (event) => {
  if (document.querySelector("[data-testid=uninstalled-banner]")) return;
  document.querySelector(".layout").before(el("div", { class: "banner banner-alert", testid: "uninstalled-banner", attrs: { role: "alert" } }, el("strong", { text: "This viewer has nothing left to show. " }), String(event.detail ?? "")));
});

document.getElementById("skip-link").addEventListener("click", () => main.focus());
document.getElementById("menu-button").addEventListener("click", () => document.body.classList.toggle("rail-open"));

if (!main.hasChildNodes()) main.append(el("p", { class: "loading muted", text: "Loading…" }));
router.go();
