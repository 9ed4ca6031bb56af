import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceListChangedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { BIN, page, writeWiki, type Sandbox } from "../support/cli.js";

export interface McpSession {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Errors the client's transport reported: a line on stdout that is not a protocol message lands here. */
  transportErrors: Error[];
  /** How many `notifications/resources/list_changed` arrived. */
  listChanges(): number;
  /** Resolves at the next list_changed notification after this call. */
  nextListChange(): Promise<void>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

const open = new Set<McpSession>();

/** Every server a test started is closed after it, whatever happened. */
afterEach(async () => {
  for (const session of open) await session.close();
  open.clear();
});

export interface StartOptions {
  cwd: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

/** Spawns the built CLI's `mcp` over real stdio and connects the SDK's client to it. */
export async function startMcp(box: Sandbox, options: StartOptions): Promise<McpSession> {
  const env = Object.fromEntries(
    Object.entries({ ...box.env, ...(options.env ?? {}) }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", ...(options.args ?? [])],
    cwd: options.cwd,
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "codealmanac-tests", version: "1.0.0" });
  const transportErrors: Error[] = [];
  client.onerror = (error) => transportErrors.push(error);
  let changes = 0;
  let waiters: (() => void)[] = [];
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    changes++;
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve();
  });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`ca mcp did not start: ${String(error)}\nstderr:\n${stderr}`, { cause: error });
  }
  // Listing the tools once makes the client check every result against its tool's output schema.
  await client.listTools();
  let closed = false;
  const session: McpSession = {
    client,
    stderr: () => stderr,
    transportErrors,
    listChanges: () => changes,
    nextListChange: () => new Promise((resolve) => waiters.push(resolve)),
    call: async (name, args = {}) => {
      try {
        return (await client.callTool({ name, arguments: args })) as CallToolResult;
      } catch (error) {
        throw new Error(`${name} failed: ${String(error)}\nstderr:\n${stderr}`, { cause: error });
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
  open.add(session);
  return session;
}

/** The text of a tool result (every result here has exactly one text block). */
export function textOf(result: CallToolResult): string {
  expect(result.content).toHaveLength(1);
  const [block] = result.content;
  if (block?.type !== "text") throw new Error(`expected a text block, got ${JSON.stringify(block)}`);
  return block.text;
}

/** Asserts an error result with a one-line message, and returns the message. */
export function errorOf(result: CallToolResult): string {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = textOf(result);
  expect(text).not.toContain("\n");
  expect(text.length).toBeGreaterThan(0);
  return text;
}

/** Asserts a success and returns its structured content. */
export function dataOf<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) throw new Error(`expected success, got error: ${JSON.stringify(result.content)}`);
  expect(result.structuredContent).toBeDefined();
  return result.structuredContent as T;
}

export const TOPICS = `topics:
  - slug: concepts
    title: Concepts
    description: Ideas the code is built on
    parents: []
  - slug: queue
    title: Queue
    parents: [concepts]
  - slug: indexing
    title: Indexing
    parents: [concepts]
  - slug: unused
    title: Unused
    parents: []
`;

/**
 * The wiki most tests read, at `<dir>/repo`: a landing page, a queue page citing a file,
 * an indexing page citing a folder and linking to a missing page, and a page without
 * topics. The cited file and folder exist; pages get fixed, distinct modification times.
 */
export function mcpWiki(dir: string): string {
  const root = join(dir, "repo");
  writeWiki(
    root,
    {
      "architecture/run-queue.md": page({
        title: "Run queue",
        summary: "How runs wait for a worker",
        topics: ["queue"],
        sources: [{ id: "worker", type: "file", path: "src/queue/worker.ts" }],
        body: "# Run queue\n\nRuns wait in the ledger until the worker claims them [@worker].\n\n## Shutdown\n\nThe worker drains its run before it stops. See [index refresh](index-refresh.md).",
      }),
      "architecture/index-refresh.md": page({
        title: "Index refresh",
        summary: "How the index follows the files",
        topics: ["indexing"],
        sources: [{ id: "index", type: "file", path: "src/index/" }],
        body: "# Index refresh\n\nEvery read compares stat data first [@index]. Compare [the queue](run-queue.md) and [a missing page](../nowhere.md).",
      }),
      "guides/testing.md": page({ title: "Testing", summary: "How tests run", topics: [], sources: [], body: "# Testing\n\nTests spawn real processes." }),
    },
    TOPICS,
  );
  mkdirSync(join(root, "src", "queue"), { recursive: true });
  mkdirSync(join(root, "src", "index"), { recursive: true });
  writeFileSync(join(root, "src", "queue", "worker.ts"), "export {};\n");
  writeFileSync(join(root, "src", "index", "scan.ts"), "export {};\n");
  const times: Record<string, number> = {
    "README.md": 1_700_000_000,
    "architecture/run-queue.md": 1_700_000_300,
    "architecture/index-refresh.md": 1_700_000_200,
    "guides/testing.md": 1_700_000_100,
  };
  for (const [rel, seconds] of Object.entries(times)) utimesSync(join(root, "almanac", rel), seconds, seconds);
  return root;
}
