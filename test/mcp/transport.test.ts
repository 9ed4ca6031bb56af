import { PassThrough } from "node:stream";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import { paramChecks } from "../../src/mcp/messages.js";
import { LineTransport } from "../../src/mcp/transport.js";

function transport(maxMessageBytes: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: unknown[] = [];
  let partial = "";
  output.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = lines.pop()!;
    written.push(...lines.map((line) => JSON.parse(line) as unknown));
  });
  const line = new LineTransport(input, output, { maxMessageBytes, requests: paramChecks([ListToolsRequestSchema]) });
  const received: unknown[] = [];
  const errors: string[] = [];
  let closed = 0;
  line.onmessage = (message) => received.push(message);
  line.onerror = (error) => errors.push(error.message);
  line.onclose = () => closed++;
  return { input, line, written, received, errors, closed: () => closed };
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe("the stdio transport in process", () => {
  test("messages go to the SDK; a line over the limit and a bad line are answered and logged, and reading goes on", async () => {
    const t = transport(64);
    await t.line.start();
    t.input.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n');
    t.input.write(`{"jsonrpc":"2.0","method":"x","params":{"p":"${"a".repeat(100)}"},`);
    t.input.write('"id":"long"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list","params":[]}\n');
    await flushed();
    expect(t.received).toEqual([{ jsonrpc: "2.0", id: 1, method: "tools/list" }]);
    expect(t.written).toEqual([
      { jsonrpc: "2.0", id: "long", error: { code: -32600, message: "message too long: 160 bytes, over this server's limit of 64 bytes; it was not read" } },
      { jsonrpc: "2.0", id: 2, error: { code: -32602, message: 'invalid params for tools/list: "params" must be an object (got [])' } },
    ]);
    expect(t.errors).toEqual([
      "refused a message (-32600): message too long: 160 bytes, over this server's limit of 64 bytes; it was not read",
      'refused a message (-32602): invalid params for tools/list: "params" must be an object (got [])',
    ]);
  });

  test("close stops reading, says once that a message was cut off, and reports the close once", async () => {
    const t = transport(1024);
    await t.line.start();
    t.input.write('{"jsonrpc":"2.0","id":3,');
    await flushed();
    await t.line.close();
    await t.line.close();
    t.input.write('"method":"tools/list"}\n');
    await flushed();
    expect(t.received).toEqual([]);
    expect(t.errors).toEqual(["input ended inside a message: 24 bytes without a newline were not read"]);
    expect(t.closed()).toBe(1);
  });
});
