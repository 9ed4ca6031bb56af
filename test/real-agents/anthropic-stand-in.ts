/**
 * A scripted local stand-in for the Anthropic Messages API, good enough for the real
 * Claude Code CLI (2.1.x) pointed at it with `ANTHROPIC_BASE_URL`.
 *
 * What Claude Code 2.1.197 was seen to call, in order, for one `-p` run:
 *   1. `HEAD /` — a connectivity probe (no body; any 2xx will do).
 *   2. `POST /v1/messages?beta=true` — a title-generation side call (`tools: []`, a JSON
 *      schema in `output_config.format`). Only without `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`.
 *   3. `POST /v1/messages?beta=true` — the agent loop, one request per model turn, each
 *      carrying the whole conversation so far (prompt, then assistant turns and tool results)
 *      and the full tool list. Always `stream: true`.
 * Anything else is answered harmlessly and recorded in `unknown`, so a newer CLI's new
 * calls show up in test output instead of silently failing.
 *
 * Agent-loop requests are answered from a script indexed by the number of assistant turns
 * already in the request's `messages` — not by arrival order — so replies stay deterministic
 * even if the CLI retries a request or interleaves side calls.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted model turn. */
export type StandInReply =
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string; text?: string }
  | { type: "http_error"; status: number; errorType: string; message: string }
  /** Never answers: the request is held open, with no headers, until the stand-in closes. */
  | { type: "hang" };

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/messages?beta=true`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `agent` (answered from the script), `side` (a tool-less side call), `probe`, `count_tokens`, `unknown`. */
  role: "agent" | "side" | "probe" | "count_tokens" | "unknown";
  /** For agent requests: how many assistant turns the conversation already had. */
  turn?: number;
}

export interface AnthropicStandIn {
  /** Base URL for `ANTHROPIC_BASE_URL` (no trailing slash). */
  url: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Requests to paths this stand-in does not model. */
  unknown: RecordedRequest[];
  close(): Promise<void>;
}

export interface StandInOptions {
  /** Replies for agent-loop turns 0, 1, 2, …; a turn past the end gets a plain "Done." text. */
  script: StandInReply[];
  /** Model id echoed back in `message_start`; defaults to the request's `model`. */
  model?: string;
}

type Json = Record<string, unknown>;

/** What the CLI sent back for one tool call: the text of its `tool_result` and whether it was an error. */
export interface ToolResult {
  text: string;
  isError: boolean;
}

/** One `Bash` tool call per command, then a final answer: a script that runs each command through the real CLI. */
export function bashScript(commands: { id: string; command: string }[], answer: string): StandInReply[] {
  return [
    ...commands.map(({ id, command }): StandInReply => ({ type: "tool_use", id, name: "Bash", input: { command, description: `Run ${command}` } })),
    { type: "text", text: answer },
  ];
}

/** Every tool result the CLI sent in its agent requests, by tool_use id. */
export function toolResults(standIn: Pick<AnthropicStandIn, "requests">): Map<string, ToolResult> {
  const results = new Map<string, ToolResult>();
  for (const request of standIn.requests) {
    if (request.role !== "agent") continue;
    const messages = ((JSON.parse(request.body) as Json).messages ?? []) as Json[];
    for (const message of messages) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as Json[]) {
        if (block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
        const content = block.content;
        const text = typeof content === "string" ? content : Array.isArray(content) ? (content as Json[]).map((part) => String(part.text ?? "")).join("") : "";
        results.set(block.tool_use_id, { text, isError: block.is_error === true });
      }
    }
  }
  return results;
}

export async function startAnthropicStandIn(options: StandInOptions): Promise<AnthropicStandIn> {
  const requests: RecordedRequest[] = [];
  const unknown: RecordedRequest[] = [];
  let messageCounter = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const method = req.method ?? "GET";
      const url = req.url ?? "/";
      const path = url.split("?")[0] ?? "/";
      const recorded: RecordedRequest = { method, url, headers: req.headers, body, role: "unknown" };
      requests.push(recorded);

      const sendJson = (status: number, value: unknown) => {
        const text = JSON.stringify(value);
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      };

      if ((method === "HEAD" || method === "GET") && path === "/") {
        recorded.role = "probe";
        res.writeHead(200, { "content-type": "text/plain", "content-length": 0 });
        res.end();
        return;
      }
      if (method === "POST" && path === "/v1/messages/count_tokens") {
        recorded.role = "count_tokens";
        sendJson(200, { input_tokens: Math.max(1, Math.ceil(body.length / 4)) });
        return;
      }
      if (method === "POST" && path === "/v1/messages") {
        let request: Json;
        try {
          request = JSON.parse(body) as Json;
        } catch {
          sendJson(400, { type: "error", error: { type: "invalid_request_error", message: "body is not JSON" } });
          return;
        }
        const messageId = `msg_standin_${String(++messageCounter).padStart(4, "0")}`;
        const model = options.model ?? (typeof request.model === "string" ? request.model : "claude-stand-in");
        const tools = Array.isArray(request.tools) ? request.tools : [];
        if (tools.length === 0) {
          recorded.role = "side";
          streamReply(res, messageId, model, { type: "text", text: sideCallAnswer(request) }, request.stream !== false);
          return;
        }
        recorded.role = "agent";
        const turn = assistantTurns(request);
        recorded.turn = turn;
        const reply = options.script[turn] ?? { type: "text", text: "Done." };
        if (reply.type === "hang") return; // held open; close() ends it
        if (reply.type === "http_error") {
          res.setHeader("request-id", `req_standin_${messageCounter}`);
          sendJson(reply.status, { type: "error", error: { type: reply.errorType, message: reply.message } });
          return;
        }
        streamReply(res, messageId, model, reply, request.stream !== false);
        return;
      }
      // Not modelled: answer harmlessly and keep a record.
      unknown.push(recorded);
      if (method === "HEAD") {
        res.writeHead(200, { "content-length": 0 });
        res.end();
      } else {
        sendJson(200, {});
      }
    });
  });

  await new Promise<void>((resolvePromise, rejectPromise) => {
    server.once("error", rejectPromise);
    server.listen(0, "127.0.0.1", () => resolvePromise());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    unknown,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

/** Number of assistant messages already in the conversation (= index of the turn asked for). */
function assistantTurns(request: Json): number {
  const messages = Array.isArray(request.messages) ? request.messages : [];
  return messages.filter((m) => typeof m === "object" && m !== null && (m as Json).role === "assistant").length;
}

/** Side calls (session title, …) get a short answer; JSON when a JSON schema is asked for. */
function sideCallAnswer(request: Json): string {
  const format = (request.output_config as Json | undefined)?.format as Json | undefined;
  if (format?.type === "json_schema") {
    const properties = ((format.schema as Json | undefined)?.properties ?? {}) as Json;
    const answer: Json = {};
    for (const key of Object.keys(properties)) answer[key] = "Stand-in answer";
    return JSON.stringify(answer);
  }
  return "Stand-in answer";
}

interface Writable {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string): unknown;
  end(): unknown;
}

/** One assistant message as a Messages API SSE stream (or one JSON body when `stream` is false). */
function streamReply(
  res: Writable,
  messageId: string,
  model: string,
  reply: Exclude<StandInReply, { type: "http_error" } | { type: "hang" }>,
  stream: boolean,
): void {
  const blocks: Json[] = [];
  if (reply.type === "text") blocks.push({ type: "text", text: reply.text });
  else {
    if (reply.text) blocks.push({ type: "text", text: reply.text });
    blocks.push({ type: "tool_use", id: reply.id ?? `toolu_standin_${messageId.slice(-4)}`, name: reply.name, input: reply.input });
  }
  const stopReason = reply.type === "tool_use" ? "tool_use" : "end_turn";
  const usage = { input_tokens: 120, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const outputTokens = 24;

  if (!stream) {
    const text = JSON.stringify({
      id: messageId,
      type: "message",
      role: "assistant",
      model,
      content: blocks,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { ...usage, output_tokens: outputTokens },
    });
    res.writeHead(200, { "content-type": "application/json" });
    res.write(text);
    res.end();
    return;
  }

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event: string, data: Json) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send("message_start", {
    type: "message_start",
    message: { id: messageId, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage },
  });
  send("ping", { type: "ping" });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const piece of split(block.text as string, 3)) {
        send("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
      }
    } else {
      send("content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      for (const piece of split(JSON.stringify(block.input), 4)) {
        send("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
      }
    }
    send("content_block_stop", { type: "content_block_stop", index });
  });
  send("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  send("message_stop", { type: "message_stop" });
  res.end();
}

/** Splits text into about `parts` pieces (at least one), so deltas really have to be joined. */
function split(text: string, parts: number): string[] {
  if (text.length === 0) return [""];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
