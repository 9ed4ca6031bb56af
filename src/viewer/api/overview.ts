import type { Hono } from "hono";
import type { ViewerDeps } from "../deps.js";
import { pagesByPath, pagesBySlug, recentPages } from "../../index/views/viewer.js";
import { selectedWiki, type SelectedWiki, type ViewerEnv } from "../selection.js";
import { pageSummary } from "../shapes.js";
import { GenerationCache } from "./cache.js";
import type { DriftService } from "../../evidence/service.js";
import { staleReason } from "../../evidence/json.js";

const RECENT_PAGES = 30;

/** `GET /api/overview`: the landing screen and the left rail (every page, every topic). */
export function overviewRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  // Computed and serialized once per index generation: an unchanged wiki is answered from memory.
  const cache = new GenerationCache<string>();
  app.get("/api/overview", async (c) => {
    const wiki = await selectedWiki(c, deps);
    const text = await cache.get(wiki, async () => JSON.stringify(await overview(wiki)));
    return c.body(text, 200, { "Content-Type": "application/json" });
  });
  // Apart from the overview, and never cached: drift follows the code (commits, edits), not the wiki's index.
  app.get("/api/overview/stale", async (c) => {
    const wiki = await selectedWiki(c, deps);
    return c.json(await stalePages(wiki, await deps.drift()));
  });
}

/** The overview's "Stale pages": each page whose cited code changed since it was verified, with why. */
async function stalePages(wiki: SelectedWiki, drift: DriftService): Promise<object> {
  const { index } = wiki.live;
  const report = await drift.report(index);
  const stale = report.pages.filter((page) => page.status === "stale");
  const rows = await index.read((db) => pagesBySlug(db, stale.map((page) => page.slug)));
  return {
    wiki: wiki.repository.name,
    head: report.head,
    notice: report.notice,
    pages: stale.flatMap((page) => {
      const row = rows.get(page.slug);
      return row ? [{ ...pageSummary(row), reason: staleReason(page), verified_at: page.verified_at }] : [];
    }),
  };
}

async function overview(wiki: SelectedWiki): Promise<object> {
  const { index } = wiki.live;
  const navigation = (await index.read(pagesByPath)).map(pageSummary);
  const topics = await index.topics();
  const readme = (await index.read((db) => pagesBySlug(db, ["README"]))).get("README");
  // Dead file references count as warnings too: they are as old as the last change to the wiki.
  const issues = await index.issues();
  return {
    wiki: { repository_id: wiki.repository.repositoryId, name: wiki.repository.name, root_path: wiki.repository.rootPath },
    page_count: navigation.length,
    topic_count: topics.length,
    pages: (await index.read((db) => recentPages(db, RECENT_PAGES))).map(pageSummary),
    navigation,
    topics,
    featured: readme ? pageSummary(readme) : null,
    health: {
      errors: issues.filter((issue) => issue.severity === "error").length,
      warnings: issues.filter((issue) => issue.severity === "warning").length,
    },
  };
}
