import { describe, expect, test } from "vitest";
import { sharedSandbox } from "../cli/helpers.js";
import { driftedWiki, STALE_REASON } from "../support/drift.js";
import { fixtureWiki } from "./fixture.js";
import { getJson, startViewer } from "./support.js";

interface Freshness {
  status: string;
  reason: string | null;
  verified_at: string | null;
}

interface StaleList {
  wiki: string;
  head: string | null;
  notice: string | null;
  pages: { slug: string; title: string; path: string; reason: string; verified_at: string }[];
}

describe("viewer API: freshness (a git repository whose code moved under one page)", () => {
  const shared = sharedSandbox((box) => driftedWiki(box.dir));
  const viewer = () => startViewer(shared.box(), { cwd: shared.fixture().root });

  test("GET /api/page/<slug> carries the page's freshness and each drifting source", async () => {
    const v = await viewer();
    const { verified, change } = shared.fixture();
    const stale = await getJson<{ freshness: Freshness & { sources: unknown[] } }>(v, "/api/page/queue/worker");
    expect(stale.status).toBe(200);
    expect(stale.body.freshness).toEqual({
      status: "stale",
      reason: STALE_REASON,
      verified_at: verified,
      sources: [{ id: "claim", path: "src/queue/worker.ts", lines: "10-12", status: "changed", commits: [change], reason: STALE_REASON }],
    });
    const fresh = await getJson<{ freshness: Freshness & { sources: unknown[] } }>(v, "/api/page/queue/ledger");
    expect(fresh.body.freshness).toEqual({ status: "fresh", reason: null, verified_at: verified, sources: [] });
  });

  test("GET /api/search and /api/file give each page its freshness", async () => {
    const v = await viewer();
    const search = await getJson<{ pages: { slug: string; freshness: Freshness }[] }>(v, "/api/search?topic=concepts");
    expect(Object.fromEntries(search.body.pages.map((p) => [p.slug, p.freshness.status]))).toEqual({ README: "fresh", "queue/worker": "stale", "queue/ledger": "fresh" });
    expect(search.body.pages.find((p) => p.slug === "queue/worker")!.freshness.reason).toBe(STALE_REASON);
    const file = await getJson<{ pages: { slug: string; freshness: Freshness }[] }>(v, "/api/file?path=src/queue/worker.ts");
    expect(file.body.pages.map((p) => [p.slug, p.freshness.status])).toEqual([["queue/worker", "stale"]]);
  });

  test("GET /api/overview/stale lists the stale pages with why, at the commit compared", async () => {
    const { verified, change } = shared.fixture();
    const { status, body } = await getJson<StaleList>(await viewer(), "/api/overview/stale");
    expect(status).toBe(200);
    expect(body).toEqual({
      wiki: "repo",
      head: change,
      notice: null,
      pages: [
        {
          slug: "queue/worker",
          title: "Worker",
          summary: "How the worker claims runs",
          path: "queue/worker.md",
          topics: ["concepts"],
          updated_at: expect.any(String) as unknown as string,
          reason: STALE_REASON,
          verified_at: verified,
        },
      ],
    });
  });
});

describe("viewer API: freshness outside git", () => {
  const shared = sharedSandbox((box) => ({ repo: fixtureWiki(box.dir) }));

  test("no page is stale, and the pages still read: unknown is not stale", async () => {
    const v = await startViewer(shared.box(), { cwd: shared.fixture().repo });
    const stale = await getJson<StaleList>(v, "/api/overview/stale");
    expect(stale.status).toBe(200);
    expect(stale.body).toMatchObject({ head: null, pages: [] });
    const page = await getJson<{ freshness: Freshness }>(v, "/api/page/guides/setup");
    expect(page.status).toBe(200);
    expect(["fresh", "unknown"]).toContain(page.body.freshness.status);
  });
});
