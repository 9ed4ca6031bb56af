/* global document, window, getComputedStyle */
// The graph view: pages and topics as nodes, links / topic tags / topic parents as edges.
// The graph library (vendored, ~400 KB) is loaded only here. A big wiki shows its topics
// and the most linked pages first; "Show all" draws everything with a cheap layout.
import { api } from "./api.js";
import { el } from "./dom.js";
import { plural } from "./format.js";
import { to } from "./routes.js";
import { emptyState, setTitle, viewHeader } from "./ui.js";

const FEW_PAGES = 300;
const TOP_PAGES = 150;
const FORCE_LAYOUT_MAX = 600;
const LAYOUTS = ["cose", "breadthfirst", "concentric", "grid"];
let libraryLoad = null;

export async function render({ route, main, signal }) {
  setTitle("Graph");
  const [graph, cytoscape] = await Promise.all([api("/api/graph", { wiki: route.wiki, signal }), loadLibrary()]);
  if (signal.aborted) return;
  const view = el("div", { class: "view view-graph" });
  main.append(view);
  const pages = graph.nodes.filter((node) => node.kind === "page");
  if (pages.length === 0 && graph.nodes.length === 0) {
    view.append(viewHeader({ eyebrow: "Graph", title: "Pages and topics" }), emptyState("No pages yet", "This wiki has no pages to draw. Run `ca ingest <path>` or `ca garden` in the repository to have an agent write them."));
    return;
  }
  const shown = chooseNodes(graph, route.all);
  // The force layout is quadratic: past a few hundred nodes a grid is drawn at once.
  const layout = LAYOUTS.includes(route.layout) ? route.layout : shown.nodes.length <= FORCE_LAYOUT_MAX ? "cose" : "grid";
  const canvas = el("div", { class: "graph-canvas", testid: "graph", dataset: { nodeCount: shown.nodes.length, edgeCount: shown.edges.length, layout } });
  view.append(viewHeader({ eyebrow: "Graph", title: "Pages and topics", deck: shown.caption }), toolbar(route, graph, shown, layout), legend(), canvas);
  const cy = draw(cytoscape, canvas, shown, layout, route.wiki);
  signal.addEventListener("abort", () => cy.destroy());
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

/** Topics and every page for a small wiki; topics and the most linked pages for a big one. */
function chooseNodes(graph, all) {
  const degree = new Map();
  for (const edge of graph.edges) {
    degree.set(edge.source, (degree.get(edge.source) ?? 0) + 1);
    degree.set(edge.target, (degree.get(edge.target) ?? 0) + 1);
  }
  const pages = graph.nodes.filter((node) => node.kind === "page");
  const topics = graph.nodes.filter((node) => node.kind !== "page");
  const limited = !all && pages.length > FEW_PAGES;
  const keptPages = limited ? [...pages].sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) || a.label.localeCompare(b.label)).slice(0, TOP_PAGES) : pages;
  const nodes = [...topics, ...keptPages];
  const ids = new Set(nodes.map((node) => node.id));
  const edges = graph.edges.filter((edge) => ids.has(edge.source) && ids.has(edge.target) && edge.source !== edge.target);
  const caption = limited
    ? `${plural(topics.length, "topic")} and the ${keptPages.length} most linked of ${plural(pages.length, "page")}.`
    : `${plural(pages.length, "page")} and ${plural(topics.length, "topic")}. Click a node to open it.`;
  return { nodes, edges, degree, limited, total: pages.length, caption };
}

function toolbar(route, graph, shown, layout) {
  const bar = el("div", { class: "graph-toolbar" });
  if (shown.limited || route.all) {
    bar.append(
      el("a", {
        class: "button",
        testid: "graph-toggle",
        href: to.graph(route.wiki, { all: !route.all, layout: route.layout }),
        text: route.all ? `Show the ${TOP_PAGES} most linked pages` : `Show all ${shown.total} pages`,
      }),
    );
  }
  const picker = el("select", { class: "input", testid: "graph-layout", attrs: { "aria-label": "Layout" } }, LAYOUTS.map((name) => el("option", { text: name, attrs: { value: name, selected: name === layout } })));
  picker.addEventListener("change", () => {
    window.location.hash = to.graph(route.wiki, { all: route.all, layout: picker.value });
  });
  bar.append(el("label", { class: "field field-inline" }, el("span", { text: "Layout" }), picker));
  return bar;
}

function legend() {
  return el(
    "div",
    { class: "graph-legend muted" },
    el("span", { class: "legend-item" }, el("span", { class: "swatch swatch-page" }), "page"),
    el("span", { class: "legend-item" }, el("span", { class: "swatch swatch-topic" }), "topic"),
    el("span", { class: "legend-item" }, el("span", { class: "line line-link" }), "link"),
    el("span", { class: "legend-item" }, el("span", { class: "line line-tag" }), "tagged"),
    el("span", { class: "legend-item" }, el("span", { class: "line line-parent" }), "subtopic"),
  );
}

function draw(cytoscape, container, shown, layoutName, wiki) {
  const big = shown.nodes.length > 2000;
  const maxDegree = Math.max(1, ...shown.nodes.map((node) => shown.degree.get(node.id) ?? 0));
  const elements = [
    ...shown.nodes.map((node) => ({ data: { id: node.id, label: node.label || node.slug, kind: node.kind, slug: node.slug, degree: Math.min(shown.degree.get(node.id) ?? 0, maxDegree) } })),
    ...shown.edges.map((edge, index) => ({ data: { id: `e${index}`, source: edge.source, target: edge.target, kind: edge.kind } })),
  ];
  const cy = cytoscape({
    container,
    elements,
    style: graphStyle(maxDegree, big),
    layout: layoutOptions(layoutName, shown.nodes.length),
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
  cy.on("tap", "node", (event) => {
    const data = event.target.data();
    window.location.hash = data.kind === "page" ? to.page(wiki, data.slug) : to.topic(wiki, data.slug);
  });
  cy.on("mouseover", "node", () => {
    container.style.cursor = "pointer";
  });
  cy.on("mouseout", "node", () => {
    container.style.cursor = "";
  });
  return cy;
}

function layoutOptions(name, count) {
  switch (name) {
    case "cose":
      return { name: "cose", animate: false, randomize: true, numIter: count > 300 ? 500 : 1000, nodeRepulsion: () => 12000, idealEdgeLength: () => 90, nodeOverlap: 20, componentSpacing: 80, gravity: 0.2 };
    case "breadthfirst":
      return { name: "breadthfirst", directed: false, spacingFactor: 1.1, animate: false };
    case "concentric":
      // Topics in the middle, then pages in rings by order of magnitude of their links.
      return { name: "concentric", concentric: (node) => (node.data("kind") === "topic" ? 100 : Math.floor(Math.log2(node.data("degree") + 1))), levelWidth: () => 1, minNodeSpacing: 6, animate: false };
    default:
      // Topics first, then pages by their most linked: hubs end up together at the top.
      return { name: "grid", animate: false, avoidOverlapPadding: 4, sort: (a, b) => (a.data("kind") === b.data("kind") ? b.data("degree") - a.data("degree") : a.data("kind") === "topic" ? -1 : 1) };
  }
}

function cssVar(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

function graphStyle(maxDegree, big) {
  const text = cssVar("--text", "#1d2430");
  const page = cssVar("--graph-page", "#3b6fd8");
  const topic = cssVar("--graph-topic", "#d98a1c");
  const edge = cssVar("--graph-edge", "#9aa4b2");
  const surface = cssVar("--bg", "#ffffff");
  return [
    {
      selector: "node",
      style: {
        label: "data(label)",
        color: text,
        "font-size": 10,
        "min-zoomed-font-size": big ? 12 : 7,
        "text-valign": "bottom",
        "text-margin-y": 3,
        "text-outline-color": surface,
        "text-outline-width": 2,
        "text-max-width": 140,
        "text-wrap": "ellipsis",
      },
    },
    { selector: 'node[kind = "page"]', style: { shape: "ellipse", "background-color": page, width: `mapData(degree, 0, ${maxDegree}, 10, 34)`, height: `mapData(degree, 0, ${maxDegree}, 10, 34)` } },
    { selector: 'node[kind = "topic"]', style: { shape: "round-diamond", "background-color": topic, width: 30, height: 30, "font-weight": "bold" } },
    { selector: "edge", style: { width: 1, "line-color": edge, opacity: 0.7, "curve-style": big ? "haystack" : "bezier" } },
    { selector: 'edge[kind = "link"]', style: big ? {} : { "target-arrow-shape": "triangle", "target-arrow-color": edge, "arrow-scale": 0.7 } },
    { selector: 'edge[kind = "topic"]', style: { "line-style": "dashed", "line-color": topic, opacity: 0.45 } },
    { selector: 'edge[kind = "parent"]', style: { width: 2, "line-color": topic, opacity: 0.9 } },
    { selector: "node:selected", style: { "border-width": 3, "border-color": text } },
  ];
}

