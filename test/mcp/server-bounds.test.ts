import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { BIN, sandbox, type Sandbox } from "../support/cli.js";
import { mcpWiki } from "./support.js";

let box: Sandbox;
let root: string;
const servers: ChildProcessWithoutNullStreams[] = [];

beforeEach(() => {
  box = sandbox();
  root = mcpWiki(box.dir);
});
afterEach(() => {
  for (const server of servers.splice(0)) server.kill("SIGKILL");
  box.cleanup();
});

interface Reply {
  jsonrpc: string;
  id: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** `ca mcp` spoken to in raw bytes: every stdout line is kept, and a wait fails if the server exits first. */
function rawServer() {
  const child = spawn(process.execPath, [BIN, "mcp"], { cwd: root, env: box.env, stdio: ["pipe", "pipe", "pipe"] });
  servers.push(child);
  const replies: Reply[] = [];
  let partial = "";
  let stderr = "";
  let exit: number | null | undefined;
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((waiter) => waiter());
  child.stdout.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop()!;
    for (const line of lines) replies.push(JSON.parse(line) as Reply);
    wake();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.on("close", (code) => {
    exit = code;
    wake();
  });
  const until = <T>(found: () => T | undefined, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const value = found();
        if (value !== undefined) {
          waiters.delete(check);
          resolve(value);
        } else if (exit !== undefined) {
          waiters.delete(check);
          reject(new Error(`ca mcp exited (${exit}) before ${what}; replies: ${JSON.stringify(replies).slice(0, 500)}\nstderr:\n${stderr}`));
        }
      };
      waiters.add(check);
      check();
    });
  return {
    replies,
    stderr: () => stderr,
    /** Writes bytes, waiting for the pipe to drain as a client would. */
    async write(bytes: string | Buffer, chunk = 1 << 20): Promise<void> {
      const data = Buffer.from(bytes);
      for (let at = 0; at < data.length; at += chunk) {
        if (!child.stdin.write(data.subarray(at, at + chunk))) await new Promise((resolve) => child.stdin.once("drain", resolve));
      }
    },
    /** The `n`th reply (1-based), in arrival order. */
    nth: (n: number) => until(() => replies[n - 1], `reply ${n}`),
    answerTo: (id: number | string) => until(() => replies.find((reply) => reply.id === id), `the answer to ${id}`),
    async close(): Promise<number | null> {
      child.stdin.end();
      return until(() => (exit === undefined ? undefined : exit), "exit");
    },
  };
}

const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const ping = (id: number) => line({ jsonrpc: "2.0", id, method: "ping" });

describe("ca mcp reads bounded, valid messages and answers every other line", () => {
  test("a 10 MiB message is skipped as it streams and answered under its id; the next request is answered as usual", async () => {
    const server = rawServer();
    // The SDK's client writes the id last, so it is read only at the end of the message.
    const huge = line({ method: "tools/call", params: { name: "search", arguments: { query: "x".repeat(10 * 1024 * 1024) } }, jsonrpc: "2.0", id: 1 });
    await server.write(huge, 64 * 1024);
    await server.write(ping(2));
    expect(await server.answerTo(1)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32600, message: `message too long: ${huge.length - 1} bytes, over this server's limit of 1048576 bytes (1 MiB); it was not read` },
    });
    expect(await server.answerTo(2)).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    await server.write(line({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "search", arguments: { query: "worker" } } }));
    expect((await server.answerTo(3)).result).toMatchObject({ structuredContent: { total: 1 } });
    expect(await server.close()).toBe(0);
    expect(server.stderr()).toContain("codealmanac mcp: refused a message (-32600): message too long: ");
  });

  test("one byte over the limit is refused with a null id when none can be read; a message of exactly the limit is read", async () => {
    const server = rawServer();
    const limit = 1024 * 1024;
    const base = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping", params: { _meta: { pad: "" } } });
    const exact = base.replace('"pad":""', `"pad":"${"p".repeat(limit - base.length)}"`);
    expect(Buffer.byteLength(exact)).toBe(limit);
    await server.write(`${"{".repeat(limit + 1)}\n`);
    await server.write(`${exact}\n`);
    expect(await server.nth(1)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/^message too long: 1048577 bytes/) } });
    expect(await server.answerTo(5)).toEqual({ jsonrpc: "2.0", id: 5, result: {} });
    expect(await server.close()).toBe(0);
  });

  test("another JSON-RPC version, a batch, params that are not an object and lines that are not JSON each get the error for it", async () => {
    const server = rawServer();
    await server.write(
      [
        '{"jsonrpc":"1.0","id":10,"method":"tools/list"}',
        '[{"jsonrpc":"2.0","id":11,"method":"tools/list"}]',
        '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":"str"}',
        '{"jsonrpc":"2.0","id":13,"method":"resources/read","params":{"uri":7}}',
        "not json",
        "",
        '{"jsonrpc":"2.0","id":14,"method":"ping"}',
      ].join("\r\n") + "\r\n",
    );
    expect(await server.answerTo(14)).toEqual({ jsonrpc: "2.0", id: 14, result: {} });
    const codes = server.replies.map((reply) => [reply.id, reply.error?.code ?? "ok"]);
    expect(codes).toEqual([
      [10, -32600],
      [null, -32600],
      [12, -32602],
      [13, -32602],
      [null, -32700],
      [14, "ok"],
    ]);
    expect(server.replies.every((reply) => reply.jsonrpc === "2.0")).toBe(true);
    expect(server.replies[3]!.error!.message).toBe('invalid params for resources/read: "uri" must be a string (got 7)');
    expect(await server.close()).toBe(0);
  });
});
