/**
 * A scripted local stand-in for the OpenAI Responses API, good enough for the real Codex CLI
 * (`codex exec`, 0.171) pointed at it through a custom model provider.
 *
 * Point codex at it with a private `CODEX_HOME` holding this `config.toml` (the port is
 * the stand-in's; `env_key` names the variable that carries the API key):
 *
 *   model_provider = "standin"
 *   check_for_update_on_startup = false
 *
 *   [analytics]
 *   enabled = false
 *
 *   [feedback]
 *   enabled = false
 *
 *   [features]
 *   plugins = false          # else startup syncs curated plugins from github.com / chatgpt.com
 *
 *   [model_providers.standin]
 *   name = "Stand-in"
 *   base_url = "http://127.0.0.1:<port>/v1"
 *   wire_api = "responses"
 *   env_key = "STANDIN_OPENAI_API_KEY"
 *   request_max_retries = 0      # a 401 / 5xx fails at once instead of retrying
 *   stream_max_retries = 0       # a dropped stream fails at once instead of "Reconnecting... n/5"
 *   stream_idle_timeout_ms = 3000  # a model that never answers fails after 3 s
 *
 * and run, with stdin closed (`stdio: ["ignore", "pipe", "pipe"]`):
 *
 *   CODEX_HOME=<dir> HOME=<dir> STANDIN_OPENAI_API_KEY=sk-standin \
 *     codex exec --json --skip-git-repo-check -C <repo> -m gpt-5.5 -s workspace-write \
 *       -c approval_policy="never" "<prompt>"
 *
 * `codexConfigToml(standIn)` below writes exactly that file.
 *
 * What codex 0.171 was seen to call for one `exec` run: `POST /v1/responses` only, one per
 * model turn (always `stream: true`, `store: false`, the whole conversation in `input`, the
 * tool list in `tools`: `exec_command` (function, `{cmd, workdir?, …}`) for shell commands and
 * `apply_patch` (custom/freeform tool, a Lark grammar) for edits). Other paths are answered
 * with a 404 and recorded in `unknown` (`GET /v1/models` is answered and recorded as `models`,
 * should a build ask for it), so a newer CLI's new calls show up in test output.
 *
 * Agent requests are answered from a script indexed by the turn: every tool call this stand-in
 * issues carries the call id `call_standin_t<turn>_<n>`, and codex sends those calls back in
 * `input`, so the turn asked for is one more than the highest turn found there. Retries and
 * side calls therefore never shift the script.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One tool call in a scripted reply. */
export type StandInToolCall =
  /** The freeform `apply_patch` tool: `patch` is the whole `*** Begin Patch … *** End Patch` text. */
  | { type: "apply_patch"; patch: string }
  /** A function tool, e.g. `exec_command` with `{ cmd: "git status" }`. */
  | { type: "function_call"; name: string; arguments: Record<string, unknown> };

/** One scripted model turn. */
export type OpenAIStandInReply =
  /** A final answer (optionally after a reasoning summary): the turn ends. */
  | { type: "message"; text: string; reasoning?: string }
  /** Tool calls, optionally with a reasoning summary and a message before them. */
  | { type: "tools"; calls: StandInToolCall[]; text?: string; reasoning?: string }
  /** An HTTP error with an OpenAI-shaped body: `{error: {message, type, code}}`. */
  | { type: "http_error"; status: number; message: string; errorType?: string; code?: string }
  /** `response.created`, then `response.failed` with this error. */
  | { type: "response_failed"; message: string; code?: string }
  /** `response.created`, then the connection is cut before `response.completed`. */
  | { type: "disconnect" }
  /**
   * Never answers: the request is held open until the stand-in closes. `before-headers` sends
   * nothing at all (codex 0.171 has no timeout for that: it waits until killed);
   * `after-created` sends the SSE headers and `response.created`, then nothing (codex gives up
   * after `stream_idle_timeout_ms` with "stream disconnected before completion: idle timeout
   * waiting for SSE", then retries `stream_max_retries` times).
   */
  | { type: "hang"; stage?: "before-headers" | "after-created" };

export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/responses`. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json: Record<string, unknown> | null;
  /** `agent` (answered from the script), `side` (a tool-less `/responses` call), `models`, `unknown`. */
  role: "agent" | "side" | "models" | "unknown";
  /** For agent requests: the script index answered. */
  turn?: number;
  /** For agent requests: the names of the tools offered (`exec_command`, `apply_patch`, …). */
  tools?: string[];
}

export interface OpenAIStandIn {
  /** Base URL for the provider's `base_url`, including `/v1` (no trailing slash). */
  url: string;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Requests to paths this stand-in does not model (answered 404). */
  unknown: RecordedRequest[];
  /** Requests currently held open by a `hang` reply. */
  readonly held: number;
  close(): Promise<void>;
}

export interface OpenAIStandInOptions {
  /** Replies for agent turns 0, 1, 2, …; a turn past the end gets a plain "Done." message. */
  script: OpenAIStandInReply[];
  /** Model id echoed back in the response objects; defaults to the request's `model`. */
  model?: string;
}

type Json = Record<string, unknown>;

/** One `exec_command` call per turn for each command, then a final message. The call of turn t is `call_standin_t<t>_0`. */
export function execScript(commands: string[], answer: string, firstTurn = 0): { script: OpenAIStandInReply[]; callIds: string[] } {
  return {
    script: [...commands.map((cmd): OpenAIStandInReply => ({ type: "tools", calls: [{ type: "function_call", name: "exec_command", arguments: { cmd } }] })), { type: "message", text: answer }],
    callIds: commands.map((_, index) => `call_standin_t${firstTurn + index}_0`),
  };
}

/** What codex sent back for each function call (`function_call_output`), by call id. */
export function toolOutputs(standIn: Pick<OpenAIStandIn, "requests">): Map<string, string> {
  const outputs = new Map<string, string>();
  for (const request of standIn.requests) {
    const input = request.role === "agent" && Array.isArray(request.json?.input) ? (request.json.input as Json[]) : [];
    for (const item of input) {
      if (item.type !== "function_call_output" && item.type !== "custom_tool_call_output") continue;
      if (typeof item.call_id !== "string") continue;
      const output = item.output;
      outputs.set(item.call_id, typeof output === "string" ? output : JSON.stringify(output));
    }
  }
  return outputs;
}

const CALL_ID = /^call_standin_t(\d+)_\d+$/;

export async function startOpenAIStandIn(options: OpenAIStandInOptions): Promise<OpenAIStandIn> {
  const requests: RecordedRequest[] = [];
  const unknown: RecordedRequest[] = [];
  const held = new Set<ServerResponse>();
  let responseCounter = 0;

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const method = req.method ?? "GET";
      const url = req.url ?? "/";
      const path = (url.split("?")[0] ?? "/").replace(/\/+$/, "");
      let json: Json | null = null;
      try {
        const parsed: unknown = body === "" ? null : JSON.parse(body);
        if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) json = parsed as Json;
      } catch {
        json = null;
      }
      const recorded: RecordedRequest = { method, url, headers: req.headers, body, json, role: "unknown" };
      requests.push(recorded);

      const sendJson = (status: number, value: unknown) => {
        const text = JSON.stringify(value);
        res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
        res.end(text);
      };

      if (method === "GET" && path === "/v1/models") {
        recorded.role = "models";
        sendJson(200, { object: "list", data: [] });
        return;
      }
      if (method === "POST" && path === "/v1/responses") {
        if (json === null) {
          sendJson(400, { error: { message: "body is not JSON", type: "invalid_request_error", code: null } });
          return;
        }
        const responseId = `resp_standin_${String(++responseCounter).padStart(4, "0")}`;
        const model = options.model ?? (typeof json.model === "string" ? json.model : "gpt-stand-in");
        const tools = Array.isArray(json.tools) ? (json.tools as Json[]) : [];
        if (tools.length === 0) {
          recorded.role = "side";
          streamResponse(res, responseId, model, 0, { type: "message", text: "Stand-in answer" });
          return;
        }
        recorded.role = "agent";
        recorded.tools = tools.map((tool) => String(tool.name ?? tool.type));
        const turn = turnOf(json);
        recorded.turn = turn;
        const reply = options.script[turn] ?? { type: "message", text: "Done." };
        switch (reply.type) {
          case "http_error":
            res.setHeader("x-request-id", `req_standin_${responseCounter}`);
            sendJson(reply.status, {
              error: { message: reply.message, type: reply.errorType ?? "invalid_request_error", param: null, code: reply.code ?? null },
            });
            return;
          case "hang":
            held.add(res);
            res.on("close", () => held.delete(res));
            if (reply.stage === "after-created") {
              res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
              sendEvent(res, { type: "response.created", response: responseObject(responseId, model, "in_progress") });
            }
            return;
          case "disconnect":
            res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
            sendEvent(res, { type: "response.created", response: responseObject(responseId, model, "in_progress") });
            setTimeout(() => res.destroy(), 20);
            return;
          case "response_failed":
            res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
            sendEvent(res, { type: "response.created", response: responseObject(responseId, model, "in_progress") });
            sendEvent(res, {
              type: "response.failed",
              response: { ...responseObject(responseId, model, "failed"), error: { code: reply.code ?? "server_error", message: reply.message } },
            });
            res.end();
            return;
          default:
            streamResponse(res, responseId, model, turn, reply);
            return;
        }
      }
      // Not modelled: keep a record so the test can fail on it.
      unknown.push(recorded);
      sendJson(404, { error: { message: `stand-in: no route for ${method} ${path}`, type: "invalid_request_error", code: null } });
    });
  });

  await new Promise<void>((resolvePromise, rejectPromise) => {
    server.once("error", rejectPromise);
    server.listen(0, "127.0.0.1", () => resolvePromise());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    unknown,
    get held() {
      return held.size;
    },
    close: () =>
      new Promise<void>((resolvePromise) => {
        for (const res of held) res.destroy();
        held.clear();
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

/**
 * The `config.toml` that points codex at the stand-in, with every background call to the
 * internet switched off and retries disabled so failures are immediate.
 */
export function codexConfigToml(
  standIn: Pick<OpenAIStandIn, "url">,
  options: { envKey?: string; streamIdleTimeoutMs?: number } = {},
): string {
  return [
    'model_provider = "standin"',
    "check_for_update_on_startup = false",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[feedback]",
    "enabled = false",
    "",
    "[features]",
    "plugins = false",
    "",
    "[model_providers.standin]",
    'name = "Stand-in"',
    `base_url = "${standIn.url}"`,
    'wire_api = "responses"',
    `env_key = "${options.envKey ?? "STANDIN_OPENAI_API_KEY"}"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
    `stream_idle_timeout_ms = ${options.streamIdleTimeoutMs ?? 3000}`,
    "",
  ].join("\n");
}

/** An `apply_patch` input that adds one file (`path` relative to the working root, or absolute). */
export function addFilePatch(path: string, content: string): string {
  const lines = content.endsWith("\n") ? content.slice(0, -1).split("\n") : content.split("\n");
  return ["*** Begin Patch", `*** Add File: ${path}`, ...lines.map((line) => `+${line}`), "*** End Patch", ""].join("\n");
}

/** The turn asked for: one more than the highest turn of our own tool calls in `input`. */
function turnOf(request: Json): number {
  const input = Array.isArray(request.input) ? (request.input as unknown[]) : [];
  let highest = -1;
  for (const item of input) {
    if (item === null || typeof item !== "object") continue;
    const callId = (item as Json).call_id;
    if (typeof callId !== "string") continue;
    const match = CALL_ID.exec(callId);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest + 1;
}

function responseObject(id: string, model: string, status: string): Json {
  return { id, object: "response", created_at: Math.floor(Date.now() / 1000), status, model, output: [] };
}

function sendEvent(res: ServerResponse, data: Json): void {
  res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** One model turn as a Responses API SSE stream. */
function streamResponse(
  res: ServerResponse,
  responseId: string,
  model: string,
  turn: number,
  reply: Extract<OpenAIStandInReply, { type: "message" } | { type: "tools" }>,
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  sendEvent(res, { type: "response.created", response: responseObject(responseId, model, "in_progress") });
  sendEvent(res, { type: "response.in_progress", response: responseObject(responseId, model, "in_progress") });

  const output: Json[] = [];
  let index = 0;
  const add = (item: Json, deltas?: () => void) => {
    const outputIndex = index++;
    sendEvent(res, { type: "response.output_item.added", output_index: outputIndex, item: emptied(item) });
    deltas?.();
    sendEvent(res, { type: "response.output_item.done", output_index: outputIndex, item });
    output.push(item);
  };

  if (reply.reasoning !== undefined) {
    add({
      type: "reasoning",
      id: `rs_standin_t${turn}`,
      summary: [{ type: "summary_text", text: reply.reasoning }],
      encrypted_content: null,
    });
  }
  if (reply.text !== undefined) {
    const itemId = `msg_standin_t${turn}`;
    const text = reply.text;
    add(
      { type: "message", id: itemId, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] },
      () => {
        for (const delta of split(text, 3)) {
          sendEvent(res, { type: "response.output_text.delta", item_id: itemId, output_index: index - 1, content_index: 0, delta });
        }
      },
    );
  }
  if (reply.type === "tools") {
    reply.calls.forEach((call, n) => {
      const callId = `call_standin_t${turn}_${n}`;
      if (call.type === "apply_patch") {
        const itemId = `ctc_standin_t${turn}_${n}`;
        add({ type: "custom_tool_call", id: itemId, status: "completed", call_id: callId, name: "apply_patch", input: call.patch }, () => {
          for (const delta of split(call.patch, 3)) {
            sendEvent(res, { type: "response.custom_tool_call_input.delta", item_id: itemId, output_index: index - 1, delta });
          }
        });
      } else {
        add({
          type: "function_call",
          id: `fc_standin_t${turn}_${n}`,
          status: "completed",
          call_id: callId,
          name: call.name,
          arguments: JSON.stringify(call.arguments),
        });
      }
    });
  }

  sendEvent(res, {
    type: "response.completed",
    response: {
      ...responseObject(responseId, model, "completed"),
      output,
      usage: {
        input_tokens: 1200,
        input_tokens_details: { cached_tokens: 1024 },
        output_tokens: 48,
        output_tokens_details: { reasoning_tokens: reply.reasoning !== undefined ? 16 : 0 },
        total_tokens: 1248,
      },
    },
  });
  res.end();
}

/** The `output_item.added` form of an item: same identity, no content yet. */
function emptied(item: Json): Json {
  if (item.type === "message") return { ...item, status: "in_progress", content: [] };
  if (item.type === "custom_tool_call") return { ...item, status: "in_progress", input: "" };
  if (item.type === "function_call") return { ...item, status: "in_progress", arguments: "" };
  return item;
}

/** Splits text into about `parts` pieces (at least one), so deltas really have to be joined. */
function split(text: string, parts: number): string[] {
  if (text.length === 0) return [""];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces;
}
