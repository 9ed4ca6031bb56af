import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { page, ROOT, writeWiki, type Sandbox } from "../support/cli.js";
import { TOPICS } from "./fixture.js";

/** Debian's chromium; CI installs it with apt-get (see .ci/run). */
export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export const skipReason: string | null = existsSync(CHROMIUM)
  ? null
  : `${CHROMIUM} is not installed: the viewer's browser tests are skipped (CI installs it with apt-get install chromium)`;

/** Screenshots of the key views, kept as test artifacts (gitignored). */
const SHOTS = join(ROOT, "test-results", "viewer");

const VIEWPORT = { width: 1280, height: 800 };

/**
 * A system chromium rather than a Playwright download. Playwright adds `--headless` (the
 * new headless mode since chromium 132) and `--no-sandbox`; both are spelled out because
 * chromium refuses to start its sandbox as root, which is how the tests run in CI.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--headless=new", "--no-sandbox"] });
}

/**
 * A fresh context and page, recording uncaught page errors, any dialog (alert, confirm) and
 * every Content-Security-Policy violation the page reports.
 */
export interface Tab {
  context: BrowserContext;
  page: Page;
  pageErrors: string[];
  dialogs: string[];
}

/** Runs before any script of every document: collects CSP violations on the window. */
const WATCH_CSP = `
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (event) => {
    window.__cspViolations.push(event.violatedDirective + " " + (event.blockedURI || "inline") + " " + (event.sample || ""));
  });
`;

export async function openTab(browser: Browser): Promise<Tab> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript({ content: WATCH_CSP });
  const tab: Tab = { context, page: await context.newPage(), pageErrors: [], dialogs: [] };
  tab.page.on("pageerror", (error) => tab.pageErrors.push(error.message));
  tab.page.on("dialog", (dialog) => {
    tab.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return tab;
}

export async function screenshot(tab: Tab, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await tab.page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

export function cspViolations(tab: Tab): Promise<string[]> {
  return tab.page.evaluate(() => (globalThis as { __cspViolations?: string[] }).__cspViolations ?? []);
}

/**
 * Sets a value on the page's window. A full reload or a navigation to another document
 * loses it, so finding it again later proves the page stayed the same document.
 */
export async function setMarker(tab: Tab, value: string): Promise<void> {
  await tab.page.evaluate((v) => {
    (globalThis as { __viewerTestMarker?: string }).__viewerTestMarker = v;
  }, value);
}

export function readMarker(tab: Tab): Promise<string | null> {
  return tab.page.evaluate(() => (globalThis as { __viewerTestMarker?: string }).__viewerTestMarker ?? null);
}

/** The wiki's name in the viewer: the repository folder's name. */
export const WIKI = "demo";


/**
 * A page that attacks the viewer. Whatever runs of it sets `__pwned` on the window or
 * opens a dialog; the test checks for both.
 */
const HOSTILE = page({
  title: "Hostile page",
  summary: "Tries script injection",
  topics: ["guides"],
  sources: [
    { id: "evil", type: "web", url: "javascript:alert(1)", title: "Evil source" },
    { id: "good", type: "web", url: "https://example.com/good", title: "Good source" },
  ],
  body: [
    "# Hostile page",
    "",
    "<script>window.__pwned = 'script'; alert('script')</script>",
    "",
    "<img src=x onerror=\"window.__pwned = 'img'; alert('img')\">",
    "",
    "A [click me](javascript:window.__pwned='link';alert('link')) link and a [data link](data:text/html,<b>x</b>), cited [@evil] [@good].",
  ].join("\n"),
});

/**
 * A small wiki at `<dir>/demo`: a landing page linking two guides, two concept pages that
 * share the word "eviction" (what the search test looks for), citations, topics with a
 * subtopic, and the hostile page.
 */
export function writeDemoWiki(dir: string, name = WIKI): string {
  const root = join(dir, name);
  writeWiki(
    root,
    {
      "README.md": page({
        title: "Home",
        summary: "The landing page",
        topics: ["concepts"],
        sources: [],
        body: "# Home\n\nStart with the [setup guide](guides/setup.md), then read how [the cache](concepts/cache.md) works.",
      }),
      "guides/setup.md": page({
        title: "Setup guide",
        summary: "How to install the tool",
        topics: ["guides"],
        sources: [
          { id: "app", type: "file", path: "src/app.ts" },
          { id: "docs", type: "web", url: "https://example.com/docs", title: "Install docs" },
        ],
        body: "# Setup guide\n\nInstall it with npm [@docs]. The entry point is the app [@app].\n\n## Next\n\nRead about [the cache](../concepts/cache.md).",
      }),
      "concepts/cache.md": page({
        title: "Cache",
        summary: "How the cache works",
        topics: ["caching"],
        sources: [{ id: "app", type: "file", path: "src/app.ts" }],
        body: "# Cache\n\nThe cache keeps parsed pages in memory; eviction is least recently used [@app].\n\nBack to the [setup guide](../guides/setup.md).",
      }),
      "concepts/queue.md": page({
        title: "Run queue",
        summary: "How background runs wait their turn",
        topics: ["concepts"],
        sources: [],
        body: "# Run queue\n\nRuns wait in a queue in SQLite. Finished runs are kept; there is no eviction.",
      }),
      "hostile.md": HOSTILE,
    },
    TOPICS,
  );
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "app.ts"), "export {};\n");
  return root;
}

/** Registers (and indexes) a wiki the way any read does, so the viewer lists it. */
export function registerWiki(box: Sandbox, root: string): void {
  const result = box.run(["search", "--json"], { cwd: root });
  if (result.code !== 0) throw new Error(`ca search failed in ${root}: ${result.stderr}`);
}
