import { CallToolRequestSchema, ListToolsRequestSchema, PingRequestSchema, ReadResourceRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "vitest";
import { paramChecks, readMessage } from "../../src/mcp/messages.js";

const REQUESTS = paramChecks([PingRequestSchema, ListToolsRequestSchema, CallToolRequestSchema, ReadResourceRequestSchema]);
const read = (line: string) => readMessage(line, REQUESTS);
const refusal = (line: string) => {
  const outcome = read(line);
  if (!("refusal" in outcome)) throw new Error(`expected a refusal of ${line}, got ${JSON.stringify(outcome)}`);
  return outcome.refusal;
};

describe("reading one line as a JSON-RPC message", () => {
  test("requests, notifications and responses pass; members JSON-RPC does not define are dropped", () => {
    expect(read('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).toEqual({ message: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(read('{"jsonrpc":"2.0","method":"notifications/initialized","extra":true}')).toEqual({
      message: { jsonrpc: "2.0", method: "notifications/initialized" },
    });
    expect(read('{"jsonrpc":"2.0","id":"a","method":"no/such","params":{"x":1}}')).toEqual({
      message: { jsonrpc: "2.0", id: "a", method: "no/such", params: { x: 1 } },
    });
    expect(read('{"jsonrpc":"2.0","id":3,"result":{}}')).toEqual({ message: { jsonrpc: "2.0", id: 3, result: {} } });
    expect(read('{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"m"}}')).toEqual({
      message: { jsonrpc: "2.0", id: 4, error: { code: 1, message: "m" } },
    });
  });

  test("not JSON is a parse error (-32700) with a null id", () => {
    expect(refusal("not json")).toMatchObject({ id: null, code: -32700, message: expect.stringMatching(/^parse error: /) });
    expect(refusal('{"jsonrpc":"2.0","id":5,')).toMatchObject({ id: null, code: -32700 });
  });

  test("JSON that is not a message is an invalid request (-32600), under its id when it has a valid one", () => {
    expect(refusal('{"jsonrpc":"1.0","id":2,"method":"tools/list"}')).toEqual({
      id: 2,
      code: -32600,
      message: 'invalid request: "jsonrpc" must be "2.0" (got "1.0")',
    });
    expect(refusal('{"id":2,"method":"tools/list"}')).toMatchObject({ id: 2, code: -32600, message: 'invalid request: "jsonrpc" must be "2.0" (got nothing)' });
    expect(refusal('[{"jsonrpc":"2.0","id":1,"method":"ping"}]')).toEqual({
      id: null,
      code: -32600,
      message: "invalid request: batches are not supported (MCP sends one message per line)",
    });
    expect(refusal("[]")).toMatchObject({ id: null, code: -32600 });
    expect(refusal("42")).toEqual({ id: null, code: -32600, message: "invalid request: a message is a JSON object (got 42)" });
    expect(refusal('{"jsonrpc":"2.0","id":null,"method":"ping"}')).toMatchObject({ id: null, code: -32600 });
    expect(refusal('{"jsonrpc":"2.0","id":1.5,"method":"ping"}')).toMatchObject({ id: null, code: -32600 });
    expect(refusal('{"jsonrpc":"2.0","id":7,"method":5}')).toEqual({ id: 7, code: -32600, message: 'invalid request: "method" must be a string (got 5)' });
    expect(refusal('{"jsonrpc":"2.0","id":8}')).toMatchObject({ id: 8, code: -32600 });
    expect(refusal('{"jsonrpc":"2.0","id":9,"result":{},"error":{"code":1,"message":"m"}}')).toMatchObject({ id: 9, code: -32600 });
    expect(refusal('{"jsonrpc":"2.0","id":9,"result":5}')).toMatchObject({ id: 9, code: -32600 });
  });

  test("params that are not an object, or not what the method takes, are invalid params (-32602) under the request's id", () => {
    expect(refusal('{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"str"}')).toEqual({
      id: 3,
      code: -32602,
      message: 'invalid params for tools/list: "params" must be an object (got "str")',
    });
    expect(refusal('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":[1]}')).toMatchObject({ id: 4, code: -32602 });
    expect(refusal('{"jsonrpc":"2.0","method":"notifications/initialized","params":"str"}')).toMatchObject({ id: null, code: -32602 });
    expect(refusal('{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{}}')).toEqual({
      id: 5,
      code: -32602,
      message: 'invalid params for resources/read: missing required argument "uri"',
    });
    expect(refusal('{"jsonrpc":"2.0","id":6,"method":"resources/read"}')).toEqual({ id: 6, code: -32602, message: 'invalid params for resources/read: missing "params"' });
    expect(refusal('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":[1,2]}}')).toEqual({
      id: 7,
      code: -32602,
      message: 'invalid params for tools/call: "arguments" must be an object (got [1,2])',
    });
    // A method no schema is given for still gets the SDK's envelope check, which its own reader failed silently.
    expect(refusal('{"jsonrpc":"2.0","id":8,"method":"no/such","params":{"_meta":{"progressToken":{}}}}')).toMatchObject({ id: 8, code: -32602 });
  });
});
