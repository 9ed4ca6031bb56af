import { describe, expect, test } from "vitest";
import { sharedSandbox } from "../cli/helpers.js";
import { fixtureWiki } from "./fixture.js";
import { getJson, startViewer, type PageSummary, type Viewer } from "./support.js";

interface Overview {
  wiki: { repository_id: string; name: string; root_path: string };
  page_count: number;
  topic_count: number;
  pages: PageSummary[];
  navigation: PageSummary[];
  topics: { slug: string; title: string; page_count: number; parents: string[]; children: string[] }[];
  featured: PageSummary | null;
  health: { errors: number; warnings: number };
}

interface PageReply {
  wiki: string;
  slug: string;
  path: string;
  title: string;
  topics: string[];
  html: string;
  body: string;
  backlinks: PageSummary[];
  outgoing: { slug: string; exists: boolean }[];
  files: { path: string; is_dir: boolean }[];
  sources: { source_id: string; source_type: string; target: string | null; citation_number: number | null; href: string | null; title: string | null }[];
  related: PageSummary[];
  updated_at: string;
}

interface Listing {
  wiki: string;
  total: number;
  pages: PageSummary[];
  query?: string | null;
  path?: string;
  kind?: string;
}

describe("viewer API: the wiki", () => {
  const shared = sharedSandbox((box) => ({ repo: fixtureWiki(box.dir) }));
  const viewer = (): Promise<Viewer> => startViewer(shared.box(), { cwd: shared.fixture().repo });

  test("GET /api/wikis lists the registered wiki and selects it from the start directory", async () => {
    const v = await viewer();
    const { status, body, headers } = await getJson<{ wikis: unknown[]; selected: string }>(v, "/api/wikis");
    expect(status).toBe(200);
    expect(headers.get("content-type")).toBe("application/json");
    expect(headers.get("cache-control")).toBe("no-store");
    expect(body).toEqual({ wikis: [{ name: "repo", root_path: shared.fixture().repo, status: "available" }], selected: "repo" });
  });

  test("GET /api/overview: counts, the 30 newest pages, navigation by path, topics, README featured, health", async () => {
    const { status, body } = await getJson<Overview>(await viewer(), "/api/overview");
    expect(status).toBe(200);
    expect(body.wiki).toMatchObject({ name: "repo", root_path: shared.fixture().repo });
    expect(body.wiki.repository_id).toMatch(/^repo_/);
    expect(body.page_count).toBe(4);
    expect(body.topic_count).toBe(3);
    expect(body.pages.map((p) => p.slug)).toEqual(["guides/setup", "concepts/cache", "hostile", "README"]);
    expect(body.navigation.map((p) => p.path)).toEqual(["README.md", "concepts/cache.md", "guides/setup.md", "hostile.md"]);
    expect(body.pages[0]).toEqual({
      slug: "guides/setup",
      title: "Setup guide",
      summary: "How to install",
      path: "guides/setup.md",
      topics: ["guides"],
      updated_at: "2023-11-14T22:18:20Z",
    });
    expect(body.topics.map((t) => [t.slug, t.page_count])).toEqual([["caching", 1], ["concepts", 1], ["guides", 2]]);
    expect(body.topics.find((t) => t.slug === "caching")?.parents).toEqual(["concepts"]);
    expect(body.featured?.slug).toBe("README");
    // The link to ../nowhere.md is a broken link (an error); the unused `src/` source a warning.
    expect(body.health.errors).toBeGreaterThanOrEqual(1);
    expect(body.health.warnings).toBeGreaterThanOrEqual(1);
  });

  test("GET /api/page/<slug>: rendered HTML with numbered citations and page links to the viewer's routes", async () => {
    const { status, body } = await getJson<PageReply>(await viewer(), "/api/page/guides/setup");
    expect(status).toBe(200);
    expect(body).toMatchObject({ wiki: "repo", slug: "guides/setup", path: "guides/setup.md", title: "Setup guide", topics: ["guides"] });
    // The H1 repeating the title is left to the page header.
    expect(body.html).not.toContain("<h1>");
    expect(body.html).toContain('Install it <a href="#source-docs" class="wiki-citation" data-source-id="docs">[1]</a>.');
    expect(body.html).toContain('The entry point <a href="#source-app" class="wiki-citation" data-source-id="app">[2]</a> and again <a href="#source-docs" class="wiki-citation" data-source-id="docs">[1]</a>.');
    expect(body.html).toContain('<a href="#/w/repo/page/concepts/cache" class="wiki-link">the cache</a>');
    expect(body.html).toContain('<a href="#/w/repo/page/nowhere" class="wiki-link wiki-link-missing">a missing page</a>');
    expect(body.html).toContain("<code>[@app]</code>");
    expect(body.body.startsWith("# Setup guide")).toBe(true);
    expect(body.sources.map((s) => [s.source_id, s.citation_number, s.href])).toEqual([
      ["docs", 1, "https://example.com/docs"],
      ["app", 2, null],
      ["unused", null, null],
    ]);
    expect(body.outgoing).toEqual([
      { slug: "concepts/cache", exists: true },
      { slug: "nowhere", exists: false },
    ]);
    expect(body.files).toEqual([
      { path: "src/", is_dir: true },
      { path: "src/app.ts", is_dir: false },
    ]);
    expect(body.backlinks.map((p) => p.slug)).toEqual(["README", "concepts/cache"]);
    expect(body.related.map((p) => p.slug)).toEqual(["README", "concepts/cache"]);
    expect(body.updated_at).toBe("2023-11-14T22:18:20Z");
  });

  test("a percent-encoded slug and the usual slips (.md, case) find the page", async () => {
    const v = await viewer();
    expect((await getJson<PageReply>(v, "/api/page/guides%2Fsetup")).body.slug).toBe("guides/setup");
    expect((await getJson<PageReply>(v, "/api/page/guides/setup.md")).body.slug).toBe("guides/setup");
    expect((await getJson<PageReply>(v, "/api/page/Guides/Setup")).body.slug).toBe("guides/setup");
  });

  test("a hostile page: raw HTML is escaped, script URLs are never links, a script source has no href", async () => {
    const { status, body } = await getJson<PageReply>(await viewer(), "/api/page/hostile");
    expect(status).toBe(200);
    expect(body.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(body.html).toContain("&lt;img src=x onerror=alert(3)&gt;");
    expect(body.html).not.toMatch(/<script|<img/i);
    expect(body.html).not.toMatch(/href="(javascript|vbscript|data):/i);
    expect(body.html).toContain("[click me](javascript:alert(4))");
    // Every link left is to the web, mail, or the viewer's own routes and citations.
    const hrefs = [...body.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!);
    expect(hrefs.filter((href) => !/^(https?:\/\/|mailto:|#\/w\/repo\/|#source-)/.test(href))).toEqual([]);
    expect(hrefs).toContain("https://example.com/ok");
    expect(body.sources.map((s) => [s.source_id, s.target, s.href])).toEqual([
      ["evil", "javascript:alert(2)", null],
      ["good", "https://example.com/good", "https://example.com/good"],
    ]);
  });

  test("an unknown page is a 404 with its suggestions as slugs the client links; an empty slug is a 422", async () => {
    const v = await viewer();
    const missing = await getJson(v, "/api/page/guides/setpu");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: "not_found", message: "page not found: guides/setpu", suggestions: ["guides/setup"] } });
    const empty = await getJson(v, "/api/page/%20");
    expect(empty.status).toBe(422);
    expect(empty.body.error.code).toBe("validation_failed");
  });

  test("GET /api/search: ranked text search with excerpts, total and limit", async () => {
    const v = await viewer();
    const { status, body } = await getJson<Listing>(v, "/api/search?q=cache");
    expect(status).toBe(200);
    expect(body.query).toBe("cache");
    expect(body.pages[0]).toMatchObject({ slug: "concepts/cache", path: "concepts/cache.md", title: "Cache" });
    expect(body.pages[0]!.excerpt).toContain("cache");
    const limited = await getJson<Listing>(v, "/api/search?q=setup&limit=1");
    expect(limited.body.pages).toHaveLength(1);
    expect(limited.body.total).toBe(3);
    const all = await getJson<Listing>(v, "/api/search");
    expect(all.body).toMatchObject({ query: null, total: 4 });
  });

  test("GET /api/search filters by topic (with narrower topics) and by mentioned file", async () => {
    const v = await viewer();
    const concepts = await getJson<Listing>(v, "/api/search?topic=concepts");
    expect(concepts.body.pages.map((p) => p.slug).sort()).toEqual(["README", "concepts/cache"]);
    const both = await getJson<Listing>(v, "/api/search?topic=concepts&topic=caching");
    expect(both.body.pages.map((p) => p.slug)).toEqual(["concepts/cache"]);
    const mentions = await getJson<Listing>(v, "/api/search?mentions=src/app.ts");
    expect(mentions.body.pages.map((p) => p.slug).sort()).toEqual(["concepts/cache", "guides/setup"]);
    const combined = await getJson<Listing>(v, "/api/search?q=install&mentions=src/app.ts&topic=guides");
    expect(combined.body.pages.map((p) => p.slug)).toEqual(["guides/setup"]);
  });

  test.each([
    ["/api/search?limit=-1", 'invalid limit "-1": it must be an integer from 0 to 1000'],
    ["/api/search?limit=abc", 'invalid limit "abc": it must be an integer from 0 to 1000'],
    ["/api/search?limit=1001", 'invalid limit "1001": it must be an integer from 0 to 1000'],
    ["/api/search?mentions=../x", 'invalid path "../x": file path must be repo-relative'],
    ["/api/file?path=../x", 'invalid path "../x": file path must be repo-relative'],
    ["/api/file?path=/etc/passwd", 'invalid path "/etc/passwd": file path must be repo-relative'],
    ["/api/file?path=", 'invalid path "": file path must be repo-relative'],
    ["/api/file", 'invalid path "": file path must be repo-relative'],
    ["/api/topic/concepts?descendants=maybe", 'invalid descendants "maybe": use 1 or 0'],
    ["/api/topic/%21%21", 'topic must contain a letter or digit: "!!"'],
  ])("bad parameters are a 422 naming the value: %s", async (path, message) => {
    const { status, body } = await getJson(await viewer(), path);
    expect(status).toBe(422);
    expect(body).toEqual({ error: { code: "validation_failed", message } });
  });

  test("GET /api/file: the pages citing a file, and a folder recognised as one", async () => {
    const v = await viewer();
    const file = await getJson<Listing>(v, "/api/file?path=src/app.ts");
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ wiki: "repo", path: "src/app.ts", kind: "file", total: 2 });
    expect(file.body.pages.map((p) => p.slug).sort()).toEqual(["concepts/cache", "guides/setup"]);
    const folder = await getJson<Listing>(v, "/api/file?path=src");
    expect(folder.body).toMatchObject({ path: "src/", kind: "directory" });
    expect(folder.body.pages.map((p) => p.slug).sort()).toEqual(["concepts/cache", "guides/setup"]);
  });

  test("GET /api/topic/<slug>: parents, children and pages, with descendants on request", async () => {
    const v = await viewer();
    const direct = await getJson<{ slug: string; title: string; description: string; parents: string[]; children: string[]; pages: PageSummary[] }>(v, "/api/topic/concepts");
    expect(direct.status).toBe(200);
    expect(direct.body).toMatchObject({ wiki: "repo", slug: "concepts", title: "Concepts", description: "Ideas the code is built on", parents: [], children: ["caching"] });
    expect(direct.body.pages.map((p) => p.slug)).toEqual(["README"]);
    const deep = await getJson<{ pages: PageSummary[] }>(v, "/api/topic/concepts?descendants=1");
    expect(deep.body.pages.map((p) => p.slug)).toEqual(["README", "concepts/cache"]);
    const missing = await getJson(v, "/api/topic/nope");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: "not_found", message: "topic not found: nope" } });
  });

  test("GET /api/graph: page and topic nodes; link, topic and parent edges between existing nodes", async () => {
    const { status, body } = await getJson<{ wiki: string; nodes: { id: string; kind: string; label: string; slug: string }[]; edges: { source: string; target: string; kind: string }[] }>(
      await viewer(),
      "/api/graph",
    );
    expect(status).toBe(200);
    expect(body.wiki).toBe("repo");
    expect(body.nodes).toContainEqual({ id: "page:guides/setup", kind: "page", label: "Setup guide", slug: "guides/setup" });
    expect(body.nodes).toContainEqual({ id: "topic:caching", kind: "topic", label: "Caching", slug: "caching" });
    expect(body.nodes).toHaveLength(7);
    expect(body.edges).toContainEqual({ source: "page:guides/setup", target: "page:concepts/cache", kind: "link" });
    expect(body.edges).toContainEqual({ source: "page:concepts/cache", target: "topic:caching", kind: "topic" });
    expect(body.edges).toContainEqual({ source: "topic:caching", target: "topic:concepts", kind: "parent" });
    // The broken link to `nowhere` has no node to end at.
    expect(body.edges.some((e) => e.target === "page:nowhere")).toBe(false);
    const ids = new Set(body.nodes.map((n) => n.id));
    expect(body.edges.every((e) => ids.has(e.source) && ids.has(e.target))).toBe(true);
  });

  test("an unknown API route is a 404 in the error shape; so is a POST to a read", async () => {
    const v = await viewer();
    const unknown = await getJson(v, "/api/nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: "not_found", message: "not found: GET /api/nope" } });
    const post = await fetch(v.origin + "/api/wikis", { method: "POST" });
    expect(post.status).toBe(404);
    expect(await post.json()).toEqual({ error: { code: "not_found", message: "not found: POST /api/wikis" } });
  });

  test("an unknown ?wiki= is a 404 naming it", async () => {
    const { status, body } = await getJson(await viewer(), "/api/overview?wiki=nope");
    expect(status).toBe(404);
    expect(body).toEqual({ error: { code: "not_found", message: "repository not found: nope" } });
  });

  test("the shell and its assets are served; other unknown paths are 404s", async () => {
    const v = await viewer();
    const shell = await fetch(v.origin + "/");
    expect(shell.status).toBe(200);
    expect(shell.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    expect(shell.headers.get("cache-control")).toBe("no-store");
    const route = await fetch(v.origin + "/w/repo/page/guides/setup");
    expect(await route.text()).toBe(await (await fetch(v.origin + "/")).text());
    const script = await fetch(v.origin + "/assets/app.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const etag = script.headers.get("etag")!;
    const again = await fetch(v.origin + "/assets/app.js", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const graphLibrary = await fetch(v.origin + "/assets/vendor/cytoscape.min.js");
    expect(graphLibrary.status).toBe(200);
    const missing = await fetch(v.origin + "/assets/nope.js");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: "not found: /assets/nope.js" } });
  });
});
