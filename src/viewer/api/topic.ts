import type { Hono } from "hono";
import type { ViewerDeps } from "../deps.js";
import { flagParam } from "../params.js";
import { pagesBySlug } from "../../index/views/viewer.js";
import { selectedWiki, type ViewerEnv } from "../selection.js";
import { pageSummary } from "../shapes.js";

/** `GET /api/topic/<slug>?descendants=1`: a topic, its place in the graph and its pages. */
export function topicRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  app.get("/api/topic/:slug", async (c) => {
    const descendants = flagParam(c.req.query("descendants"), "descendants");
    const wiki = await selectedWiki(c, deps);
    const { index } = wiki.live;
    const topic = await index.topic(c.req.param("slug"), descendants);
    const rows = await index.read((db) => pagesBySlug(db, topic.pages));
    return c.json({
      wiki: wiki.repository.name,
      slug: topic.slug,
      title: topic.title,
      description: topic.description,
      parents: topic.parents,
      children: topic.children,
      pages: topic.pages.flatMap((slug) => (rows.has(slug) ? [pageSummary(rows.get(slug)!)] : [])),
    });
  });
}
