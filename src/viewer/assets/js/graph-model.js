// What the graph view draws, from `/api/graph`: pure functions, no DOM (tested in
// test/viewer/graph-model-unit.test.ts).
import { plural } from "./format.js";

/** A neighbourhood larger than this keeps its closest, most linked pages. */
export const NEIGHBOURHOOD_MAX = 120;

/**
 * Pages with their topics and links (page links only, without self links), topics with the
 * colour the view gives them, and the page to start from: the landing page, else the most
 * linked one. A page's `primary` topic, which colours and groups it, is its most specific:
 * the one of its topics with the fewest pages (ties in slug order).
 */
export function graphModel(data) {
  const nodes = data.nodes ?? [];
  const edges = data.edges ?? [];
  const pages = new Map();
  for (const node of nodes) if (node.kind === "page") pages.set(node.slug, { slug: node.slug, label: node.label || node.slug, topics: [], primary: null, degree: 0 });
  const topicLabels = new Map(nodes.filter((node) => node.kind === "topic").map((node) => [node.slug, node.label || node.slug]));
  const out = new Map([...pages.keys()].map((slug) => [slug, new Set()]));
  const back = new Map([...pages.keys()].map((slug) => [slug, new Set()]));
  const counts = new Map();
  for (const edge of edges) {
    const source = edge.source.slice(edge.source.indexOf(":") + 1);
    const target = edge.target.slice(edge.target.indexOf(":") + 1);
    if (edge.kind === "link" && pages.has(source) && pages.has(target) && source !== target) {
      out.get(source).add(target);
      back.get(target).add(source);
    } else if (edge.kind === "topic" && pages.has(source)) {
      pages.get(source).topics.push(target);
      counts.set(target, (counts.get(target) ?? 0) + 1);
    }
  }
  for (const page of pages.values()) {
    page.degree = new Set([...out.get(page.slug), ...back.get(page.slug)]).size;
    page.primary = [...page.topics].sort((a, b) => counts.get(a) - counts.get(b) || (a < b ? -1 : a > b ? 1 : 0))[0] ?? null;
  }
  const used = [...new Set([...pages.values()].map((page) => page.primary).filter(Boolean))].sort();
  const topics = used.map((slug, colour) => ({ slug, label: topicLabels.get(slug) ?? slug, count: counts.get(slug) ?? 0, colour }));
  const byDegree = [...pages.values()].sort((a, b) => b.degree - a.degree || (a.slug < b.slug ? -1 : 1));
  return {
    pages,
    out,
    back,
    topics,
    topicsBySlug: new Map(topics.map((topic) => [topic.slug, topic])),
    defaultFocus: pages.has("README") ? "README" : (byDegree[0]?.slug ?? null),
  };
}

/**
 * The page in focus and the pages within `depth` links of it, either way (links and
 * backlinks), nearest first, with the links among them. Past NEIGHBOURHOOD_MAX pages the
 * farthest ring keeps its most linked pages.
 */
export function neighbourhood(model, focus, depth) {
  const distance = new Map([[focus, 0]]);
  let ring = [focus];
  for (let step = 1; step <= depth && ring.length > 0 && distance.size < NEIGHBOURHOOD_MAX; step++) {
    const next = new Set();
    for (const slug of ring) for (const near of [...model.out.get(slug), ...model.back.get(slug)]) if (!distance.has(near)) next.add(near);
    const ranked = [...next].sort((a, b) => model.pages.get(b).degree - model.pages.get(a).degree || (a < b ? -1 : 1));
    ring = ranked.slice(0, NEIGHBOURHOOD_MAX - distance.size);
    for (const slug of ring) distance.set(slug, step);
  }
  const reachable = countWithin(model, focus, depth);
  const title = model.pages.get(focus).label;
  const near = depth === 1 ? "it links to or is linked from" : "within two links of it";
  const caption =
    distance.size < reachable
      ? `${title} and the ${distance.size - 1} most linked of the ${reachable - 1} pages ${near}, of ${plural(model.pages.size, "page")}.`
      : `${title} and the ${plural(distance.size - 1, "page")} ${near}, of ${plural(model.pages.size, "page")}.`;
  return subgraph(model, distance, caption);
}

/** Every page, grouped by topic in the drawing. */
export function wholeWiki(model) {
  const distance = new Map([...model.pages.keys()].map((slug) => [slug, null]));
  return subgraph(model, distance, `All ${plural(model.pages.size, "page")}, grouped by topic. Hover a page to name it and its links; click it to open it.`);
}

function subgraph(model, distance, caption) {
  const nodes = [...distance.entries()].map(([slug, d]) => ({ ...model.pages.get(slug), distance: d }));
  nodes.sort((a, b) => (a.distance ?? 0) - (b.distance ?? 0) || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  const edges = [];
  for (const source of distance.keys()) for (const target of model.out.get(source)) if (distance.has(target)) edges.push({ source, target });
  return { nodes, edges, caption };
}

function countWithin(model, focus, depth) {
  const seen = new Set([focus]);
  let ring = [focus];
  for (let step = 1; step <= depth; step++) {
    const next = [];
    for (const slug of ring) {
      for (const near of [...model.out.get(slug), ...model.back.get(slug)]) {
        if (seen.has(near)) continue;
        seen.add(near);
        next.push(near);
      }
    }
    ring = next;
  }
  return seen.size;
}

/** Room a page needs around its centre in the drawing: its label (up to 3 lines below it) when shown, else the dot. */
export const FOOTPRINT = { labelled: 100, plain: 20 };
const GAP = 12;

/**
 * Positions for a neighbourhood: the page in focus in the middle, each step out on rings
 * around it. Every page owns a circle of its footprint's radius, and the rings are sized
 * so that no two circles overlap: between neighbours on a ring (the chord) and between
 * rings (the radial step). A ring too long to keep near the middle goes on to a further
 * circle, staggered, instead of growing one huge ring. `labelled(node)` says whose label shows.
 */
export function ringPositions(nodes, labelled) {
  const positions = new Map();
  const rings = [];
  for (const node of nodes) (rings[node.distance ?? 0] ??= []).push(node);
  const size = (node) => (labelled(node) ? FOOTPRINT.labelled : FOOTPRINT.plain);
  let radius = 0;
  let inner = Math.max(0, ...(rings[0] ?? []).map(size));
  for (const node of rings[0] ?? []) positions.set(node.slug, { x: 0, y: 0 });
  let turn = 0;
  for (const ring of rings.slice(1)) {
    // Pages of a topic side by side: their colours read as arcs.
    const left = [...(ring ?? [])].sort((a, b) => String(a.primary).localeCompare(String(b.primary)) || a.label.localeCompare(b.label));
    while (left.length > 0) {
      const own = Math.max(...left.map(size));
      const nearest = radius + inner + own + GAP;
      const whole = chordRadius(own, left.length);
      // One circle for the whole ring unless that would push it far out; then fill this circle and go on.
      const r = whole <= nearest * 1.5 ? Math.max(nearest, whole) : nearest;
      const count = whole <= nearest * 1.5 ? left.length : capacity(own, r);
      const placed = left.splice(0, count);
      const offset = -Math.PI / 2 + (turn++ % 2 === 0 ? 0 : Math.PI / placed.length);
      placed.forEach((node, i) => {
        const angle = offset + (2 * Math.PI * i) / placed.length;
        positions.set(node.slug, { x: Math.round(r * Math.cos(angle)), y: Math.round(r * Math.sin(angle)) });
      });
      radius = r;
      inner = own;
    }
  }
  return positions;
}

/** The radius at which `count` circles of radius `own` fit around a ring with GAP between them. */
function chordRadius(own, count) {
  if (count <= 1) return 0;
  return (2 * own + GAP) / (2 * Math.sin(Math.PI / count));
}

function capacity(own, r) {
  const half = (2 * own + GAP) / (2 * r);
  return half >= 1 ? 1 : Math.max(1, Math.floor(Math.PI / Math.asin(half)));
}

/** Grid cell of a page in the whole-wiki drawing; labels show only on hover there. */
export const CELL = 44;
const GROUP_GAP = 48;

/**
 * Positions for the whole wiki: one block per primary topic (untagged pages last), each a
 * near-square grid of its pages (most linked first), the blocks packed in rows. Topics
 * never overlap, so the drawing reads as groups; no force layout, so it costs linear time.
 */
export function groupPositions(nodes) {
  const groups = new Map();
  for (const node of nodes) {
    const key = node.primary ?? "\uffff";
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(node);
  }
  const blocks = [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, members]) => {
      members.sort((a, b) => b.degree - a.degree || (a.slug < b.slug ? -1 : 1));
      const cols = Math.ceil(Math.sqrt(members.length));
      return { key, members, cols, width: cols * CELL, height: Math.ceil(members.length / cols) * CELL };
    });
  const area = blocks.reduce((sum, b) => sum + (b.width + GROUP_GAP) * (b.height + GROUP_GAP), 0);
  const rowWidth = Math.max(...blocks.map((b) => b.width), Math.sqrt(area) * 1.6);
  const positions = new Map();
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const block of blocks) {
    if (x > 0 && x + block.width > rowWidth) {
      x = 0;
      y += rowHeight + GROUP_GAP;
      rowHeight = 0;
    }
    block.members.forEach((node, i) => positions.set(node.slug, { x: x + (i % block.cols) * CELL, y: y + Math.floor(i / block.cols) * CELL }));
    x += block.width + GROUP_GAP;
    rowHeight = Math.max(rowHeight, block.height);
  }
  return positions;
}
