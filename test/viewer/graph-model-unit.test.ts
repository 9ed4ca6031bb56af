import { describe, expect, test } from "vitest";

/** The graph view's model and layouts are plain browser JavaScript: loaded as served. */
interface Node {
  slug: string;
  label: string;
  primary: string | null;
  distance: number | null;
  degree: number;
}
interface Shown {
  nodes: Node[];
  edges: { source: string; target: string }[];
  caption: string;
}
interface Model {
  pages: Map<string, Node>;
  topics: { slug: string; colour: number }[];
  defaultFocus: string | null;
}
interface GraphModule {
  graphModel(data: unknown): Model;
  neighbourhood(model: Model, focus: string, depth: number): Shown;
  wholeWiki(model: Model): Shown;
  ringPositions(nodes: Node[], labelled: (node: Node) => boolean): Map<string, { x: number; y: number }>;
  groupPositions(nodes: Node[]): Map<string, { x: number; y: number }>;
  FOOTPRINT: { labelled: number; plain: number };
  CELL: number;
  NEIGHBOURHOOD_MAX: number;
}
const graph = (await import(new URL("../../src/viewer/assets/js/graph-model.js", import.meta.url).href)) as GraphModule;

/** `/api/graph`'s answer for pages `links` (source → targets) and `topics` (page → topics). */
function apiGraph(links: Record<string, string[]>, topics: Record<string, string[]> = {}) {
  const slugs = [...new Set([...Object.keys(links), ...Object.values(links).flat(), ...Object.keys(topics)])];
  const topicSlugs = [...new Set(Object.values(topics).flat())];
  return {
    nodes: [...slugs.map((slug) => ({ id: `page:${slug}`, kind: "page", label: slug.toUpperCase(), slug })), ...topicSlugs.map((slug) => ({ id: `topic:${slug}`, kind: "topic", label: slug, slug }))],
    edges: [
      ...Object.entries(links).flatMap(([source, targets]) => targets.map((target) => ({ source: `page:${source}`, target: `page:${target}`, kind: "link" }))),
      ...Object.entries(topics).flatMap(([page, list]) => list.map((topic) => ({ source: `page:${page}`, target: `topic:${topic}`, kind: "topic" }))),
    ],
  };
}

const bySlug = (shown: Shown) => Object.fromEntries(shown.nodes.map((n) => [n.slug, n.distance]));

describe("the graph view's model", () => {
  test("a neighbourhood follows links and backlinks, one or two steps out, with the links among the pages it keeps", () => {
    // a → b → c → d, and e → a (a backlink of a).
    const model = graph.graphModel(apiGraph({ a: ["b"], b: ["c"], c: ["d"], e: ["a"], d: [] }));
    expect(bySlug(graph.neighbourhood(model, "a", 1))).toEqual({ a: 0, b: 1, e: 1 });
    const two = graph.neighbourhood(model, "a", 2);
    expect(bySlug(two)).toEqual({ a: 0, b: 1, e: 1, c: 2 });
    expect(two.edges).toEqual(expect.arrayContaining([{ source: "a", target: "b" }, { source: "b", target: "c" }, { source: "e", target: "a" }]));
    expect(two.edges).toHaveLength(3);
    expect(bySlug(graph.wholeWiki(model))).toEqual({ a: null, b: null, c: null, d: null, e: null });
  });

  test("it starts from the landing page, else from the most linked page", () => {
    expect(graph.graphModel(apiGraph({ README: ["x"], hub: ["x", "y", "z"] })).defaultFocus).toBe("README");
    expect(graph.graphModel(apiGraph({ hub: ["x", "y", "z"], x: ["y"] })).defaultFocus).toBe("hub");
  });

  test("a page is coloured by its most specific topic: the one of its topics with the fewest pages", () => {
    const model = graph.graphModel(apiGraph({ a: [], b: [], c: [] }, { a: ["concepts", "queue"], b: ["concepts"], c: ["concepts", "queue"] }));
    expect(model.pages.get("a")!.primary).toBe("queue");
    expect(model.pages.get("b")!.primary).toBe("concepts");
    expect(model.topics.map((t) => [t.slug, t.colour])).toEqual([
      ["concepts", 0],
      ["queue", 1],
    ]);
  });

  test("a hub's neighbourhood keeps its most linked pages, and the caption says how many it left out", () => {
    const spokes = Array.from({ length: graph.NEIGHBOURHOOD_MAX + 30 }, (_, i) => `p${String(i).padStart(3, "0")}`);
    const model = graph.graphModel(apiGraph({ hub: spokes, p000: ["p001"] }));
    const shown = graph.neighbourhood(model, "hub", 1);
    expect(shown.nodes).toHaveLength(graph.NEIGHBOURHOOD_MAX);
    expect(shown.nodes.map((n) => n.slug)).toEqual(expect.arrayContaining(["hub", "p000", "p001"]));
    expect(shown.caption).toBe(`HUB and the ${graph.NEIGHBOURHOOD_MAX - 1} most linked of the ${spokes.length} pages it links to or is linked from, of ${spokes.length + 1} pages.`);
  });
});

describe("the graph view's layouts leave room for every label", () => {
  const distance = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y);

  test.each([3, 12, 60, 119])("rings around a page with %i labelled neighbours and more beyond: no two footprints overlap", (count) => {
    const links: Record<string, string[]> = { focus: Array.from({ length: count }, (_, i) => `n${i}`) };
    for (let i = 0; i < count; i++) links[`n${i}`] = [`far${i}`, `far${i + 1}`];
    const model = graph.graphModel(apiGraph(links));
    const shown = graph.neighbourhood(model, "focus", 2);
    const labelled = (node: Node) => node.distance !== null && node.distance <= 1;
    const positions = graph.ringPositions(shown.nodes, labelled);
    expect(positions.size).toBe(shown.nodes.length);
    const radius = (node: Node) => (labelled(node) ? graph.FOOTPRINT.labelled : graph.FOOTPRINT.plain);
    for (const [i, a] of shown.nodes.entries()) {
      for (const b of shown.nodes.slice(i + 1)) {
        expect(distance(positions.get(a.slug)!, positions.get(b.slug)!), `${a.slug} and ${b.slug}`).toBeGreaterThanOrEqual(radius(a) + radius(b) - 1);
      }
    }
  });

  test("the whole wiki is one block per topic, and no two blocks overlap", () => {
    const topics: Record<string, string[]> = {};
    for (let i = 0; i < 73; i++) topics[`p${i}`] = [`t${i % 8}`];
    topics.lonely = [];
    const model = graph.graphModel(apiGraph({ p0: ["p1"] }, topics));
    const shown = graph.wholeWiki(model);
    const positions = graph.groupPositions(shown.nodes);
    const boxes = new Map<string, { x1: number; y1: number; x2: number; y2: number }>();
    for (const node of shown.nodes) {
      const at = positions.get(node.slug)!;
      const key = String(node.primary);
      const box = boxes.get(key) ?? { x1: at.x, y1: at.y, x2: at.x, y2: at.y };
      boxes.set(key, { x1: Math.min(box.x1, at.x), y1: Math.min(box.y1, at.y), x2: Math.max(box.x2, at.x), y2: Math.max(box.y2, at.y) });
    }
    expect(boxes.size).toBe(9);
    const list = [...boxes.values()];
    for (const [i, a] of list.entries()) {
      for (const b of list.slice(i + 1)) {
        const apart = a.x2 + graph.CELL <= b.x1 || b.x2 + graph.CELL <= a.x1 || a.y2 + graph.CELL <= b.y1 || b.y2 + graph.CELL <= a.y1;
        expect(apart, JSON.stringify([a, b])).toBe(true);
      }
    }
  });
});
