import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { BIN, sandbox, type Sandbox } from "../support/cli.js";
import { mcpWiki } from "./support.js";

let box: Sandbox;
let root: string;

beforeEach(() => {
  box = sandbox();
  root = mcpWiki(box.dir);
});
afterEach(() => box.cleanup());

/** Runs `ca mcp`, writes `messages` as protocol lines, closes stdin, and waits for the exit. */
function converse(messages: unknown[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "mcp"], { cwd: root, env: { ...box.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const answered = new Set<number>();
  const wanted = messages.flatMap((m) => ("id" in (m as object) ? [(m as { id: number }).id] : []));
  // Close stdin only once every request has its answer, as a client would.
  child.stdout.on("data", () => {
    for (const line of stdout.split("\n")) {
      try {
        const id = (JSON.parse(line) as { id?: number }).id;
        if (id !== undefined) answered.add(id);
      } catch {
        // a partial line; checked at the end
      }
    }
    if (wanted.every((id) => answered.has(id))) child.stdin.end();
  });
  for (const message of messages) child.stdin.write(JSON.stringify(message) + "\n");
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("ca mcp over stdio", () => {
  test("stdout carries protocol messages only, logs go to stderr, and the server exits when stdin closes", async () => {
    const { code, stdout, stderr } = await converse([
      INITIALIZE,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search", arguments: { limit: "many" } } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "read_page", arguments: { slug: "nope" } } },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "search", arguments: { query: "worker" } } },
      { jsonrpc: "2.0", id: 5, method: "resources/list", params: {} },
      { jsonrpc: "2.0", id: 6, method: "no/such/method", params: {} },
    ]);
    expect(code).toBe(0);
    const lines = stdout.split("\n");
    expect(lines.pop()).toBe("");
    const messages = lines
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: Record<string, unknown>; error?: { code: number } })
      .sort((a, b) => a.id - b.id);
    expect(messages.every((m) => m.jsonrpc === "2.0")).toBe(true);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(messages[0]!.result).toMatchObject({ serverInfo: { name: "codealmanac" }, capabilities: { tools: {}, resources: { listChanged: true } } });
    expect(messages[1]!.result).toMatchObject({ isError: true });
    expect(messages[2]!.result).toMatchObject({ isError: true, content: [{ type: "text", text: "page not found: nope" }] });
    expect(messages[3]!.result).toMatchObject({ structuredContent: { total: 1 } });
    expect(messages[5]!.error).toMatchObject({ code: -32601 });
    expect(stderr).toContain("codealmanac mcp: serving the wiki repo\n");
  });

  test("the MCP SDK loads only for `mcp`, never for other commands", async () => {
    const list = join(box.dir, "loaded.txt");
    const preload = join(box.dir, "loaded.cjs");
    writeFileSync(
      preload,
      `process.on("exit", () => require("fs").appendFileSync(${JSON.stringify(list)}, Object.keys(require.cache).join("\\n") + "\\n--\\n"));\n`,
    );
    const env = { NODE_OPTIONS: `--require ${preload}` };
    const sdkChunks = (run: () => void): string[] => {
      writeFileSync(list, "");
      run();
      const files = readFileSync(list, "utf8").split("\n").filter((f) => f.endsWith(".js"));
      // The SDK's protocol layer (its "Method not found" answer) and our stdio transport ship together.
      return files.filter((f) => readFileSync(f, "utf8").includes("Method not found") && readFileSync(f, "utf8").includes("LineTransport"));
    };
    expect(sdkChunks(() => expect(box.run(["--version"], { env }).code).toBe(0))).toEqual([]);
    expect(sdkChunks(() => expect(box.run(["search", "worker"], { cwd: root, env }).code).toBe(0))).toEqual([]);
    expect(sdkChunks(() => expect(box.run(["show", "README", "--json"], { cwd: root, env }).code).toBe(0))).toEqual([]);
    expect(sdkChunks(() => expect(box.run(["mcp"], { cwd: root, env }).code).toBe(0))).toHaveLength(1);
  });

  test("--help describes the server", () => {
    const help = box.run(["mcp", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: codealmanac mcp [options]");
    expect(help.stdout).toContain("--allow-queue");
    expect(help.stdout).toContain("--wiki <name>");
  });
});
