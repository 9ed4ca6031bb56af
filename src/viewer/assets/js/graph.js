/* global document, window, getComputedStyle, performance, requestAnimationFrame */
// The graph view. By default it draws one page's neighbourhood: the page, the pages it
// links to and the pages linking to it, up to two steps out, in rings around it, with room
// for every label. "Show all pages" draws the whole wiki grouped by topic, labels only on
// hover. Pages are coloured by topic, and the same nodes and links are listed below the
// drawing as links, for the keyboard and screen readers. The graph library (vendored,
// ~400 KB) is loaded only here.
import { api } from "./api.js";
import { el } from "./dom.js";
import { plural } from "./format.js";
import { to } from "./routes.js";
import { emptyState, setTitle, viewHeader } from "./ui.js";
import { graphModel, groupPositions, neighbourhood, ringPositions, wholeWiki } from "./graph-model.js";

const PALETTE_SIZE = 10;
/** Past this many pages the whole-wiki drawing has no topic boxes (compound nodes cost the library time). */
const GROUP_BOXES_MAX = 2000;
let libraryLoad = null;

export async function render({ route, main, signal }) {
  const started = performance.now();
  setTitle("Graph");
  const [data, cytoscape] = await Promise.all([api("/api/graph", { wiki: route.wiki, signal }), loadLibrary()]);
  if (signal.aborted) return;
  const view = el("div", { class: "view view-graph" });
  main.append(view);
  const model = graphModel(data);
  if (model.pages.size === 0) {
    view.append(viewHeader({ eyebrow: "Graph", title: "Pages and links" }), emptyState("No pages yet", "This wiki has no pages to draw. Run `ca ingest <path>` or `ca garden` in the repository to have an agent write them."));
    return;
  }
  const focus = model.pages.has(route.focus) ? route.focus : model.defaultFocus;
  const depth = route.depth === 2 ? 2 : 1;
  const shown = route.all ? wholeWiki(model) : neighbourhood(model, focus, depth);
  const layout = route.all ? "groups" : "rings";
  const canvas = el("div", {
    class: "graph-canvas",
    testid: "graph",
    dataset: { nodeCount: shown.nodes.length, edgeCount: shown.edges.length, layout, mode: route.all ? "all" : "neighbourhood", focus: route.all ? "" : focus },
    attrs: { role: "img", "aria-label": `${shown.caption} The same pages and links are listed below the drawing.` },
  });
  view.append(viewHeader({ eyebrow: "Graph", title: route.all ? "All pages" : model.pages.get(focus).label, deck: shown.caption }), toolbar(route, model, focus, depth), legend(route.wiki, model, shown), canvas, nodeList(route, model, shown));
  const cy = draw(cytoscape, canvas, model, shown, route);
  signal.addEventListener("abort", () => cy.destroy());
  // From the route's start to the first frame painted after the layout: what the reader waits for.
  requestAnimationFrame(() => requestAnimationFrame(() => (canvas.dataset.drawMs = String(Math.round(performance.now() - started)))));
}

function loadLibrary() {
  if (window.cytoscape) return Promise.resolve(window.cytoscape);
  if (!libraryLoad) {
    libraryLoad = new Promise((resolve, reject) => {
      // The library prepends an inline <style> unless an element with this id exists;
      // the CSP forbids inline styles, so app.css carries its one rule instead.
      if (!document.getElementById("__________cytoscape_stylesheet")) document.head.append(el("meta", { attrs: { id: "__________cytoscape_stylesheet", name: "cytoscape-style", content: "app.css" } }));
      const script = el("script", { attrs: { src: new URL("../vendor/cytoscape.min.js", import.meta.url).pathname } });
      script.addEventListener("load", () => resolve(window.cytoscape));
      script.addEventListener("error", () => {
        libraryLoad = null;
        script.remove();
        reject(new Error("The graph library could not be loaded (assets/vendor/cytoscape.min.js)."));
      });
      document.head.append(script);
    });
  }
  return libraryLoad;
}

function toolbar(route, model, focus, depth) {
  const bar = el("div", { class: "graph-toolbar" });
  const focusTitle = model.pages.get(focus).label;
  bar.append(
    el("a", {
      class: "button",
      testid: "graph-toggle",
      href: route.all ? to.graph(route.wiki, { focus, depth }) : to.graph(route.wiki, { all: true, focus }),
      text: route.all ? `Show the neighbourhood of ${focusTitle}` : `Show all ${plural(model.pages.size, "page")}`,
    }),
  );
  if (!route.all) {
    const picker = el(
      "select",
      { class: "input", testid: "graph-depth", attrs: { "aria-label": "How far from the page" } },
      [1, 2].map((n) => el("option", { text: n === 1 ? "Direct links" : "Two steps out", attrs: { value: String(n), selected: n === depth } })),
    );
    picker.addEventListener("change", () => {
      window.location.hash = to.graph(route.wiki, { focus, depth: Number(picker.value) });
    });
    bar.append(el("label", { class: "field field-inline" }, el("span", { text: "Show" }), picker));
    bar.append(el("a", { class: "chip", href: to.page(route.wiki, focus), text: "Open this page" }));
  }
  return bar;
}

/** The topics of the drawn pages, each with its colour; a topic's name opens it. */
function legend(wiki, model, shown) {
  const seen = new Set(shown.nodes.map((node) => node.primary).filter(Boolean));
  const items = model.topics.filter((topic) => seen.has(topic.slug));
  return el(
    "div",
    { class: "graph-legend muted", testid: "graph-legend", attrs: { "aria-label": "Colours by topic" } },
    items.map((topic) => el("span", { class: "legend-item" }, el("span", { class: `swatch swatch-topic-${topic.colour % PALETTE_SIZE}` }), el("a", { href: to.topic(wiki, topic.slug), text: topic.label }))),
    shown.nodes.some((node) => !node.primary) ? el("span", { class: "legend-item" }, el("span", { class: "swatch swatch-untagged" }), "untagged") : null,
    el("span", { class: "legend-item" }, el("span", { class: "line line-link" }), "link"),
  );
}

/**
 * The drawing's alternative: every drawn page as a link, where it sits (topic, steps from
 * the page in focus), what it links to and what links to it among the drawn pages, and a
 * link that puts it in focus. Links are in the Tab order; the canvas is not.
 */
function nodeList(route, model, shown) {
  const outgoing = new Map();
  const incoming = new Map();
  for (const edge of shown.edges) {
    if (!outgoing.has(edge.source)) outgoing.set(edge.source, []);
    if (!incoming.has(edge.target)) incoming.set(edge.target, []);
    outgoing.get(edge.source).push(edge.target);
    incoming.get(edge.target).push(edge.source);
  }
  const pageLinks = (slugs) => slugs.flatMap((slug, i) => [i > 0 ? ", " : null, el("a", { href: to.page(route.wiki, slug), text: model.pages.get(slug).label, dataset: { slug } })]);
  const rows = shown.nodes.map((node) => {
    const where = [node.primary ? model.topicsBySlug.get(node.primary).label : "untagged", node.distance === 0 ? "the page in focus" : node.distance === null ? null : plural(node.distance, "step") + " away"].filter(Boolean).join(" · ");
    const out = outgoing.get(node.slug) ?? [];
    const back = incoming.get(node.slug) ?? [];
    return el(
      "li",
      { testid: "graph-list-node", dataset: { slug: node.slug } },
      el("a", { class: "graph-list-title", href: to.page(route.wiki, node.slug), text: node.label }),
      el("span", { class: "muted", text: ` — ${where}` }),
      node.distance === 0 && !route.all ? null : el("a", { class: "chip graph-list-focus", href: to.graph(route.wiki, { focus: node.slug, depth: route.depth === 2 ? 2 : 1 }), text: "Centre the graph here", attrs: { "aria-label": `Centre the graph on ${node.label}` } }),
      out.length + back.length === 0
        ? null
        : el(
            "ul",
            { class: "graph-list-edges" },
            out.length > 0 ? el("li", { testid: "graph-list-out" }, el("span", { class: "muted", text: "Links to: " }), pageLinks(out)) : null,
            back.length > 0 ? el("li", { testid: "graph-list-in" }, el("span", { class: "muted", text: "Linked from: " }), pageLinks(back)) : null,
          ),
    );
  });
  return el(
    "section",
    { class: "graph-list", testid: "graph-list", attrs: { "aria-labelledby": "graph-list-title" } },
    el("h2", { class: "section-title", text: "The same pages as a list", attrs: { id: "graph-list-title" } }),
    el("ul", { class: "plain-list" }, rows),
  );
}

/** Labels the reader always sees: the page in focus and its direct links. The rest show on hover. */
function labelled(route, node) {
  return !route.all && node.distance !== null && node.distance <= 1;
}

function draw(cytoscape, container, model, shown, route) {
  const big = shown.nodes.length > 2000;
  const grouped = route.all && shown.nodes.length <= GROUP_BOXES_MAX;
  // Positions are computed here, not by a force layout: linear time, and label-aware spacing (graph-model.js).
  const positions = route.all ? groupPositions(shown.nodes) : ringPositions(shown.nodes, (node) => labelled(route, node));
  const groups = grouped ? [...new Set(shown.nodes.map((node) => node.primary).filter(Boolean))] : [];
  const elements = [
    ...groups.map((slug) => ({ data: { id: `group:${slug}`, label: model.topicsBySlug.get(slug).label, kind: "group", colour: model.topicsBySlug.get(slug).colour % PALETTE_SIZE } })),
    ...shown.nodes.map((node) => ({
      data: {
        id: node.slug,
        label: node.label,
        slug: node.slug,
        kind: "page",
        colour: node.primary ? model.topicsBySlug.get(node.primary).colour % PALETTE_SIZE : -1,
        // -1 in the whole-wiki drawing: no page is in focus there.
        distance: node.distance ?? -1,
        degree: node.degree,
        ...(grouped && node.primary ? { parent: `group:${node.primary}` } : {}),
      },
      position: { ...positions.get(node.slug) },
      classes: labelled(route, node) ? "labelled" : "",
    })),
    ...shown.edges.map((edge, index) => ({ data: { id: `e${index}`, source: edge.source, target: edge.target } })),
  ];
  const cy = cytoscape({
    container,
    elements,
    style: graphStyle(big),
    layout: { name: "preset", fit: true, padding: 24 },
    minZoom: 0.05,
    maxZoom: 4,
    textureOnViewport: big,
    hideEdgesOnViewport: big,
    pixelRatio: big ? 1 : "auto",
  });
  // A handful of nodes would otherwise be blown up to fill the whole canvas.
  if (cy.zoom() > 1.4) {
    cy.zoom(1.4);
    cy.center();
  }
  cy.on("tap", 'node[kind = "page"]', (event) => {
    window.location.hash = to.page(route.wiki, event.target.data("slug"));
  });
  cy.on("tap", 'node[kind = "group"]', (event) => {
    window.location.hash = to.topic(route.wiki, event.target.id().slice("group:".length));
  });
  // Hovering a page names it and its neighbours, and dims the rest.
  cy.on("mouseover", 'node[kind = "page"]', (event) => {
    container.style.cursor = "pointer";
    const near = event.target.closedNeighborhood();
    cy.elements().not(near).not(":parent").addClass("faded");
    near.nodes().addClass("hovered");
  });
  cy.on("mouseout", 'node[kind = "page"]', () => {
    container.style.cursor = "";
    cy.elements().removeClass("faded hovered");
  });
  return cy;
}

function cssVar(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

function graphStyle(big) {
  const text = cssVar("--text", "#1d2430");
  const edge = cssVar("--graph-edge", "#9aa4b2");
  const surface = cssVar("--bg", "#ffffff");
  const untagged = cssVar("--graph-untagged", "#8a93a3");
  const colours = Array.from({ length: PALETTE_SIZE }, (_, i) => cssVar(`--topic-${i}`, "#3b6fd8"));
  const label = {
    label: "data(label)",
    color: text,
    "font-size": 11,
    "min-zoomed-font-size": 6,
    "text-valign": "bottom",
    "text-margin-y": 4,
    "text-outline-color": surface,
    "text-outline-width": 2,
    "text-wrap": "wrap",
    "text-max-width": 130,
  };
  return [
    { selector: 'node[kind = "page"]', style: { label: "", width: `mapData(degree, 0, 12, 12, 30)`, height: `mapData(degree, 0, 12, 12, 30)`, "background-color": untagged, "border-width": 0 } },
    ...colours.map((colour, i) => ({ selector: `node[colour = ${i}]`, style: { "background-color": colour } })),
    { selector: 'node[kind = "page"][distance = 0]', style: { "border-width": 3, "border-color": text, "font-weight": "bold" } },
    { selector: "node.labelled, node.hovered, node:selected", style: label },
    { selector: "node.labelled", style: { "font-size": 12 } },
    { selector: 'node[kind = "group"]', style: { label: "data(label)", "text-valign": "top", "text-halign": "center", "font-size": 12, "font-weight": "bold", color: text, "background-opacity": 0.06, "border-width": 1, "border-opacity": 0.5, shape: "round-rectangle", padding: 12 } },
    ...colours.map((colour, i) => ({ selector: `node[kind = "group"][colour = ${i}]`, style: { "background-color": colour, "border-color": colour } })),
    { selector: "edge", style: { width: 1, "line-color": edge, opacity: 0.6, "curve-style": big ? "haystack" : "bezier" } },
    { selector: "edge", style: big ? {} : { "target-arrow-shape": "triangle", "target-arrow-color": edge, "arrow-scale": 0.7 } },
    { selector: ".faded", style: { opacity: 0.15 } },
    { selector: "node.hovered", style: { "z-index": 10 } },
  ];
}
