import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import type { Browser } from "playwright-core";
import { sandbox, type Sandbox } from "../support/cli.js";
import { driftedWiki, STALE_REASON, type DriftedWiki } from "../support/drift.js";
import { cspViolations, launchBrowser, openTab, registerWiki, screenshot, skipReason, type Tab } from "./browser-support.js";
import { startViewer, type Viewer } from "./support.js";

if (skipReason) console.warn(skipReason);

const WIKI = "drifted";

let browser: Browser;
let box: Sandbox | undefined;
let tabs: Tab[] = [];

/** A viewer of a git repository whose code moved under one page (`queue/worker`). */
async function drifted(): Promise<{ viewer: Viewer; wiki: DriftedWiki }> {
  box = sandbox();
  const wiki = driftedWiki(box.dir, WIKI);
  registerWiki(box, wiki.root);
  return { viewer: await startViewer(box, { cwd: wiki.root }), wiki };
}

async function open(url: string): Promise<Tab> {
  const tab = await openTab(browser);
  tabs.push(tab);
  await tab.page.goto(url);
  return tab;
}

describe.skipIf(skipReason !== null)("viewer in a browser: stale pages", () => {
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
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

  test("the overview lists the stale page with why, and it leads to the page", async () => {
    const { viewer } = await drifted();
    const tab = await open(viewer.url);
    const { page } = tab;
    const list = page.getByTestId("stale-list");
    await expect.poll(() => list.locator(".page-row-title").allTextContents()).toEqual(["Worker"]);
    expect(await list.locator(".page-row-summary").textContent()).toBe(STALE_REASON);
    await screenshot(tab, "overview-stale");
    await list.getByRole("link", { name: "Worker" }).click();
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Worker");
  });

  test("a stale page shows its badge, and its side panel each drifting source with the commit", async () => {
    const { viewer, wiki } = await drifted();
    const tab = await open(`${viewer.url}#/w/${WIKI}/page/queue/worker`);
    const { page } = tab;
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Worker");
    const badge = page.locator(".facts").getByTestId("stale-badge");
    expect(await badge.isVisible()).toBe(true);
    expect(await badge.textContent()).toBe("Stale");
    expect(await badge.getAttribute("title")).toBe(STALE_REASON);
    const panel = page.getByTestId("freshness");
    expect(await panel.getAttribute("data-status")).toBe("stale");
    const source = panel.getByTestId("drift-source");
    expect(await source.count()).toBe(1);
    expect(await source.locator("a.path").textContent()).toBe("src/queue/worker.ts:10-12");
    expect(await source.locator(".drift-status").textContent()).toBe("changed");
    expect(await source.locator(".source-detail").textContent()).toBe(STALE_REASON);
    expect(await source.locator(".drift-commits").textContent()).toBe(wiki.change.slice(0, 10));
    await screenshot(tab, "page-stale");

    await page.goto(`${viewer.url}#/w/${WIKI}/page/queue/ledger`);
    await expect.poll(() => page.getByTestId("page-title").textContent()).toBe("Ledger");
    expect(await page.getByTestId("freshness").getAttribute("data-status")).toBe("fresh");
    expect(await page.getByTestId("stale-badge").count()).toBe(0);
  });

  test("search results badge the stale page only", async () => {
    const { viewer } = await drifted();
    const tab = await open(`${viewer.url}#/w/${WIKI}/search?q=worker`);
    const { page } = tab;
    const results = page.getByTestId("search-results");
    await expect.poll(() => results.locator(".page-row-title").allTextContents()).toContain("Worker");
    const row = (title: string) => results.locator(".page-row", { has: page.locator(".page-row-title", { hasText: title }) });
    expect(await row("Worker").getByTestId("stale-badge").isVisible()).toBe(true);
    expect(await results.getByTestId("stale-badge").count()).toBe(1);
  });
});
