import { api, isAbort } from "../api.js";
import { clear, el, pathCode, pathText, withCode } from "../dom.js";
import { plural } from "../format.js";
import { loadOverview } from "../overview-cache.js";
import { to } from "../routes.js";
import { emptyState, pageList, setTitle, viewHeader } from "../ui.js";

export async function render({ route, main, signal }) {
  const data = await loadOverview(route.wiki);
  if (signal.aborted) return;
  const wikiName = data.wiki?.name ?? route.wiki;
  setTitle(wikiName);
  const heading = data.featured?.title || "Wiki";
  const view = el("div", { class: "view view-overview", testid: "overview" });
  view.append(
    viewHeader({
      eyebrow: "Local wiki",
      title: heading,
      deck: `${plural(data.page_count ?? 0, "page")} across ${plural(data.topic_count ?? 0, "topic")}.`,
    }),
    stats(data, wikiName, route.wiki),
  );
  if ((data.page_count ?? 0) === 0) {
    view.append(emptyState("No pages yet", "This wiki has no pages yet. Run `ca ingest <path>` or `ca garden` in the repository to have an agent write them."));
    main.append(view);
    return;
  }
  if (data.featured) view.append(featured(route.wiki, data.featured));
  view.append(staleSection(route.wiki, signal));
  view.append(el("h2", { class: "section-title", text: "Recently updated" }), pageList(route.wiki, data.pages ?? [], "recent-pages"));
  main.append(view);
}

/**
 * Pages whose cited code changed since they were verified. Drift reads git, so it comes in
 * its own request after the overview is shown.
 */
function staleSection(wiki, signal) {
  const body = el("div", {}, el("p", { class: "muted", text: "Checking cited code…" }));
  const section = el("section", { testid: "stale-pages" }, el("h2", { class: "section-title", text: "Stale pages" }), body);
  api("/api/overview/stale", { wiki, signal }).then(
    (stale) => {
      if (signal.aborted) return;
      const pages = stale.pages ?? [];
      clear(body);
      if (stale.notice) body.append(el("p", { class: "muted", text: stale.notice }));
      if (pages.length === 0) {
        body.append(el("p", { class: "muted", testid: "stale-none", text: "No page cites code that changed since it was verified." }));
        return;
      }
      body.append(
        el("p", { class: "muted", text: `${plural(pages.length, "page")} cite${pages.length === 1 ? "s" : ""} code that changed since ${pages.length === 1 ? "it was" : "they were"} verified: check that code before relying on ${pages.length === 1 ? "it" : "them"}.` }),
        el(
          "ul",
          { class: "page-list", testid: "stale-list" },
          pages.map((page) =>
            el(
              "li",
              { class: "page-row", dataset: { slug: page.slug } },
              el("a", { class: "page-row-title", href: to.page(wiki, page.slug), text: page.title || page.slug }),
              el("p", { class: "page-row-summary drift-stale", text: page.reason || "Its cited code changed." }),
              el("div", { class: "page-row-meta" }, pathCode(page.path)),
            ),
          ),
        ),
      );
    },
    (error) => {
      if (isAbort(error) || signal.aborted) return;
      clear(body).append(el("p", { class: "muted", text: `Stale pages cannot be listed: ${error.message}` }));
    },
  );
  return section;
}

function stats(data, wikiName, wiki) {
  const health = data.health ?? { errors: 0, warnings: 0 };
  const healthText = health.errors || health.warnings ? `${plural(health.errors, "error")} · ${plural(health.warnings, "warning")}` : "No problems";
  return el(
    "div",
    { class: "stat-grid" },
    stat("Pages", String(data.page_count ?? 0)),
    stat("Topics", String(data.topic_count ?? 0)),
    stat("Current wiki", wikiName, data.wiki?.root_path ? pathText(data.wiki.root_path) : null),
    // The card opens the findings it counts.
    stat("Health", healthText, "See the findings", health.errors ? "stat-alert stat-link" : "stat-link", to.health(wiki)),
  );
}

function stat(label, value, hint, extraClass = "", href = null) {
  const parts = [el("span", { class: "stat-label", text: label }), el("strong", { class: "stat-value", text: value }), hint ? el("span", { class: "stat-hint muted" }, hint) : null];
  const props = { class: `stat ${extraClass}`.trim(), testid: `stat-${label.toLowerCase().replace(/\s+/g, "-")}` };
  return href ? el("a", { ...props, href }, ...parts) : el("div", props, ...parts);
}

function featured(wiki, page) {
  return el(
    "section",
    { class: "featured" },
    el("p", { class: "eyebrow", text: "Start here" }),
    el("a", { class: "featured-title", href: to.page(wiki, page.slug), text: page.title || page.slug }),
    page.summary ? el("p", {}, withCode(page.summary)) : null,
  );
}
