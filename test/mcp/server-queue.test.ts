import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { sandbox, type Sandbox } from "../support/cli.js";
import { holdQueue, readRun } from "../queue/support.js";
import { dataOf, errorOf, mcpWiki, startMcp, textOf } from "./support.js";

let box: Sandbox;
let root: string;

beforeEach(() => {
  box = sandbox();
  root = mcpWiki(box.dir);
  // The ledger exists and the queue is parked: queued runs stay queued.
  expect(box.run(["jobs"], { cwd: root }).code).toBe(0);
  holdQueue(box);
});
afterEach(() => box.cleanup());

describe("ca mcp queue tools", () => {
  test("without --allow-queue they are not offered, and calling one is refused", async () => {
    const mcp = await startMcp(box, { cwd: root });
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    for (const name of ["ingest", "garden", "job_status"]) expect(names).not.toContain(name);
    const error = await mcp.client.callTool({ name: "garden", arguments: {} }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect(readRun(box, "x")).toBeUndefined();
  });

  test("with --allow-queue, garden and ingest queue runs and job_status reports them", async () => {
    const mcp = await startMcp(box, { cwd: root, args: ["--allow-queue"] });
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["search", "read_page", "pages_for_file", "topics", "wiki_health", "list_wikis", "ingest", "garden", "job_status"]);
    expect(tools.find((t) => t.name === "garden")!.annotations?.readOnlyHint).toBe(false);

    const garden = await mcp.call("garden", { guidance: "merge the queue pages" });
    const receipt = dataOf<{ run_id: string }>(garden);
    expect(receipt).toEqual({ run_id: receipt.run_id, kind: "garden", wiki: "repo", status: "queued", runs_ahead: 0 });
    expect(textOf(garden)).toBe(`Queued garden run ${receipt.run_id} for wiki repo. It runs in the background; check it with job_status.`);
    const row = readRun(box, receipt.run_id)!;
    expect([row.kind, row.status]).toEqual(["garden", "queued"]);
    expect(JSON.parse(row.spec_json)).toMatchObject({ guidance: "merge the queue pages" });

    const ingest = dataOf<{ run_id: string; runs_ahead: number; kind: string }>(
      await mcp.call("ingest", { inputs: ["src/queue/worker.ts"], title: "Worker notes" }),
    );
    expect([ingest.kind, ingest.runs_ahead]).toEqual(["ingest", 1]);
    expect(readRun(box, ingest.run_id)!.status).toBe("queued");

    const status = await mcp.call("job_status", { run_id: ingest.run_id });
    expect(dataOf(status)).toMatchObject({
      run_id: ingest.run_id,
      kind: "ingest",
      status: "queued",
      wiki: "repo",
      title: "Worker notes",
      summary: null,
      error: null,
      started_at: null,
      finished_at: null,
      page_changes: null,
    });
    expect(textOf(status)).toMatch(new RegExp(`^Run ${ingest.run_id} \\(ingest, wiki repo\\): queued\\.\\ntitle: Worker notes\\nqueued \\d{4}-`));
  });

  test("bad queue requests are error results", async () => {
    const mcp = await startMcp(box, { cwd: root, args: ["--allow-queue"] });
    expect(errorOf(await mcp.call("ingest", { inputs: [] }))).toBe('invalid arguments for ingest: "inputs" must not be empty');
    expect(errorOf(await mcp.call("ingest", {}))).toBe('invalid arguments for ingest: missing required argument "inputs"');
    expect(errorOf(await mcp.call("ingest", { inputs: ["src/does-not-exist.ts"] }))).toContain("src/does-not-exist.ts");
    expect(errorOf(await mcp.call("garden", { guidance: "" }))).toBe('invalid arguments for garden: "guidance" must not be empty');
    expect(errorOf(await mcp.call("job_status", { run_id: "run_nope" }))).toBe("run not found: run_nope");
    renameSync(join(root, "almanac"), join(box.dir, "away"));
    expect(errorOf(await mcp.call("garden"))).toMatch(/^the wiki "repo" is gone: /);
    expect(mcp.transportErrors).toEqual([]);
  });
});
