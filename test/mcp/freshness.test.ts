import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";
import { driftedWiki, STALE_REASON, type DriftedWiki } from "../support/drift.js";
import { dataOf, startMcp, textOf } from "./support.js";

let box: Sandbox;
let wiki: DriftedWiki;

beforeEach(() => {
  box = sandbox();
  wiki = driftedWiki(box.dir);
});
afterEach(() => box.cleanup());

interface Freshness {
  status: string;
  reason: string | null;
  verified_at: string | null;
}

const CHECK = "Check that code before relying on this page.";

describe("ca mcp: the freshness of pages (a git repository whose code moved under one page)", () => {
  test("read_page carries the page's freshness, and its text says to check the code of a stale page", async () => {
    const mcp = await startMcp(box, { cwd: wiki.root });
    const stale = await mcp.call("read_page", { slug: "queue/worker" });
    expect(dataOf<{ freshness: Freshness }>(stale).freshness).toEqual({ status: "stale", reason: STALE_REASON, verified_at: wiki.verified });
    expect(textOf(stale)).toContain(`\nstale: ${STALE_REASON}. ${CHECK}`);
    // Every part carries it: an agent reading only the lead is told too.
    expect(dataOf<{ freshness: Freshness }>(await mcp.call("read_page", { slug: "queue/worker", part: "lead" })).freshness.status).toBe("stale");
    const fresh = await mcp.call("read_page", { slug: "queue/ledger" });
    expect(dataOf<{ freshness: Freshness }>(fresh).freshness).toEqual({ status: "fresh", reason: null, verified_at: wiki.verified });
    expect(textOf(fresh)).not.toContain("stale");
  });

  test("search gives each result its freshness, and marks the stale one in its text", async () => {
    const mcp = await startMcp(box, { cwd: wiki.root });
    const result = await mcp.call("search", {});
    const pages = dataOf<{ pages: { slug: string; freshness: Freshness }[] }>(result).pages;
    expect(Object.fromEntries(pages.map((p) => [p.slug, p.freshness.status]))).toEqual({ README: "fresh", "queue/worker": "stale", "queue/ledger": "fresh" });
    expect(pages.find((p) => p.slug === "queue/worker")!.freshness.reason).toBe(STALE_REASON);
    const text = textOf(result);
    expect(text).toContain(`queue/worker — Worker: How the worker claims runs\n   stale: ${STALE_REASON}. ${CHECK}`);
    expect(text.match(/stale:/g)).toHaveLength(1);
  });

  test("the descriptions of read_page and search tell the model to check the code of a stale page", async () => {
    const { client } = await startMcp(box, { cwd: wiki.root });
    const { tools } = await client.listTools();
    for (const name of ["read_page", "search"]) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.description).toMatch(/stale.*check that code before relying on/i);
      expect(JSON.stringify(tool.outputSchema)).toContain("freshness");
    }
  });

  test("wiki_health counts the stale page, with its reason", async () => {
    const mcp = await startMcp(box, { cwd: wiki.root });
    const result = await mcp.call("wiki_health");
    const data = dataOf<{ findings: { kind: string; count: number; examples: string[] }[] }>(result);
    expect(data.findings.find((f) => f.kind === "stale_pages")).toMatchObject({ count: 1, examples: [`queue/worker: ${STALE_REASON}`] });
    expect(textOf(result)).toContain(`stale_pages (1, pages whose cited code changed since they were verified):\n- queue/worker: ${STALE_REASON}`);
  });
});
