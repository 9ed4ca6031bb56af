import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { commitAll, page as pageFile, sandbox, type Sandbox } from "../support/cli.js";
import { events, garden, processAlive, readRun, waitForFile, waitForStatus } from "../queue/support.js";
import { cspViolations, launchBrowser, openTab, readMarker, registerWiki, screenshot, setMarker, skipReason, WIKI, writeDemoWiki, type Tab } from "./browser-support.js";
import { startViewer, type Viewer } from "./support.js";

if (skipReason) console.warn(skipReason);

const FINAL_ANSWER = "Wrote the live page.";

let browser: Browser;
let box: Sandbox | undefined;
let tab: Tab | undefined;

/** The demo wiki, committed in a git repository as runs expect (they snapshot and commit with git). */
async function demo(): Promise<string> {
  box = sandbox();
  const root = commitAll(writeDemoWiki(box.dir));
  registerWiki(box, root);
  return root;
}

async function open(viewer: Viewer, hash: string): Promise<Tab> {
  tab = await openTab(browser);
  await tab.page.goto(`${viewer.url}${hash}`);
  return tab;
}

/** FAKE_CLAUDE_WRITE_FILES for one page under almanac/. */
function writes(path: string, title: string): string {
  return JSON.stringify({ [`almanac/${path}`]: pageFile({ title, summary: "Written by the agent", topics: ["concepts"], body: `# ${title}\n\nNew.` }) });
}

/** The sequence numbers of the transcript's steps, in page order. */
function stepSequences(current: Tab): Promise<number[]> {
  return current.page
    .getByTestId("job-step")
    .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-seq"))));
}

describe.skipIf(skipReason !== null)("viewer in a browser: jobs", () => {
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

  test("the jobs view shows a running fake-agent run, and its new steps appear live without a reload", { timeout: 90_000 }, async () => {
    const root = await demo();
    const finished = garden(box!, root, { FAKE_CLAUDE_WRITE_FILES: writes("guides/first-steps.md", "First steps") });
    await waitForStatus(box!, finished.run_id, ["done"]);
    const started = join(box!.dir, "agent.pid");
    // The fake agent writes a page, then waits before its final answer. It is frozen
    // (SIGSTOP) during that wait while the view loads, so the answer and the run's end can
    // only reach the open page through the live stream. (A stopped process still dies by
    // the sandbox's SIGKILL if the test fails.)
    const run = garden(box!, root, {
      FAKE_CLAUDE_STARTED_FILE: started,
      FAKE_CLAUDE_DELAY_MS: "4000",
      FAKE_CLAUDE_WRITE_FILES: writes("concepts/live.md", "Live"),
      FAKE_CLAUDE_RESULT_TEXT: FINAL_ANSWER,
    });
    const agent = Number(await waitForFile(started));
    process.kill(agent, "SIGSTOP");
    await waitForStatus(box!, run.run_id, ["running"]);
    expect(events(box!, run.run_id).some((event) => event.message.includes(FINAL_ANSWER)), "the agent answered before it was frozen").toBe(false);
    const viewer = await startViewer(box!, { cwd: root });

    const current = await open(viewer, `#/w/${WIKI}/jobs`);
    const { page } = current;
    const cards = page.getByTestId("job-card");
    await expect.poll(() => cards.evaluateAll((nodes) => nodes.map((node) => [node.getAttribute("data-run-id"), node.getAttribute("data-status")]))).toEqual([
      [run.run_id, "running"],
      [finished.run_id, "done"],
    ]);
    const filterCounts = await page.locator("[data-testid^='job-filter-'] .count").allTextContents();
    expect(filterCounts).toEqual(["2", "1", "1"]);
    expect(await cards.nth(1).getByTestId("impact-created").textContent()).toBe("+1 created");
    await screenshot(current, "jobs-running");

    await cards.first().click();
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/w/${WIKI}/jobs/${run.run_id}`);
    await expect.poll(() => page.getByTestId("job-live").getAttribute("data-state")).toBe("live");
    expect(await page.getByTestId("job-status").getAttribute("data-status")).toBe("running");
    await setMarker(current, "no reload");
    const before = await stepSequences(current);
    expect(before.length).toBeGreaterThan(0);
    expect(await page.getByTestId("job-steps").textContent()).not.toContain(FINAL_ANSWER);
    await screenshot(current, "job-running");

    process.kill(agent, "SIGCONT");
    await expect.poll(() => page.getByTestId("job-steps").textContent(), { timeout: 30_000 }).toContain(FINAL_ANSWER);
    await expect.poll(() => page.getByTestId("job-status").getAttribute("data-status"), { timeout: 30_000 }).toBe("done");
    await expect.poll(() => page.getByTestId("job-live").getAttribute("data-state")).toBe("ended");
    const after = await stepSequences(current);
    expect(after.length).toBeGreaterThan(before.length);
    const answerStep = page.locator("[data-testid=job-step][data-kind=assistant]").filter({ hasText: FINAL_ANSWER });
    expect(Number(await answerStep.getAttribute("data-seq"))).toBeGreaterThan(Math.max(...before));
    expect(await readMarker(current)).toBe("no reload");
    expect(new URL(page.url()).hash).toBe(`#/w/${WIKI}/jobs/${run.run_id}`);
    expect(await page.getByTestId("job-summary").textContent()).toBe(`Summary${FINAL_ANSWER}`);
    expect(await page.getByTestId("cancel-button").isVisible()).toBe(false);
    await screenshot(current, "job-live");
  });

  test("with no runs the jobs view says so once and names the commands that start runs", { timeout: 60_000 }, async () => {
    const root = await demo();
    const viewer = await startViewer(box!, { cwd: root });
    const { page } = await open(viewer, `#/w/${WIKI}/jobs`);
    await page.getByTestId("empty-state").waitFor();
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text.split("No runs recorded yet.").length - 1, text).toBe(1);
    expect(await page.getByTestId("empty-state").locator("code").allTextContents()).toEqual(["ca init", "ca ingest", "ca garden", "ca sync"]);
    expect(text).not.toContain("ca build");
  });

  test("a run's summary keeps identifiers with underscores as written, on its card and in its view (issue 18)", { timeout: 90_000 }, async () => {
    const root = await demo();
    const summary = "Set ANTHROPIC_API_KEY for run_queue, then `claude auth login`; **done**.";
    const run = garden(box!, root, { FAKE_CLAUDE_WRITE_FILES: writes("guides/keys.md", "Keys"), FAKE_CLAUDE_RESULT_TEXT: summary });
    await waitForStatus(box!, run.run_id, ["done"]);
    const viewer = await startViewer(box!, { cwd: root });
    const { page } = await open(viewer, `#/w/${WIKI}/jobs`);
    const card = page.getByTestId("job-card").first();
    await card.waitFor();
    const shown = "Set ANTHROPIC_API_KEY for run_queue, then claude auth login; done.";
    expect(await card.locator(".job-card-summary").textContent()).toBe(shown);
    expect(await card.locator(".job-card-summary code").allTextContents()).toEqual(["claude auth login"]);
    await card.click();
    await expect.poll(() => page.getByTestId("job-summary").textContent()).toBe(`Summary${shown}`);
  });

  test("cancelling a running run from the UI stops its agent and records it cancelled", { timeout: 90_000 }, async () => {
    const root = await demo();
    const started = join(box!.dir, "agent.pid");
    const run = garden(box!, root, { FAKE_CLAUDE_SCENARIO: "hang", FAKE_CLAUDE_STARTED_FILE: started });
    const agent = Number(await waitForFile(started));
    const executor = (await waitForStatus(box!, run.run_id, ["running"])).executor_pid!;
    const viewer = await startViewer(box!, { cwd: root });

    const current = await open(viewer, `#/w/${WIKI}/jobs/${run.run_id}`);
    const { page } = current;
    await expect.poll(() => page.getByTestId("job-status").getAttribute("data-status")).toBe("running");
    await page.getByTestId("cancel-button").click();
    expect(await page.getByTestId("cancel-button").isVisible()).toBe(false);
    await page.getByTestId("cancel-confirm").waitFor();
    await screenshot(current, "cancel-confirm");
    expect(readRun(box!, run.run_id)?.status).toBe("running");

    await page.getByTestId("cancel-confirm").click();
    await expect.poll(() => page.getByTestId("cancel-result").textContent(), { timeout: 30_000 }).toBe("Run cancelled.");
    await expect.poll(() => page.getByTestId("job-status").getAttribute("data-status")).toBe("cancelled");
    expect(await page.getByTestId("job-status").textContent()).toBe("Cancelled");
    expect(await page.getByTestId("cancel-button").isVisible()).toBe(false);
    expect(readRun(box!, run.run_id)?.status).toBe("cancelled");
    await expect.poll(() => processAlive(agent)).toBe(false);
    await expect.poll(() => processAlive(executor)).toBe(false);
    await expect.poll(() => page.getByTestId("job-live").getAttribute("data-state")).toBe("ended");
    expect(await page.getByTestId("job-step").last().textContent()).toContain("Cancelled");
    await screenshot(current, "job-cancelled");
  });
});
