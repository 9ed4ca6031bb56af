import type { Hono } from "hono";
import { join, relative } from "node:path";
import { existsWithin, isDirectoryWithin } from "../../core/fs.js";
import type { SearchHit } from "../../index/views/search.js";
import { normalizeRefPath } from "../../wiki/file-refs.js";
import { plainText } from "../../wiki/plain-text.js";
import type { ViewerDeps } from "../deps.js";
import { limitParam, repositoryPathParam } from "../params.js";
import { selectedWiki, type ViewerEnv } from "../selection.js";
import { isoTime } from "../../core/time.js";
import { readDrift, type PagesDrift } from "../../evidence/freshness.js";

const SEARCH_LIMIT = { fallback: 50, max: 1000 };

/** `GET /api/search` (text, topic and mentions filters) and `GET /api/file` (pages citing a path). */
export function searchRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  app.get("/api/search", async (c) => {
    const limit = limitParam(c.req.query("limit"), SEARCH_LIMIT);
    const query = c.req.query("q") ?? null;
    const topics = c.req.queries("topic") ?? [];
    const mentionsInput = c.req.query("mentions");
    const mentions = mentionsInput === undefined || mentionsInput.trim() === "" ? undefined : repositoryPathParam(mentionsInput);
    const wiki = await selectedWiki(c, deps);
    const { index } = wiki.live;
    const { hits, total } = await index.search({ query: query ?? "", topics, limit, ...(mentions ? { mentions } : {}) });
    const drift = await readDrift(await deps.drift(), index, hits.map((hit) => hit.slug));
    return c.json({ wiki: wiki.repository.name, query, total, pages: hits.map((hit) => searchPage(index.almanacPath, hit, drift)) });
  });

  app.get("/api/file", async (c) => {
    const path = repositoryPathParam(c.req.query("path"));
    const limit = limitParam(c.req.query("limit"), SEARCH_LIMIT);
    const wiki = await selectedWiki(c, deps);
    const { index } = wiki.live;
    const normalized = normalizeRefPath(path)!;
    // The same test search --mentions applies: a folder is one that exists inside the repository (or is written with a slash).
    const onDisk = join(wiki.repository.rootPath, normalized.shape);
    const directory = normalized.isDir || isDirectoryWithin(onDisk, wiki.repository.rootPath);
    // Pages may cite a file that was since deleted or moved: the view says so plainly.
    const exists = existsWithin(onDisk, wiki.repository.rootPath);
    const { hits, total } = await index.search({ mentions: path, limit });
    const drift = await readDrift(await deps.drift(), index, hits.map((hit) => hit.slug));
    return c.json({
      wiki: wiki.repository.name,
      path: directory && !normalized.isDir ? `${normalized.shape}/` : normalized.shape,
      kind: directory ? "directory" : "file",
      exists,
      total,
      pages: hits.map((hit) => searchPage(index.almanacPath, hit, drift)),
    });
  });
}

/** One drift report per request for the pages it answers with (see src/evidence/freshness.ts). */
function searchPage(almanacPath: string, hit: SearchHit, drift: PagesDrift) {
  return {
    slug: hit.slug,
    title: hit.title,
    summary: hit.summary,
    path: relative(almanacPath, hit.file_path).split("\\").join("/"),
    topics: hit.topics,
    updated_at: isoTime(hit.updated_at * 1000),
    matched_heading: hit.matched_heading,
    // Shown as text in the browser, so without Markdown marks; the CLI and MCP keep them for agents.
    excerpt: hit.excerpt === null ? null : plainText(hit.excerpt),
    freshness: drift.freshness(hit.slug),
  };
}
