import type { Hono } from "hono";
import type { ViewerDeps } from "../deps.js";
import { graphRows } from "../../index/views/viewer.js";
import { selectedWiki, type ViewerEnv } from "../selection.js";
import { GenerationCache } from "./cache.js";

interface GraphNode {
  id: string;
  kind: "page" | "topic";
  label: string;
  slug: string;
}

interface GraphEdge {
  source: string;
  target: string;
  kind: "link" | "topic" | "parent";
}

/** `GET /api/graph`: pages, topics, page links, page→topic tags and topic→parent edges. */
export function graphRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  const cache = new GenerationCache<string>();
  app.get("/api/graph", async (c) => {
    const wiki = await selectedWiki(c, deps);
    const text = await cache.get(wiki, async () => JSON.stringify({ wiki: wiki.repository.name, ...graphOf(await wiki.live.index.read(graphRows)) }));
    return c.body(text, 200, { "Content-Type": "application/json" });
  });
}

function graphOf(rows: ReturnType<typeof graphRows>): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const nodes: GraphNode[] = rows.pages.map((p) => ({ id: `page:${p.slug}`, kind: "page", label: p.title, slug: p.slug }));
  const topics = new Map(rows.topics.map((t) => [t.slug, t.title]));
  // A tag or parent naming a topic topics.yaml does not declare still gets a node.
  for (const { topic } of rows.pageTopics) if (!topics.has(topic)) topics.set(topic, topic);
  for (const { child, parent } of rows.parents) for (const slug of [child, parent]) if (!topics.has(slug)) topics.set(slug, slug);
  for (const [slug, title] of topics) nodes.push({ id: `topic:${slug}`, kind: "topic", label: title, slug });
  const edges: GraphEdge[] = [
    ...rows.links.map((l) => ({ source: `page:${l.source}`, target: `page:${l.target}`, kind: "link" as const })),
    ...rows.pageTopics.map((t) => ({ source: `page:${t.page}`, target: `topic:${t.topic}`, kind: "topic" as const })),
    ...rows.parents.map((p) => ({ source: `topic:${p.child}`, target: `topic:${p.parent}`, kind: "parent" as const })),
  ];
  return { nodes, edges };
}
