import { afterEach, describe, expect, test } from "vitest";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { page } from "../support/cli.js";
import { openWiki, type OpenedWiki } from "../support/wiki-index.js";

const TOPICS = `topics:
  - slug: concepts
    title: Concepts
    parents: []
  - slug: guides
    title: Guides
    parents: []
  - slug: empty
    title: Empty
    parents: []
`;

const doc = (title: string, topics: string[], links: string[] = []) =>
  page({ title, topics, sources: [], body: `# ${title}\n\nText. ${links.map((l) => `[${l}](${l})`).join(" ")}` });

/**
 * hub ← a, b, c (and a self-link); a ← README, hub; b ← README, a; notopic ← a.
 * c and lonely have no inbound links; lonely and notopic have no topics;
 * b has two broken links, c one.
 */
const GRAPH = {
  "README.md": doc("Home", ["concepts"], ["a.md", "b.md"]),
  "a.md": doc("Alpha", ["concepts", "guides"], ["hub.md", "b.md", "notopic.md"]),
  "b.md": doc("Beta", ["concepts"], ["hub.md", "missing.md", "gone.md"]),
  "c.md": doc("Gamma", ["concepts"], ["hub.md", "missing.md"]),
  "hub.md": doc("The hub", ["concepts", "guides"], ["a.md", "hub.md"]),
  "lonely.md": doc("Lonely", []),
  "notopic.md": doc("No topic", []),
};

/** a and b change in the same second, so only millisecond times can order them. */
const BASE = Date.UTC(2024, 0, 1, 12, 0, 0);
const MTIMES: Record<string, number> = {
  "README.md": BASE,
  "lonely.md": BASE + 1_000,
  "notopic.md": BASE + 2_000,
  "c.md": BASE + 5_000,
  "a.md": BASE + 10_100,
  "b.md": BASE + 10_900,
  "hub.md": BASE + 20_000,
};

let wiki: OpenedWiki;
afterEach(() => wiki?.close());

function openGraph(): OpenedWiki {
  const opened = openWiki(GRAPH, TOPICS);
  for (const [rel, ms] of Object.entries(MTIMES)) {
    const at = new Date(ms);
    utimesSync(join(opened.dir, "almanac", rel), at, at);
  }
  return opened;
}

describe("wiki summary", () => {
  test("counts pages and topics and ranks topics by size", async () => {
    wiki = openGraph();
    const summary = await wiki.index.summary();
    expect(summary.pages).toBe(7);
    expect(summary.topics).toBe(3);
    expect(summary.largest_topics).toEqual({
      total: 3,
      omitted: 0,
      items: [
        { slug: "concepts", title: "Concepts", pages: 5 },
        { slug: "guides", title: "Guides", pages: 2 },
        { slug: "empty", title: "Empty", pages: 0 },
      ],
    });
  });

  test("hubs are ranked by inbound links from other pages, with their outbound links", async () => {
    wiki = openGraph();
    const { most_linked_pages: hubs } = await wiki.index.summary();
    expect(hubs.total).toBe(4);
    expect(hubs.items).toEqual([
      { slug: "hub", title: "The hub", inbound_links: 3, outbound_links: 1 },
      { slug: "a", title: "Alpha", inbound_links: 2, outbound_links: 3 },
      { slug: "b", title: "Beta", inbound_links: 2, outbound_links: 3 },
      { slug: "notopic", title: "No topic", inbound_links: 1, outbound_links: 0 },
    ]);
  });

  test("pages without inbound links leave out the root landing page; pages without topics are listed", async () => {
    wiki = openGraph();
    const summary = await wiki.index.summary();
    expect(summary.pages_without_inbound_links).toEqual({
      total: 2,
      omitted: 0,
      items: [
        { slug: "c", title: "Gamma" },
        { slug: "lonely", title: "Lonely" },
      ],
    });
    expect(summary.pages_without_topics.items.map((p) => p.slug)).toEqual(["lonely", "notopic"]);
    expect(summary.pages_without_topics.total).toBe(2);
  });

  test("recently changed pages are ordered by the file's millisecond modification time", async () => {
    wiki = openGraph();
    const { recently_changed } = await wiki.index.summary();
    expect(recently_changed.items.map((p) => p.slug)).toEqual(["hub", "b", "a", "c", "notopic", "lonely", "README"]);
    expect(recently_changed.items[1]).toEqual({ slug: "b", title: "Beta", modified_at: new Date(BASE + 10_900).toISOString() });
    expect(recently_changed.total).toBe(7);
  });

  test("pages with broken links are ranked by how many they have", async () => {
    wiki = openGraph();
    const { pages_with_broken_links } = await wiki.index.summary();
    expect(pages_with_broken_links).toEqual({
      total: 2,
      omitted: 0,
      items: [
        { slug: "b", title: "Beta", broken_links: 2 },
        { slug: "c", title: "Gamma", broken_links: 1 },
      ],
    });
  });

  test("limits cut every list and the totals still count everything", async () => {
    wiki = openGraph();
    const summary = await wiki.index.summary({
      largestTopics: 1,
      mostLinkedPages: 2,
      pagesWithoutInboundLinks: 0,
      pagesWithoutTopics: 1,
      recentlyChanged: 3,
      pagesWithBrokenLinks: 0,
    });
    expect(summary.largest_topics).toMatchObject({ total: 3, omitted: 2, items: [{ slug: "concepts" }] });
    expect(summary.most_linked_pages).toMatchObject({ total: 4, omitted: 2, items: [{ slug: "hub" }, { slug: "a" }] });
    expect(summary.pages_without_inbound_links).toEqual({ total: 2, omitted: 2, items: [] });
    expect(summary.pages_without_topics).toEqual({ total: 2, omitted: 1, items: [{ slug: "lonely", title: "Lonely" }] });
    expect(summary.recently_changed).toMatchObject({ total: 7, omitted: 4 });
    expect(summary.recently_changed.items.map((p) => p.slug)).toEqual(["hub", "b", "a"]);
    expect(summary.pages_with_broken_links).toEqual({ total: 2, omitted: 2, items: [] });
  });

  test("an empty wiki has zero counts and empty lists", async () => {
    wiki = openWiki({}, "topics: []\n");
    const summary = await wiki.index.summary();
    expect(summary.pages).toBe(1);
    expect(summary.most_linked_pages).toEqual({ total: 0, omitted: 0, items: [] });
    expect(summary.pages_without_inbound_links).toEqual({ total: 0, omitted: 0, items: [] });
    expect(summary.pages_with_broken_links).toEqual({ total: 0, omitted: 0, items: [] });
  });
});
