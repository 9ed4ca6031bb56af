import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { page, sandbox, type Sandbox } from "../support/cli.js";
import { mcpWiki, startMcp } from "./support.js";

let box: Sandbox;
let root: string;

beforeEach(() => {
  box = sandbox();
  root = mcpWiki(box.dir);
});
afterEach(() => box.cleanup());

async function refusal(request: Promise<unknown>): Promise<McpError> {
  const error = await request.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("ca mcp resources", () => {
  test("every page is a Markdown resource, listed a hundred at a time in file order", async () => {
    mkdirSync(join(root, "almanac", "many"));
    for (let i = 0; i < 230; i++) {
      const n = String(i).padStart(3, "0");
      writeFileSync(join(root, "almanac", "many", `page-${n}.md`), page({ title: `Page ${n}`, topics: [], body: `# Page ${n}\n\nNumber ${i}.` }));
    }
    const mcp = await startMcp(box, { cwd: root });
    const pages: { uri: string; name: string }[][] = [];
    let cursor: string | undefined;
    do {
      const answer = await mcp.client.listResources(cursor === undefined ? {} : { cursor });
      pages.push(answer.resources);
      cursor = answer.nextCursor;
    } while (cursor !== undefined);
    // The wiki's overview comes first, before the first hundred pages.
    expect(pages.map((p) => p.length)).toEqual([101, 100, 34]);
    expect(pages[0]![0]).toEqual({
      uri: "almanac://repo",
      name: "repo",
      title: "repo: wiki overview",
      description: "Start here: the landing page, the topics and all 234 pages of the wiki repo, each with its slug and summary.",
      mimeType: "text/markdown",
    });
    const all = pages.flat().slice(1);
    const many = Array.from({ length: 230 }, (_, i) => `many/page-${String(i).padStart(3, "0")}`);
    expect(all.map((r) => r.name)).toEqual(["README", "architecture/index-refresh", "architecture/run-queue", "guides/testing", ...many]);
    expect(all[2]).toEqual({
      uri: "almanac://repo/architecture/run-queue",
      name: "architecture/run-queue",
      title: "Run queue",
      description: "How runs wait for a worker",
      mimeType: "text/markdown",
    });
    expect(new Set(all.map((r) => r.uri)).size).toBe(234);
  });

  test("a cursor that was not handed out is refused", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const error = await refusal(mcp.client.listResources({ cursor: "not-a-cursor" }));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('MCP error -32602: invalid cursor: "not-a-cursor" (pass back the nextCursor of a previous answer)');
  });

  test("the template looks pages up by wiki and slug", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect((await mcp.client.listResourceTemplates()).resourceTemplates).toEqual([
      {
        uriTemplate: "almanac://{wiki}",
        name: "overview",
        title: "Wiki overview",
        description:
          "Where to start in a CodeAlmanac wiki, as Markdown: its landing page, its topics, and every page's slug, title and summary (e.g. almanac://my-repo).",
        mimeType: "text/markdown",
      },
      {
        uriTemplate: "almanac://{wiki}/{+slug}",
        name: "page",
        title: "Wiki page",
        description: "A page of a CodeAlmanac wiki, as Markdown, by wiki name and page slug (e.g. almanac://my-repo/architecture/run-queue).",
        mimeType: "text/markdown",
      },
    ]);
    const read = await mcp.client.readResource({ uri: "almanac://repo/architecture/run-queue" });
    expect(read.contents).toEqual([
      {
        uri: "almanac://repo/architecture/run-queue",
        mimeType: "text/markdown",
        text: "# Run queue\n\nRuns wait in the ledger until the worker claims them [@worker].\n\n## Shutdown\n\nThe worker drains its run before it stops. See [index refresh](index-refresh.md).",
      },
    ]);
    // The slug is forgiving as everywhere; the answer names the page's own URI.
    const forgiven = await mcp.client.readResource({ uri: "almanac://repo/architecture/Run-Queue.md" });
    expect(forgiven.contents[0]!.uri).toBe("almanac://repo/architecture/run-queue");
  });

  test("almanac://<wiki> is where a model starts: the landing page, the topics, every page with its slug and summary", async () => {
    const mcp = await startMcp(box, { cwd: root });
    for (const uri of ["almanac://repo", "almanac://repo/"]) {
      const read = await mcp.client.readResource({ uri });
      expect(read.contents).toHaveLength(1);
      expect(read.contents[0]).toMatchObject({ uri: "almanac://repo", mimeType: "text/markdown" });
      expect((read.contents[0] as { text: string }).text).toBe(
        [
          "# The CodeAlmanac wiki repo",
          "",
          "Pages explain how this repository's code works, why it is built that way and what to watch out for. Open a page with the read_page tool or as the resource almanac://repo/<slug>; find pages with search (words, topics, or a file the pages cite) and pages_for_file.",
          "",
          "## Landing page (README)",
          "",
          "Welcome to the wiki.",
          "",
          "## Topics (4; slug — title, pages, parents)",
          "",
          "- concepts — Concepts, 1 page: Ideas the code is built on",
          "- indexing — Indexing, 1 page, under concepts",
          "- queue — Queue, 1 page, under concepts",
          "- unused — Unused, 0 pages",
          "",
          "## Pages (4; slug — title: summary)",
          "",
          "- README — Home: The landing page",
          "- architecture/index-refresh — Index refresh: How the index follows the files",
          "- architecture/run-queue — Run queue: How runs wait for a worker",
          "- guides/testing — Testing: How tests run",
          "",
        ].join("\n"),
      );
    }
  });

  test("an unknown page, wiki or URI is a protocol error", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const missing = await refusal(mcp.client.readResource({ uri: "almanac://repo/architecture/run-queu" }));
    expect(missing.code).toBe(-32002);
    expect(missing.message).toBe("MCP error -32002: page not found: architecture/run-queu (did you mean architecture/run-queue?)");
    const wiki = await refusal(mcp.client.readResource({ uri: "almanac://nope/README" }));
    expect(wiki.code).toBe(-32002);
    expect(wiki.message).toBe("MCP error -32002: wiki not found: nope; list_wikis lists the wikis this server reads");
    for (const uri of ["https://example.com/README", "almanac:///README", "almanac://repo/README?x=1"]) {
      const bad = await refusal(mcp.client.readResource({ uri }));
      expect(bad.code).toBe(-32602);
      expect(bad.message).toBe(`MCP error -32602: not a wiki resource URI: ${uri} (expected almanac://<wiki> or almanac://<wiki>/<slug>)`);
    }
    const overview = await refusal(mcp.client.readResource({ uri: "almanac://nope" }));
    expect(overview.message).toBe("MCP error -32002: wiki not found: nope; list_wikis lists the wikis this server reads");
  });

  test("the client hears when the wiki changes, and lists the change", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const before = await mcp.client.listResources();
    expect(before.resources.map((r) => r.name)).not.toContain("guides/new");

    let changed = mcp.nextListChange();
    writeFileSync(join(root, "almanac", "guides", "new.md"), page({ title: "New", topics: [], body: "# New\n\nJust written." }));
    await changed;
    expect((await mcp.client.listResources()).resources.map((r) => r.name)).toContain("guides/new");

    changed = mcp.nextListChange();
    rmSync(join(root, "almanac", "guides", "testing.md"));
    await changed;
    expect((await mcp.client.listResources()).resources.map((r) => r.name)).not.toContain("guides/testing");
    expect(mcp.transportErrors).toEqual([]);
  });
});
