import type { Hono } from "hono";
import { truncationOf, type PageView } from "../../index/views/pages.js";
import { isLandingPath } from "../../wiki/slug.js";
import type { ViewerDeps } from "../deps.js";
import { badRequest } from "../errors.js";
import { pagesBySlug } from "../../index/views/viewer.js";
import { fileRoute, pageRoute } from "../routes.js";
import { selectedWiki, type ViewerEnv } from "../selection.js";
import { freshnessDetail, pageSummary, type PageSummary } from "../shapes.js";
import { readDrift } from "../../evidence/freshness.js";
import { isoTime } from "../../core/time.js";

const PREFIX = "/api/page/";
const LINKABLE_SOURCE = /^(https?:\/\/|mailto:)[^\s"'<>\\]+$/i;

/** `GET /api/page/<slug>`: one page, rendered, with everything around it. */
export function pageRoutes(app: Hono<ViewerEnv>, deps: ViewerDeps): void {
  app.get(`${PREFIX}*`, async (c) => {
    const slug = slugFromUrl(c.req.url);
    const wiki = await selectedWiki(c, deps);
    const { index } = wiki.live;
    const view = await index.show(slug);
    const linked = await index.read((db) => pagesBySlug(db, [view.slug, ...view.page_links_in, ...view.page_links_out]));
    const summaries = (slugs: string[]) => slugs.flatMap((s) => (linked.has(s) ? [pageSummary(linked.get(s)!)] : []));
    const row = linked.get(view.slug)!;
    const { renderPageHtml } = await import("../../wiki/render-html.js");
    const name = wiki.repository.name;
    const rendered = renderPageHtml({
      body: view.body,
      slug: view.slug,
      isLanding: isLandingPath(row.rel_path),
      title: view.title,
      pageHref: (target) => pageRoute(name, target),
      fileHref: (path) => fileRoute(name, path),
      pageExists: (target) => linked.has(target),
    });
    const backlinks = summaries(view.page_links_in);
    const drift = await readDrift(await deps.drift(), index, [view.slug]);
    return c.json({
      wiki: name,
      slug: view.slug,
      path: row.rel_path,
      title: view.title,
      summary: view.summary,
      topics: view.topics,
      html: rendered.html,
      body: view.body,
      // The page file is over 2 MB: html and body come from its first 2 MB, and this says so.
      truncation: truncationOf(view),
      backlinks,
      outgoing: view.page_links_out.map((target) => ({ slug: target, exists: linked.has(target) })),
      files: view.file_refs,
      sources: sourcesOf(view, rendered.citations),
      related: related(view.slug, backlinks, summaries(view.page_links_out)),
      updated_at: isoTime(view.updated_at * 1000),
      // Whether the code it cites changed since it was verified, and each drifting source.
      freshness: freshnessDetail(drift, view.slug),
    });
  });
}

/** The slug after the prefix, percent-decoded (a client may send `a%2Fb` or `a/b`). */
function slugFromUrl(url: string): string {
  const raw = new URL(url).pathname.slice(PREFIX.length);
  let slug: string;
  try {
    slug = decodeURIComponent(raw);
  } catch {
    throw badRequest(`invalid page slug "${raw}": malformed percent-encoding`);
  }
  if (slug.trim() === "") throw badRequest("page slug must not be empty");
  return slug;
}

/** Cited sources first, in citation order, then the rest by id. */
function sourcesOf(view: PageView, citations: string[]) {
  const position = new Map(citations.map((id, i) => [id, i + 1]));
  const sources = view.sources.map((source) => ({
    source_id: source.source_id,
    source_type: source.source_type,
    target: source.target,
    title: source.title,
    note: source.note,
    retrieved_at: source.retrieved_at,
    lines: source.lines,
    citation_number: position.get(source.source_id) ?? null,
    // Only a web source's own address becomes a link, and only to the web or mail.
    href: source.source_type === "web" && source.target !== null && LINKABLE_SOURCE.test(source.target) ? source.target : null,
  }));
  return sources.sort((a, b) => {
    if (a.citation_number !== null && b.citation_number !== null) return a.citation_number - b.citation_number;
    if (a.citation_number !== null || b.citation_number !== null) return a.citation_number === null ? 1 : -1;
    return a.source_id < b.source_id ? -1 : a.source_id > b.source_id ? 1 : 0;
  });
}

function related(self: string, backlinks: PageSummary[], outgoing: PageSummary[]): PageSummary[] {
  const seen = new Set([self]);
  return [...backlinks, ...outgoing].filter((page) => !seen.has(page.slug) && seen.add(page.slug));
}
