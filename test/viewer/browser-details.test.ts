import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { page as pageFile, sandbox, writeWiki, type Sandbox } from "../support/cli.js";
import { cspViolations, launchBrowser, openTab, registerWiki, screenshot, skipReason, type Tab } from "./browser-support.js";
import { TOPICS } from "./fixture.js";
import { startViewer, type Viewer } from "./support.js";

if (skipReason) console.warn(skipReason);

/**
 * Issue 18 §4.5: suggestions and the health card are links, a cited file that is gone says
 * so, summaries render inline code, and long paths wrap at their slashes.
 */
const WIKI = "details";
const LONG = "architecture/subsystems/indexing/incremental-refresh-from-stat-data";

/** The little of the DOM the page-side functions use (the tests compile without the DOM's types). */
interface DomNode {
  nodeType: number;
  textContent: string | null;
  childNodes: Iterable<DomNode>;
}
interface BrowserWindow {
  getComputedStyle(node: unknown): { wordBreak: string; overflowWrap: string };
  document: { createRange(): { setStart(node: DomNode, at: number): void; setEnd(node: DomNode, at: number): void; getBoundingClientRect(): { top: number } } };
}

let browser: Browser;
let box: Sandbox | undefined;
let tab: Tab | undefined;

async function details(): Promise<Viewer> {
  box = sandbox();
  const root = join(box.dir, WIKI);
  writeWiki(
    root,
    {
      "README.md": pageFile({ title: "Home", summary: "The landing page", topics: ["concepts"], sources: [], body: "# Home\n\nStart with the [setup guide](guides/setup.md) or [the refresh](architecture/subsystems/indexing/incremental-refresh-from-stat-data.md)." }),
      "guides/setup.md": pageFile({
        title: "Setup guide",
        summary: "Run `ca serve` and set ANTHROPIC_API_KEY first",
        topics: ["guides"],
        sources: [
          { id: "app", type: "file", path: "src/app.ts" },
          { id: "gone", type: "file", path: "src/removed.ts" },
        ],
        body: "# Setup guide\n\nThe app starts here [@app], and once started there [@gone].\n\nBack [home](../README.md).",
      }),
      [`${LONG}.md`]: pageFile({ title: "Incremental refresh", summary: "Stat data decides", topics: ["concepts"], sources: [], body: "# Incremental refresh\n\nBack [home](../../../../README.md)." }),
    },
    TOPICS,
  );
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "app.ts"), "export {};\n");
  registerWiki(box, root);
  return startViewer(box, { cwd: root });
}

async function open(viewer: Viewer, hash: string): Promise<Tab> {
  tab = await openTab(browser);
  await tab.page.goto(`${viewer.url}${hash}`);
  return tab;
}

describe.skipIf(skipReason !== null)("viewer in a browser: links, notices, summaries and paths", () => {
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    const problems = tab ? [...tab.pageErrors, ...(await cspViolations(tab))] : [];
    await tab?.context.close();
    tab = undefined;
    box?.cleanup();
    box = undefined;
    expect(problems).toEqual([]);
  });

  test("an unknown page's suggestions are links that open the suggested page", async () => {
    const viewer = await details();
    const { page } = await open(viewer, `#/w/${WIKI}/page/guides/setpu`);
    const suggestion = page.getByTestId("did-you-mean").getByRole("link", { name: "guides/setup" });
    await suggestion.waitFor();
    expect(await page.getByTestId("error").locator("p").first().textContent()).toBe("page not found: guides/setpu");
    expect(await suggestion.getAttribute("href")).toBe(`#/w/${WIKI}/page/guides/setup`);
    await suggestion.click();
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Setup guide");
  });

  test("the overview's health card links to the health view, which lists the findings it counts", async () => {
    const viewer = await details();
    const { page } = await open(viewer, `#/w/${WIKI}/`);
    const card = page.getByTestId("stat-health");
    await card.waitFor();
    expect(await card.evaluate((node) => node.tagName)).toBe("A");
    const counted = await card.locator(".stat-value").textContent();
    await card.click();
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/w/${WIKI}/health`);
    await page.getByTestId("health").waitFor();
    const dead = page.locator("[data-testid=health-group][data-category=dead_refs]");
    expect(await dead.getByTestId("health-issue").count()).toBe(1);
    expect(await dead.getByRole("link", { name: "guides/setup" }).getAttribute("href")).toBe(`#/w/${WIKI}/page/guides/setup`);
    expect(await page.locator(".deck").textContent()).toContain(counted);
    await screenshot(tab!, "health");
  });

  test("the file view says plainly when a cited file no longer exists, and not when it does", async () => {
    const viewer = await details();
    const { page } = await open(viewer, `#/w/${WIKI}/file/src/removed.ts`);
    await page.getByTestId("file").waitFor();
    expect(await page.getByTestId("file").getAttribute("data-exists")).toBe("false");
    expect(await page.getByTestId("file-missing").textContent()).toContain("This file no longer exists in the repository");
    expect(await page.getByTestId("file-pages").locator(".page-row").count()).toBe(1);
    await page.goto(`${viewer.url}#/w/${WIKI}/file/src/app.ts`);
    await expect.poll(() => page.getByTestId("file").getAttribute("data-exists")).toBe("true");
    expect(await page.getByTestId("file-missing").count()).toBe(0);
  });

  test("summaries render inline code, with no raw backticks, and keep identifiers as written", async () => {
    const viewer = await details();
    const { page } = await open(viewer, `#/w/${WIKI}/page/guides/setup`);
    const summary = page.getByTestId("page-summary");
    await summary.waitFor();
    expect(await summary.textContent()).toBe("Run ca serve and set ANTHROPIC_API_KEY first");
    expect(await summary.locator("code").allTextContents()).toEqual(["ca serve"]);
    await page.goto(`${viewer.url}#/w/${WIKI}/search?q=setup`);
    const row = page.locator(".page-row[data-slug='guides/setup'] .page-row-summary");
    await row.waitFor();
    expect(await row.textContent()).toBe("Run ca serve and set ANTHROPIC_API_KEY first");
    expect(await row.locator("code").allTextContents()).toEqual(["ca serve"]);
  });

  test("once the state directory is deleted under the viewer, a banner says so above every view", async () => {
    const viewer = await details();
    const { page } = await open(viewer, `#/w/${WIKI}/`);
    await page.getByTestId("overview").waitFor();
    expect(await page.getByTestId("uninstalled-banner").count()).toBe(0);
    rmSync(box!.state, { recursive: true, force: true });
    await page.getByTestId("nav-search").click();
    await page.getByTestId("search-query").fill("setup");
    await page.getByTestId("search-query").press("Enter");
    await expect.poll(() => page.getByTestId("uninstalled-banner").textContent()).toContain("state directory was deleted");
    expect(await page.getByTestId("error").textContent()).toContain("Stop it with Ctrl-C");
    await page.getByTestId("nav-jobs").click();
    await expect.poll(() => page.getByTestId("error").textContent()).toContain("state directory was deleted");
    expect(await page.getByTestId("uninstalled-banner").count()).toBe(1);
  });

  test("a search excerpt reads as prose: no citation markers, link targets or code marks, no glued words", async () => {
    const viewer = await details();
    const { page } = await open(viewer, `#/w/${WIKI}/search?q=started`);
    const excerpt = page.locator(".page-row[data-slug='guides/setup'] .match-excerpt");
    await excerpt.waitFor();
    const text = (await excerpt.textContent()) ?? "";
    expect(text).toContain("The app starts here, and once started there.");
    for (const mark of ["[@", "](", "`", "**"]) expect(text, mark).not.toContain(mark);
  });

  test("long paths wrap between names, never inside a folder or file name that fits", async () => {
    const viewer = await details();
    const { page } = await open(viewer, `#/w/${WIKI}/page/${LONG}`);
    const path = page.locator(".view-page .eyebrow .path");
    await path.waitFor();
    expect(await path.textContent()).toBe(`${LONG}.md`);
    // A break opportunity after every slash, and a word breaks only when it alone is too wide.
    expect(await path.locator("wbr").count()).toBe(LONG.split("/").length - 1);
    const style = await path.evaluate((node) => {
      const computed = (globalThis as unknown as BrowserWindow).getComputedStyle(node);
      return { wordBreak: computed.wordBreak, overflowWrap: computed.overflowWrap };
    });
    expect(style).toEqual({ wordBreak: "normal", overflowWrap: "break-word" });
    // Narrow enough that the path must wrap: every line ends between words (after a slash or a hyphen).
    await page.setViewportSize({ width: 420, height: 800 });
    const lines = await path.evaluate((node) => {
      // Each character's line, read from its box: a new line starts where the top moves down.
      const range = (globalThis as unknown as BrowserWindow).document.createRange();
      const out: string[] = [];
      let line = "";
      let top: number | null = null;
      const texts = (n: DomNode): DomNode[] => (n.nodeType === 3 ? [n] : [...n.childNodes].flatMap(texts));
      for (const text of texts(node as unknown as DomNode)) {
        const chars = text.textContent ?? "";
        for (let i = 0; i < chars.length; i++) {
          range.setStart(text, i);
          range.setEnd(text, i + 1);
          const y = Math.round(range.getBoundingClientRect().top);
          if (top !== null && y > top + 2) {
            out.push(line);
            line = "";
          }
          top = y;
          line += chars[i];
        }
      }
      out.push(line);
      return { out };
    });
    expect(lines.out.length, JSON.stringify(lines.out)).toBeGreaterThan(1);
    for (const line of lines.out.slice(0, -1)) expect(/[/-]$/.test(line), JSON.stringify(lines.out)).toBe(true);
    await screenshot(tab!, "long-path");
  });
});
