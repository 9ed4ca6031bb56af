import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";
import { btreePages, fileIdentity, garblePage, onlyIndexFile, sizableWiki } from "../support/damage.js";
import { dataOf, startMcp, type McpSession } from "./support.js";

/** MCP reads the index through the same guarded handle as the CLI: damage is rebuilt, not an error result. */
let box: Sandbox;
let root: string;
let index: string;
let healthy: string;
let interior: number;
const answers = new Map<string, unknown>();

const CALLS: Record<string, (mcp: McpSession) => Promise<unknown>> = {
  search: async (mcp) => dataOf(await mcp.call("search", { query: "zebra17" })),
  read_page: async (mcp) => dataOf(await mcp.call("read_page", { slug: "notes/note-042", part: "links" })),
  topics: async (mcp) => dataOf(await mcp.call("topics", { topic: "concepts" })),
  "resources/list": async (mcp) => (await mcp.client.listResources()).resources,
};

beforeAll(async () => {
  box = sandbox();
  root = sizableWiki(join(box.dir, "repo"));
  expect(box.run(["reindex"], { cwd: root }).code).toBe(0);
  index = onlyIndexFile(box.state);
  healthy = join(box.dir, "healthy.db");
  copyFileSync(index, healthy);
  interior = btreePages(healthy, "pages", "internal")[0]!;
  const mcp = await startMcp(box, { cwd: root });
  for (const [name, call] of Object.entries(CALLS)) answers.set(name, await call(mcp));
  await mcp.close();
});
afterAll(() => box.cleanup());

describe("ca mcp on a damaged index", () => {
  test.each(Object.keys(CALLS))("%s answers as from the healthy index", async (name) => {
    for (const suffix of ["-wal", "-shm"]) rmSync(index + suffix, { force: true });
    copyFileSync(healthy, index);
    garblePage(index, interior);
    const damaged = fileIdentity(index);
    const mcp = await startMcp(box, { cwd: root });
    expect(await CALLS[name]!(mcp)).toEqual(answers.get(name));
    expect(fileIdentity(index)).not.toBe(damaged);
    expect(mcp.stderr()).not.toContain("failed");
  });
});
