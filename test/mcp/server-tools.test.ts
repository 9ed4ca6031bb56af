import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { page, sandbox, type Sandbox } from "../support/cli.js";
import { dataOf, mcpWiki, startMcp, textOf } from "./support.js";

let box: Sandbox;
let root: string;

beforeEach(() => {
  box = sandbox();
  root = mcpWiki(box.dir);
});
afterEach(() => box.cleanup());

interface Hit {
  slug: string;
  title: string | null;
  path: string;
  uri: string;
  topics: string[];
  matched_heading: string | null;
  excerpt: string | null;
}

describe("ca mcp tools", () => {
  test("lists the six reading tools, each with a description, an input schema and an output schema", async () => {
    const { client } = await startMcp(box, { cwd: root });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search", "read_page", "pages_for_file", "topics", "wiki_health", "list_wikis"]);
    for (const tool of tools) {
      expect(tool.description!.length).toBeGreaterThan(80);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
    const search = tools.find((t) => t.name === "search")!;
    expect(search.inputSchema.properties!.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
    expect(search.inputSchema.additionalProperties).toBe(false);
    const read = tools.find((t) => t.name === "read_page")!;
    expect(read.inputSchema.required).toEqual(["slug"]);
    expect(read.inputSchema.properties!.part).toMatchObject({ enum: ["lead", "body", "links", "backlinks", "files", "sources"] });
  });

  test("no schema of any tool carries zod's safe-integer bounds; counts are non-negative integers", async () => {
    const { client } = await startMcp(box, { cwd: root, args: ["--allow-queue"] });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("job_status");
    const integers: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${where}[${i}]`));
      if (node === null || typeof node !== "object") {
        if (typeof node === "number") expect(Math.abs(node), where).toBeLessThan(Number.MAX_SAFE_INTEGER);
        return;
      }
      const schema = node as Record<string, unknown>;
      if (schema.type === "integer") integers.push(`${where} ${JSON.stringify(schema.minimum)}`);
      for (const [key, value] of Object.entries(schema)) walk(value, `${where}.${key}`);
    };
    for (const tool of tools) {
      walk(tool.inputSchema, `${tool.name} input`);
      walk(tool.outputSchema, `${tool.name} output`);
    }
    // Every integer has a lower bound a model can read: 1 for a limit, 0 for a count.
    expect(integers.sort()).toEqual([
      "garden output.properties.runs_ahead 0",
      "ingest output.properties.runs_ahead 0",
      "pages_for_file input.properties.limit 1",
      "pages_for_file output.properties.total 0",
      "search input.properties.limit 1",
      "search output.properties.total 0",
      "topics output.properties.topics.items.properties.page_count 0",
      "wiki_health output.properties.findings.items.properties.count 0",
      "wiki_health output.properties.total 0",
    ]);
  });

  test("search ranks pages and answers with text and structured content", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const result = await mcp.call("search", { query: "worker drains" });
    const data = dataOf<{ wiki: string; query: string; total: number; pages: Hit[] }>(result);
    expect(data.wiki).toBe("repo");
    expect(data.query).toBe("worker drains");
    expect(data.total).toBe(1);
    expect(data.pages).toEqual([
      {
        slug: "architecture/run-queue",
        title: "Run queue",
        summary: "How runs wait for a worker",
        path: "architecture/run-queue.md",
        topics: ["queue"],
        updated_at: "2023-11-14T22:18:20Z",
        uri: "almanac://repo/architecture/run-queue",
        matched_heading: "Run queue › Shutdown",
        excerpt: "The worker drains its run before it stops. See [index refresh](architecture/index-refresh).",
        // Not a git repository: its unstamped file source cannot be judged (test/mcp/freshness.test.ts has git).
        freshness: { status: "unknown", reason: "unstamped, and there is no git history to check it against", verified_at: null },
      },
    ]);
    expect(textOf(result)).toBe(
      [
        'Pages matching "worker drains" in wiki repo: 1. Open one with read_page.',
        "1. architecture/run-queue — Run queue: How runs wait for a worker",
        "   § Run queue › Shutdown: The worker drains its run before it stops. See [index refresh](architecture/index-refresh).",
      ].join("\n"),
    );
  });

  test("search filters by topic (narrower topics included) and by a cited file, and honours the limit", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const slugs = async (args: Record<string, unknown>) => dataOf<{ pages: Hit[] }>(await mcp.call("search", args)).pages.map((p) => p.slug);
    expect(await slugs({ topics: ["queue"] })).toEqual(["architecture/run-queue"]);
    expect(await slugs({ topics: ["concepts"] })).toEqual(["architecture/run-queue", "architecture/index-refresh", "README"]);
    expect(await slugs({ mentions: "src/index/scan.ts" })).toEqual(["architecture/index-refresh"]);
    expect(await slugs({ mentions: join(root, "src/queue/worker.ts") })).toEqual(["architecture/run-queue"]);
    const limited = dataOf<{ total: number; pages: Hit[] }>(await mcp.call("search", { limit: 2 }));
    expect(limited.total).toBe(4);
    expect(limited.pages.map((p) => p.slug)).toEqual(["architecture/run-queue", "architecture/index-refresh"]);
  });

  test("a query in FTS syntax is searched as plain words, not parsed", async () => {
    const mcp = await startMcp(box, { cwd: root });
    for (const query of ['"worker" AND drain*', "worker OR NEAR(stops", "ledger^ -claims: {col}"]) {
      const result = await mcp.call("search", { query });
      expect(result.isError).toBeFalsy();
      expect(dataOf<{ pages: Hit[] }>(result).pages.map((p) => p.slug)).toContain("architecture/run-queue");
    }
  });

  test("read_page returns the whole page, or one part of it", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const whole = await mcp.call("read_page", { slug: "architecture/run-queue" });
    expect(dataOf(whole)).toEqual({
      slug: "architecture/run-queue",
      title: "Run queue",
      summary: "How runs wait for a worker",
      path: "architecture/run-queue.md",
      topics: ["queue"],
      updated_at: "2023-11-14T22:18:20Z",
      uri: "almanac://repo/architecture/run-queue",
      wiki: "repo",
      part: null,
      truncated: false,
      // The title heading is the reply's title; links are slugs the other tools take.
      body: "Runs wait in the ledger until the worker claims them [@worker].\n\n## Shutdown\n\nThe worker drains its run before it stops. See [index refresh](architecture/index-refresh).",
      links: [{ slug: "architecture/index-refresh", title: "Index refresh", exists: true }],
      backlinks: [{ slug: "architecture/index-refresh", title: "Index refresh", exists: true }],
      files: [{ path: "src/queue/worker.ts", is_dir: false }],
      sources: [{ source_id: "worker", source_type: "file", target: "src/queue/worker.ts", title: null, retrieved_at: null, note: null, lines: null }],
      freshness: { status: "unknown", reason: "unstamped, and there is no git history to check it against", verified_at: null },
    });
    const text = textOf(whole);
    expect(text.startsWith("# Run queue\nslug: architecture/run-queue · wiki: repo · file: almanac/architecture/run-queue.md")).toBe(true);
    expect(text.match(/^# Run queue$/gm)).toHaveLength(1);
    expect(text).toContain("Runs wait in the ledger until the worker claims them [@worker].");
    expect(text).toContain("Cites repository paths:\n- src/queue/worker.ts");

    const part = async (name: string) => dataOf<Record<string, unknown>>(await mcp.call("read_page", { slug: "architecture/index-refresh", part: name }));
    expect((await part("lead")).lead).toBe("Every read compares stat data first [@index]. Compare [the queue](architecture/run-queue) and [a missing page](nowhere).");
    expect((await part("links")).links).toEqual([
      { slug: "architecture/run-queue", title: "Run queue", exists: true },
      { slug: "nowhere", title: null, exists: false },
    ]);
    expect((await part("backlinks")).backlinks).toEqual([{ slug: "architecture/run-queue", title: "Run queue", exists: true }]);
    expect((await part("files")).files).toEqual([{ path: "src/index/", is_dir: true }]);
    const body = await part("body");
    expect(Object.keys(body).sort()).toEqual(["body", "freshness", "part", "path", "slug", "summary", "title", "topics", "truncated", "updated_at", "uri", "wiki"]);
    expect(textOf(await mcp.call("read_page", { slug: "architecture/index-refresh", part: "links" }))).toContain(
      "Links to:\n- architecture/run-queue\n- nowhere (no such page)",
    );
  });

  test("read_page forgives a file path and letter case", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(dataOf(await mcp.call("read_page", { slug: "almanac/guides/testing.md" })).slug).toBe("guides/testing");
    expect(dataOf(await mcp.call("read_page", { slug: "Guides/Testing" })).slug).toBe("guides/testing");
  });

  test("pages_for_file lists the pages citing a file, directly or through its folder", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const file = await mcp.call("pages_for_file", { path: "src/queue/worker.ts" });
    expect(dataOf(file)).toMatchObject({ wiki: "repo", path: "src/queue/worker.ts", kind: "file", total: 1 });
    expect(textOf(file)).toBe("1 page in wiki repo cites src/queue/worker.ts:\n- architecture/run-queue — Run queue: How runs wait for a worker");
    const inFolder = dataOf<{ pages: Hit[] }>(await mcp.call("pages_for_file", { path: "./src/index/scan.ts" }));
    expect(inFolder.pages.map((p) => p.slug)).toEqual(["architecture/index-refresh"]);
    const folder = dataOf(await mcp.call("pages_for_file", { path: join(root, "src", "index") }));
    expect(folder).toMatchObject({ path: "src/index/", kind: "directory", total: 1 });
    const none = await mcp.call("pages_for_file", { path: "src/elsewhere.ts" });
    expect(dataOf(none)).toMatchObject({ total: 0, pages: [] });
    expect(textOf(none)).toBe("No page in wiki repo cites src/elsewhere.ts.");
  });

  test("topics returns the graph, or one topic with its pages", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const graph = await mcp.call("topics");
    expect(dataOf(graph)).toEqual({
      wiki: "repo",
      topics: [
        { slug: "concepts", title: "Concepts", declared: true, description: "Ideas the code is built on", parents: [], children: ["indexing", "queue"], page_count: 1 },
        { slug: "indexing", title: "Indexing", declared: true, description: null, parents: ["concepts"], children: [], page_count: 1 },
        { slug: "queue", title: "Queue", declared: true, description: null, parents: ["concepts"], children: [], page_count: 1 },
        { slug: "unused", title: "Unused", declared: true, description: null, parents: [], children: [], page_count: 0 },
      ],
    });
    expect(textOf(graph)).toContain("- indexing — Indexing (1 page) · under concepts");
    const one = dataOf<{ topic: { pages: { slug: string }[]; includes_descendants: boolean } }>(await mcp.call("topics", { topic: "Concepts" }));
    expect(one.topic.pages.map((p) => p.slug)).toEqual(["README"]);
    const family = dataOf<{ topic: { pages: { slug: string }[]; includes_descendants: boolean } }>(
      await mcp.call("topics", { topic: "concepts", descendants: true }),
    );
    expect(family.topic.includes_descendants).toBe(true);
    expect(family.topic.pages.map((p) => p.slug)).toEqual(["README", "architecture/index-refresh", "architecture/run-queue"]);
  });

  test("wiki_health counts every kind of finding, with examples", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const result = await mcp.call("wiki_health");
    const data = dataOf<{ total: number; findings: { kind: string; count: number; examples: string[] }[] }>(result);
    const found = Object.fromEntries(data.findings.filter((f) => f.count > 0).map((f) => [f.kind, f.examples]));
    expect(found).toEqual({
      orphans: ["guides/testing"],
      broken_links: ["architecture/index-refresh -> nowhere"],
      empty_topics: ["unused"],
    });
    expect(data.total).toBe(3);
    expect(data.findings.map((f) => f.kind)).toHaveLength(11);
    expect(textOf(result)).toContain("Wiki repo: 3 findings.\norphans (1, pages without a topic):\n- guides/testing");
  });

  test("list_wikis lists the registered wikis and marks the one the tools read", async () => {
    const other = join(box.dir, "other");
    mcpWiki(other);
    for (const cwd of [root, join(other, "repo")]) expect(box.run(["search"], { cwd }).code).toBe(0);
    const mcp = await startMcp(box, { cwd: join(root, "src") });
    const data = dataOf<{ selected: string; wikis: { name: string; selected: boolean; status: string; root_path: string }[] }>(await mcp.call("list_wikis"));
    expect(data.selected).toBe("repo");
    expect(data.wikis.map((w) => [w.name, w.selected, w.status])).toEqual([
      ["repo", true, "available"],
      ["repo-2", false, "available"],
    ]);
    // Another wiki is read by naming it.
    const elsewhere = dataOf<{ wiki: string }>(await mcp.call("search", { query: "worker", wiki: "repo-2" }));
    expect(elsewhere.wiki).toBe("repo-2");
  });

  test.each([
    ["with folder watches", {}],
    ["with watching off (each call checks the files)", { CODEALMANAC_MCP_WATCH: "0" }],
  ])("a page edited between two calls is seen by the second, %s", async (_mode, env) => {
    const mcp = await startMcp(box, { cwd: root, env });
    const file = join(root, "almanac", "guides", "testing.md");
    expect(dataOf(await mcp.call("read_page", { slug: "guides/testing", part: "body" })).body).toBe("Tests spawn real processes.");
    expect(dataOf(await mcp.call("search", { query: "sandboxes" })).total).toBe(0);
    writeFileSync(file, page({ title: "Testing", summary: "How tests run", topics: [], body: "# Testing\n\nTests run in sandboxes, with real processes." }));
    expect(dataOf(await mcp.call("read_page", { slug: "guides/testing", part: "body" })).body).toBe("Tests run in sandboxes, with real processes.");
    expect(dataOf<{ pages: Hit[] }>(await mcp.call("search", { query: "sandboxes" })).pages.map((p) => p.slug)).toEqual(["guides/testing"]);
    writeFileSync(join(root, "almanac", "guides", "new.md"), page({ title: "New", topics: [], body: "# New\n\nAbout sandboxes too." }));
    expect(dataOf(await mcp.call("search", { query: "sandboxes" })).total).toBe(2);
    expect(mcp.transportErrors).toEqual([]);
  });
});
