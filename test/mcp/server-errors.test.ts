import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";
import { dataOf, errorOf, mcpWiki, startMcp, textOf, type McpSession } from "./support.js";

let box: Sandbox;
let root: string;

beforeEach(() => {
  box = sandbox();
  root = mcpWiki(box.dir);
});
afterEach(() => box.cleanup());

/** The server answered the bad calls and is still serving. */
async function stillServing(mcp: McpSession): Promise<void> {
  expect(dataOf(await mcp.call("list_wikis")).wikis).toBeDefined();
  expect(mcp.transportErrors).toEqual([]);
}

describe("ca mcp bad input", () => {
  test("a missing, wrong-typed or unknown argument is an error result naming it", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(errorOf(await mcp.call("read_page", {}))).toBe('invalid arguments for read_page: missing required argument "slug"');
    expect(errorOf(await mcp.call("read_page", { slug: 42 }))).toBe('invalid arguments for read_page: "slug" must be a string (got 42)');
    expect(errorOf(await mcp.call("read_page", { slug: "" }))).toBe('invalid arguments for read_page: "slug" must not be empty');
    expect(errorOf(await mcp.call("read_page", { slug: "x", part: "everything" }))).toBe(
      'invalid arguments for read_page: "part" must be one of "lead", "body", "links", "backlinks", "files", "sources" (got "everything")',
    );
    expect(errorOf(await mcp.call("search", { topics: "queue", query: ["a"], bogus: true }))).toBe(
      'invalid arguments for search: "query" must be a string (got ["a"]); "topics" must be an array (got "queue"); unknown argument "bogus"',
    );
    expect(errorOf(await mcp.call("search", { topics: ["queue", 7] }))).toBe('invalid arguments for search: "topics[1]" must be a string (got 7)');
    expect(errorOf(await mcp.call("topics", { descendants: "yes" }))).toBe('invalid arguments for topics: "descendants" must be true or false (got "yes")');
    await stillServing(mcp);
  });

  test("arguments that are not an object, or an unknown tool, are protocol errors", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const refused = async (request: Promise<unknown>) => {
      const error = await request.then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      return error as McpError;
    };
    const unknown = await refused(mcp.client.callTool({ name: "delete_everything", arguments: {} }));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toBe("MCP error -32602: unknown tool: delete_everything (tools/list names them)");
    const notObject = await refused(mcp.client.request({ method: "tools/call", params: { name: "search", arguments: [1, 2] } } as never, {} as never));
    expect(notObject.code).toBe(-32602);
    expect(notObject.message).toBe('MCP error -32602: invalid params for tools/call: "arguments" must be an object (got [1,2])');
    await stillServing(mcp);
  });

  test("an unknown slug or topic suggests close matches", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(errorOf(await mcp.call("read_page", { slug: "architecture/run-queu" }))).toBe(
      "page not found: architecture/run-queu (did you mean architecture/run-queue?)",
    );
    expect(errorOf(await mcp.call("read_page", { slug: "zzzz" }))).toBe("page not found: zzzz");
    expect(errorOf(await mcp.call("topics", { topic: "nope" }))).toBe("topic not found: nope; the topics tool lists them");
    expect(errorOf(await mcp.call("topics", { topic: "queu" }))).toBe("topic not found: queu (did you mean queue?); the topics tool lists them");
    await stillServing(mcp);
  });

  test("search with an unknown topic is an error with the closest topic slugs, not an empty answer", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(errorOf(await mcp.call("search", { query: "worker", topics: ["queue", "Index"] }))).toBe(
      "topic not found: Index (did you mean indexing?); the topics tool lists them",
    );
    expect(errorOf(await mcp.call("search", { topics: ["nope"] }))).toBe("topic not found: nope; the topics tool lists them");
    expect(errorOf(await mcp.call("search", { topics: ["!!"] }))).toBe('topic must contain a letter or digit: "!!"');
    // A topic's name (any case) is its slug, as before.
    expect(dataOf(await mcp.call("search", { topics: ["Queue"] })).total).toBe(1);
    await stillServing(mcp);
  });

  test("a huge, zero, negative or fractional limit is an error result", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(errorOf(await mcp.call("search", { query: "worker", limit: 1_000_000_000 }))).toBe(
      'invalid arguments for search: "limit" must be at most 100 (got 1000000000)',
    );
    expect(errorOf(await mcp.call("search", { limit: 1e308 }))).toBe('invalid arguments for search: "limit" must be at most 100 (got 1e+308)');
    expect(errorOf(await mcp.call("search", { limit: 0 }))).toBe('invalid arguments for search: "limit" must be at least 1 (got 0)');
    expect(errorOf(await mcp.call("search", { limit: -3 }))).toBe('invalid arguments for search: "limit" must be at least 1 (got -3)');
    expect(errorOf(await mcp.call("search", { limit: 2.5 }))).toBe('invalid arguments for search: "limit" must be an integer (got 2.5)');
    expect(errorOf(await mcp.call("pages_for_file", { path: "src/", limit: 101 }))).toBe(
      'invalid arguments for pages_for_file: "limit" must be at most 100 (got 101)',
    );
    await stillServing(mcp);
  });

  test("a query of search operators alone is an error result; with words it is searched", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(errorOf(await mcp.call("search", { query: "* () ^" }))).toBe(
      'the query has no words to search for: "* () ^" (use plain words, e.g. "queue worker")',
    );
    expect(dataOf(await mcp.call("search", { query: 'NEAR("worker" ledger*)' })).total).toBeGreaterThan(0);
    await stillServing(mcp);
  });

  test("a path outside the repository is an error result", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(errorOf(await mcp.call("pages_for_file", { path: "/etc/passwd" }))).toBe(`path is outside the repository ${root}: /etc/passwd`);
    expect(errorOf(await mcp.call("pages_for_file", { path: "../other/x.ts" }))).toBe(`path is outside the repository ${root}: ../other/x.ts`);
    expect(errorOf(await mcp.call("pages_for_file", { path: "src/../../x.ts" }))).toBe(`path is outside the repository ${root}: src/../../x.ts`);
    expect(errorOf(await mcp.call("pages_for_file", { path: "." }))).toBe("path names the repository root; name a file or folder inside it");
    expect(errorOf(await mcp.call("search", { mentions: join(box.dir, "elsewhere") }))).toBe(
      `path is outside the repository ${root}: ${join(box.dir, "elsewhere")}`,
    );
    // A path that climbs out and back in stays inside.
    expect(dataOf(await mcp.call("pages_for_file", { path: "src/../src/queue/worker.ts" })).total).toBe(1);
    await stillServing(mcp);
  });

  test("a wiki deleted while the server runs is an error result; restored, it is read again", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(dataOf(await mcp.call("search", { query: "worker" })).total).toBe(1);
    const almanac = join(root, "almanac");
    renameSync(almanac, join(box.dir, "almanac-away"));
    const gone = `the wiki "repo" is gone: ${almanac} no longer exists (restore it, or drop the registration with \`ca forget repo\`)`;
    expect(errorOf(await mcp.call("search", { query: "worker" }))).toBe(gone);
    expect(errorOf(await mcp.call("read_page", { slug: "README" }))).toBe(gone);
    expect(dataOf<{ wikis: { status: string }[] }>(await mcp.call("list_wikis")).wikis.map((w) => w.status)).toEqual(["missing_almanac"]);
    renameSync(join(box.dir, "almanac-away"), almanac);
    expect(dataOf(await mcp.call("search", { query: "worker" })).total).toBe(1);
    await stillServing(mcp);
  });

  test("a whole repository deleted while the server runs is an error result", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(dataOf(await mcp.call("topics")).wiki).toBe("repo");
    renameSync(root, join(box.dir, "moved"));
    expect(errorOf(await mcp.call("topics"))).toBe(
      `the wiki "repo" is gone: ${root} no longer exists (restore it, or drop the registration with \`ca forget repo\`)`,
    );
    await stillServing(mcp);
  });
});

describe("ca mcp wiki selection", () => {
  test("with no wiki found the server starts, and every tool points at its wiki argument and list_wikis", async () => {
    const empty = join(box.dir, "empty");
    mkdirSync(empty);
    const mcp = await startMcp(box, { cwd: empty, args: ["--allow-queue"] });
    const message = (registered: string) =>
      `No wiki here: no almanac/ in ${empty} or any folder above it. Pass a registered wiki's name as the tool's \`wiki\` argument (list_wikis lists them; ${registered}), start the server with \`--wiki <name>\`, or create a wiki with \`ca init\` in the repository.`;
    const calls = [
      ["search", { query: "worker" }],
      ["read_page", { slug: "README" }],
      ["pages_for_file", { path: "src/x.ts" }],
      ["topics", {}],
      ["wiki_health", {}],
      ["ingest", { inputs: ["src/x.ts"] }],
      ["garden", {}],
    ] as const;
    for (const [tool, args] of calls) expect(errorOf(await mcp.call(tool, args)), tool).toBe(message("none is registered yet"));
    const wikis = await mcp.call("list_wikis");
    expect(dataOf(wikis)).toEqual({ selected: null, wikis: [] });
    expect(textOf(wikis)).toBe("No wikis are registered yet. Run `ca init` in a repository to create one.");
    expect((await mcp.client.listResources()).resources).toEqual([]);
    expect(mcp.stderr()).toContain(`codealmanac mcp: no wiki selected from ${empty}; tools will say how to create one`);
    // Once wikis are registered, the message names them, and the wiki argument reads one.
    expect(box.run(["search"], { cwd: root }).code).toBe(0);
    for (const [tool, args] of calls) expect(errorOf(await mcp.call(tool, args)), tool).toBe(message("registered: repo"));
    expect(dataOf(await mcp.call("search", { query: "worker", wiki: "repo" })).total).toBe(1);
    await stillServing(mcp);
  });

  test("--wiki pins one registered wiki, whatever the directory", async () => {
    const other = mcpWiki(join(box.dir, "other"));
    for (const cwd of [root, other]) expect(box.run(["search"], { cwd }).code).toBe(0);
    const mcp = await startMcp(box, { cwd: box.dir, args: ["--wiki", "repo-2"] });
    expect(dataOf(await mcp.call("search", { query: "worker" })).wiki).toBe("repo-2");
    expect(dataOf(await mcp.call("search", { query: "worker", wiki: "repo-2" })).wiki).toBe("repo-2");
    expect(errorOf(await mcp.call("topics", { wiki: "repo" }))).toBe('this server reads only the wiki "repo-2" (it was started with --wiki repo-2)');
    expect(dataOf<{ wikis: { name: string }[] }>(await mcp.call("list_wikis")).wikis.map((w) => w.name)).toEqual(["repo-2"]);
    expect(mcp.stderr()).toContain("codealmanac mcp: serving the wiki repo-2\n");
  });

  test("--wiki naming no registered wiki still starts; the tools say so, with close names", async () => {
    expect(box.run(["search"], { cwd: root }).code).toBe(0);
    const pinned = "wiki not found: rpo (this server was started with --wiki rpo; did you mean repo?); restart it with a registered wiki's name (`ca list` names them)";
    const mcp = await startMcp(box, { cwd: root, args: ["--wiki", "rpo"] });
    expect(errorOf(await mcp.call("search", { query: "worker" }))).toBe(pinned);
    expect(errorOf(await mcp.call("topics", { wiki: "repo" }))).toBe(pinned);
  });

  test("a wiki argument naming an unknown wiki is an error result that points at list_wikis and suggests close names", async () => {
    const mcp = await startMcp(box, { cwd: root });
    expect(errorOf(await mcp.call("search", { wiki: "nope" }))).toBe("wiki not found: nope; list_wikis lists the wikis this server reads");
    expect(errorOf(await mcp.call("read_page", { slug: "README", wiki: "rpeo" }))).toBe(
      "wiki not found: rpeo (did you mean repo?); list_wikis lists the wikis this server reads",
    );
    expect(errorOf(await mcp.call("search", { wiki: "" }))).toBe('invalid arguments for search: "wiki" must not be empty');
  });
});
