import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { Browser } from "playwright-core";
import { page as pageFile, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { cspViolations, launchBrowser, openTab, readMarker, registerWiki, screenshot, setMarker, skipReason, WIKI, writeDemoWiki, type Tab } from "./browser-support.js";
import { getJson, startViewer, type Viewer } from "./support.js";

if (skipReason) console.warn(skipReason);

let browser: Browser;
let box: Sandbox | undefined;
let tabs: Tab[] = [];

/** A sandbox with the demo wiki and a viewer started from inside it. */
async function demo(): Promise<{ viewer: Viewer; root: string }> {
  box = sandbox();
  const root = writeDemoWiki(box.dir);
  registerWiki(box, root);
  return { viewer: await startViewer(box, { cwd: root }), root };
}

/** A fresh browser context at `url`. */
async function open(url: string): Promise<Tab> {
  const tab = await openTab(browser);
  tabs.push(tab);
  await tab.page.goto(url);
  return tab;
}

interface GraphNode {
  data(name: string): string;
  renderedPosition(): { x: number; y: number };
  renderedBoundingBox(options: { includeLabels: boolean }): { x1: number; x2: number; y1: number; y2: number };
}

/**
 * A page node no other node or label covers (the force layout is random), with its centre
 * relative to the graph's container, read from the library's instance on that container.
 */
async function clickablePage(tab: Tab): Promise<{ slug: string; label: string; x: number; y: number }> {
  const found = await tab.page.getByTestId("graph").evaluate((container) => {
    const cy = (container as unknown as { _cyreg: { cy: { nodes(): GraphNode[] } } })._cyreg.cy;
    const nodes = [...cy.nodes()];
    const covers = (other: GraphNode, point: { x: number; y: number }) => {
      const box = other.renderedBoundingBox({ includeLabels: true });
      return point.x >= box.x1 && point.x <= box.x2 && point.y >= box.y1 && point.y <= box.y2;
    };
    for (const node of nodes) {
      if (node.data("kind") !== "page") continue;
      const at = node.renderedPosition();
      if (!nodes.some((other) => other !== node && covers(other, at))) return { slug: node.data("slug"), label: node.data("label"), x: at.x, y: at.y };
    }
    return null;
  });
  if (!found) throw new Error("every page node of the graph is covered by another node");
  return found;
}

describe.skipIf(skipReason !== null)("viewer in a browser: reading the wiki", () => {
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    // A script error or a CSP violation anywhere in the client fails the test that caused it.
    const problems: string[] = [];
    for (const tab of tabs) {
      problems.push(...tab.pageErrors, ...(await cspViolations(tab)));
      await tab.context.close();
    }
    tabs = [];
    box?.cleanup();
    box = undefined;
    expect(problems).toEqual([]);
  });

  test("the overview shows the wiki's title, page and topic counts, recent pages and the pages tree", async () => {
    const { viewer, root } = await demo();
    const tab = await open(viewer.url);
    const { page } = tab;
    await expect.poll(() => page.url()).toBe(`${viewer.url}#/w/${WIKI}/`);
    const overview = page.getByTestId("overview");
    await expect.poll(() => overview.locator("h1").textContent()).toBe("Home");
    expect(await overview.locator(".deck").textContent()).toBe("5 pages across 3 topics.");
    expect(await overview.locator(".stat-value").allTextContents()).toEqual(["5", "3", WIKI, "No problems"]);
    expect(await overview.getByTestId("stat-current-wiki").locator(".stat-hint").textContent()).toBe(root);
    expect(await page.title()).toBe(`${WIKI} | CodeAlmanac`);
    expect((await page.getByTestId("recent-pages").locator(".page-row-title").allTextContents()).sort()).toEqual(["Cache", "Home", "Hostile page", "Run queue", "Setup guide"]);
    expect(await page.getByTestId("wiki-switcher").inputValue()).toBe(WIKI);

    const tree = page.getByTestId("pages-tree");
    await expect.poll(() => tree.locator(":scope > li > a.tree-page").allTextContents()).toEqual(["Home", "Hostile page"]);
    expect(await tree.locator(":scope > li > details > summary").allTextContents()).toEqual(["Concepts", "Guides"]);
    await tree.locator("summary", { hasText: "Concepts" }).click();
    await expect.poll(() => tree.locator("details[data-path='concepts'] a.tree-page").allTextContents()).toEqual(["Cache", "Run queue"]);
    expect(await page.getByTestId("topics-list").locator("a > span:first-child").allTextContents()).toEqual(["Caching", "Concepts", "Guides"]);
    await screenshot(tab, "overview");
  });

  test("following links: overview → Home → Setup guide, with rendered body, citations and backlinks", async () => {
    const { viewer } = await demo();
    const tab = await open(viewer.url);
    const { page } = tab;
    await page.getByTestId("overview").locator("a.featured-title").click();
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Home");
    expect(new URL(page.url()).hash).toBe(`#/w/${WIKI}/page/README`);
    await setMarker(tab, "same document");

    await page.getByTestId("page-body").getByRole("link", { name: "setup guide" }).click();
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Setup guide");
    expect(new URL(page.url()).hash).toBe(`#/w/${WIKI}/page/guides/setup`);
    expect(await readMarker(tab)).toBe("same document");
    expect(await page.title()).toBe("Setup guide | CodeAlmanac");

    const body = page.getByTestId("page-body");
    expect(await body.locator("h1, h2").allTextContents()).toEqual(["Next"]);
    expect(await body.getByRole("link", { name: "the cache" }).getAttribute("href")).toBe(`#/w/${WIKI}/page/concepts/cache`);
    expect(await body.locator("a.wiki-citation").allTextContents()).toEqual(["[1]", "[2]"]);
    expect(await page.getByTestId("backlinks").locator("a").allTextContents()).toEqual(["Home", "Cache"]);
    expect(await page.getByTestId("sources").locator(".source-title").allTextContents()).toEqual(["Install docs", "App"]);
    expect(await page.getByTestId("sources").getByRole("link", { name: "Install docs" }).getAttribute("href")).toBe("https://example.com/docs");
    expect(await page.getByTestId("files").locator("a").allTextContents()).toEqual(["src/app.ts"]);
    expect(await page.getByTestId("pages-tree").locator("a.is-current").textContent()).toBe("Setup guide");
    await screenshot(tab, "page");

    // A citation scrolls to its source instead of changing the route.
    await body.locator("a.wiki-citation", { hasText: "[1]" }).click();
    await expect.poll(() => page.locator("#source-docs").getAttribute("class")).toContain("flash");
    expect(new URL(page.url()).hash).toBe(`#/w/${WIKI}/page/guides/setup`);

    // A backlink leads back, still without a reload.
    await page.getByTestId("backlinks").getByRole("link", { name: "Cache" }).click();
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Cache");
    expect(new URL(page.url()).hash).toBe(`#/w/${WIKI}/page/concepts/cache`);
    expect(await readMarker(tab)).toBe("same document");
  });

  test("a search from the header box lists the matches, keeps the query in the URL, and a reload restores it", async () => {
    const { viewer } = await demo();
    const tab = await open(viewer.url);
    const { page } = tab;
    await page.getByTestId("overview").waitFor();
    await page.getByTestId("search-input").fill("eviction");
    await page.getByTestId("search-input").press("Enter");
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/w/${WIKI}/search?q=eviction`);
    const results = page.getByTestId("search-results");
    await expect.poll(() => results.getByTestId("result-count").textContent()).toBe("2 results");
    const titles = () => results.locator(".page-row-title").allTextContents();
    expect((await titles()).sort()).toEqual(["Cache", "Run queue"]);
    expect(await page.getByTestId("search-query").inputValue()).toBe("eviction");
    expect(await page.title()).toBe("Search: eviction | CodeAlmanac");
    // Excerpts read as text: the page's citation and link syntax are not shown.
    const cacheExcerpt = await results.locator(".page-row", { hasText: "Cache" }).locator(".match-excerpt").textContent();
    expect(cacheExcerpt).toContain("eviction is least recently used.");
    expect(cacheExcerpt).not.toMatch(/\[@|\]\(/);
    await screenshot(tab, "search");

    await page.reload();
    await expect.poll(() => results.getByTestId("result-count").textContent()).toBe("2 results");
    expect((await titles()).sort()).toEqual(["Cache", "Run queue"]);
    expect(await page.getByTestId("search-query").inputValue()).toBe("eviction");
    expect(await page.getByTestId("search-input").inputValue()).toBe("eviction");

    await results.getByRole("link", { name: "Run queue" }).click();
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Run queue");
    expect(new URL(page.url()).hash).toBe(`#/w/${WIKI}/page/concepts/queue`);
  });

  test("a hostile page: no javascript: href anywhere, no script runs, raw HTML shows as text", async () => {
    const { viewer } = await demo();
    const tab = await open(`${viewer.url}#/w/${WIKI}/page/hostile`);
    const { page } = tab;
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Hostile page");
    const body = page.getByTestId("page-body");
    const text = await body.textContent();
    expect(text).toContain("<script>window.__pwned = 'script'; alert('script')</script>");
    expect(text).toContain(`<img src=x onerror="window.__pwned = 'img'; alert('img')">`);
    expect(await body.locator("script, img, iframe, object, embed").count()).toBe(0);
    expect(await page.getByTestId("sources").locator(".source-title").allTextContents()).toEqual(["Evil source", "Good source"]);
    expect(await page.getByTestId("sources").locator("a.source-title").allTextContents()).toEqual(["Good source"]);

    const urlsIn = (scope: string) =>
      page.locator(scope).locator("[href], [src], [action], [formaction]").evaluateAll((nodes) =>
        nodes.flatMap((node) => ["href", "src", "action", "formaction"].map((name) => node.getAttribute(name)).filter((value) => value !== null)),
      );
    const everywhere = await urlsIn("html");
    expect(everywhere.length).toBeGreaterThan(10);
    expect(everywhere.filter((value) => /^\s*(javascript|vbscript):/i.test(value))).toEqual([]);
    // The shell's own `data:,` favicon aside, no data: URL either.
    expect((await urlsIn("main")).filter((value) => /^\s*data:/i.test(value))).toEqual([]);
    const handlers = await page.locator("*").evaluateAll((nodes) => nodes.flatMap((node) => [...node.attributes].map((a) => a.name).filter((name) => name.startsWith("on"))));
    expect(handlers).toEqual([]);

    // The script link is text: clicking it goes nowhere and runs nothing.
    await body.getByText("click me").click();
    expect(new URL(page.url()).hash).toBe(`#/w/${WIKI}/page/hostile`);
    expect(await page.evaluate(() => (globalThis as { __pwned?: string }).__pwned ?? null)).toBeNull();
    expect(tab.dialogs).toEqual([]);
    await screenshot(tab, "hostile");
  });

  test("the graph draws the landing page's neighbourhood, and clicking a node opens its page", async () => {
    const { viewer } = await demo();
    const graph = (await getJson<{ nodes: unknown[] }>(viewer, `/api/graph?wiki=${WIKI}`)).body;
    expect(graph.nodes.length).toBe(8);
    const tab = await open(`${viewer.url}#/w/${WIKI}/graph`);
    const { page } = tab;
    const canvas = page.getByTestId("graph");
    // Home links to the setup guide and the cache page; nothing else links to it or from it.
    await expect.poll(() => canvas.getAttribute("data-node-count")).toBe("3");
    expect(await canvas.getAttribute("data-focus")).toBe("README");
    expect(Number(await canvas.getAttribute("data-edge-count"))).toBeGreaterThan(0);
    await screenshot(tab, "graph");
    const target = await clickablePage(tab);
    const frame = (await canvas.boundingBox())!;
    await page.mouse.click(frame.x + target.x, frame.y + target.y);
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe(target.label);
    expect(new URL(page.url()).hash).toBe(`#/w/${WIKI}/page/${target.slug}`);
  });

  test("the wiki lives in the URL: a link copied from one wiki's page opens that page in a fresh browser", async () => {
    const { viewer, root } = await demo();
    const notes = writeWiki(`${root}-notes`, { "ideas/plan.md": pageFile({ title: "Plan", summary: "What comes next", topics: ["concepts"], body: "# Plan\n\nShip the viewer." }) });
    registerWiki(box!, notes);
    const first = await open(viewer.url);
    await first.page.getByTestId("overview").waitFor();
    await first.page.getByTestId("wiki-switcher").selectOption("demo-notes");
    await expect.poll(() => new URL(first.page.url()).hash).toBe("#/w/demo-notes/");
    await first.page.getByTestId("pages-tree").locator("summary", { hasText: "Ideas" }).click();
    await first.page.getByTestId("pages-tree").getByRole("link", { name: "Plan" }).click();
    await expect.poll(() => first.page.getByTestId("page-title").textContent()).toBe("Plan");
    const shared = first.page.url();
    expect(new URL(shared).hash).toBe("#/w/demo-notes/page/ideas/plan");

    const second = await open(shared);
    await expect.poll(() => second.page.getByTestId("page-title").textContent()).toBe("Plan");
    expect(await second.page.getByTestId("page-body").textContent()).toContain("Ship the viewer.");
    expect(await second.page.getByTestId("wiki-switcher").inputValue()).toBe("demo-notes");
    await expect.poll(() => second.page.getByTestId("pages-tree").locator("a.is-current").textContent()).toBe("Plan");
    expect(await second.page.title()).toBe("Plan | CodeAlmanac");
    await screenshot(second, "shared-link");

    // A link to a wiki this machine does not have says so.
    const stranger = await open(`${viewer.url}#/w/ghost/page/ideas/plan`);
    await expect.poll(() => stranger.page.getByTestId("error").locator("p").textContent()).toBe("repository not found: ghost");
    expect(await stranger.page.getByTestId("error").locator("h2").textContent()).toBe("Viewer error");
  });

  test("with no wikis at all, the viewer shows a friendly empty state", async () => {
    box = sandbox();
    const viewer = await startViewer(box);
    const tab = await open(viewer.url);
    const empty = tab.page.getByTestId("empty-state");
    await expect.poll(() => empty.locator("h2").textContent()).toBe("No wikis yet — run ca init in a repository");
    expect(await empty.locator("code").textContent()).toBe("ca init");
    expect(await tab.page.getByTestId("error").count()).toBe(0);
    expect(await tab.page.getByTestId("wiki-switcher").locator("option").allTextContents()).toEqual(["No wikis"]);
    expect(await tab.page.getByTestId("wiki-switcher").isDisabled()).toBe(true);
    // The rail's sections say they are empty rather than showing bare headings.
    expect(await tab.page.getByTestId("pages-tree").locator("li").allTextContents()).toEqual(["No pages yet"]);
    expect(await tab.page.getByTestId("topics-list").locator("li").allTextContents()).toEqual(["No topics"]);
    await screenshot(tab, "no-wikis");
  });
});
