import {
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type * as z from "zod/mini";
import { PROTOCOL } from "./errors.js";
import { isMessageId, type MessageId } from "./id-scan.js";
import { argumentProblems, shown } from "./tools/arguments.js";

/** An SDK request schema (`ListToolsRequestSchema`, …): its method literal and its params' check. */
export interface RequestSchema {
  shape: { method: { value: string }; params: ParamsCheck };
}

/** The params check of each method these schemas describe, for `readMessage`. */
export function paramChecks(schemas: readonly RequestSchema[]): ReadonlyMap<string, ParamsCheck> {
  return new Map(schemas.map((schema) => [schema.shape.method.value, schema.shape.params]));
}

export interface ParamsCheck {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: readonly z.core.$ZodIssue[] } };
}

/** A message this server will not hand to the SDK, answered with a JSON-RPC error instead. */
export interface Refusal {
  /** The message's id when it could be read, else null (as JSON-RPC asks). */
  id: MessageId | null;
  code: number;
  /** One line. */
  message: string;
}

export type ReadOutcome = { message: JSONRPCMessage } | { refusal: Refusal };

/**
 * Reads one line as a JSON-RPC 2.0 message the SDK will act on, or refuses it with the
 * error code JSON-RPC names. The SDK's own reader drops any message it cannot parse and
 * reports it only to the server's log, which leaves the client waiting forever; here every
 * line gets an answer or is handed on. Params of the methods in `requests` are checked
 * against the SDK's schema before its handler sees them, so bad params are -32602 rather
 * than an internal error. Unknown members of a message are dropped, as JSON-RPC ignores them.
 */
export function readMessage(line: string, requests: ReadonlyMap<string, ParamsCheck>): ReadOutcome {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return refuse(null, PROTOCOL.parseError, `parse error: ${(error as Error).message.replace(/\s+/g, " ")}`);
  }
  if (Array.isArray(value)) {
    return refuse(null, PROTOCOL.invalidRequest, "invalid request: batches are not supported (MCP sends one message per line)");
  }
  if (!isRecord(value)) return refuse(null, PROTOCOL.invalidRequest, `invalid request: a message is a JSON object (got ${shown(value)})`);
  const hasId = "id" in value;
  if (hasId && !isMessageId(value.id)) {
    return refuse(null, PROTOCOL.invalidRequest, `invalid request: "id" must be a string or an integer (got ${shown(value.id)})`);
  }
  const id = hasId ? (value.id as MessageId) : null;
  if (value.jsonrpc !== "2.0") {
    return refuse(id, PROTOCOL.invalidRequest, `invalid request: "jsonrpc" must be "2.0" (got ${shown(value.jsonrpc)})`);
  }
  if ("method" in value) return readCall(value, id, requests);
  if ("result" in value || "error" in value) return readResponse(value, id);
  return refuse(id, PROTOCOL.invalidRequest, 'invalid request: a message needs a "method", or a "result" or "error" when it answers');
}

function readCall(value: Record<string, unknown>, id: MessageId | null, requests: ReadonlyMap<string, ParamsCheck>): ReadOutcome {
  const { method, params } = value;
  if (typeof method !== "string") return refuse(id, PROTOCOL.invalidRequest, `invalid request: "method" must be a string (got ${shown(method)})`);
  if ("params" in value && !isRecord(params)) {
    return refuse(id, PROTOCOL.invalidParams, `invalid params for ${method}: "params" must be an object (got ${shown(params)})`);
  }
  const message = { jsonrpc: "2.0", method, ...("params" in value ? { params } : {}), ...(id === null ? {} : { id }) };
  const own = id === null ? undefined : requests.get(method)?.safeParse(params);
  if (own && !own.success) return refuse(id, PROTOCOL.invalidParams, `invalid params for ${method}: ${paramProblems(own.error.issues, params)}`);
  // The SDK's own envelope check (a `_meta` of the wrong shape fails it), which its reader would fail silently.
  const envelope = (id === null ? JSONRPCNotificationSchema : JSONRPCRequestSchema).safeParse(message);
  if (!envelope.success) return refuse(id, PROTOCOL.invalidParams, `invalid params for ${method}: ${argumentProblems(envelope.error.issues, message)}`);
  return { message: message as JSONRPCMessage };
}

function readResponse(value: Record<string, unknown>, id: MessageId | null): ReadOutcome {
  const isError = "error" in value;
  if (isError && "result" in value) return refuse(id, PROTOCOL.invalidRequest, 'invalid response: it has both "result" and "error"');
  const message = isError ? { jsonrpc: "2.0", ...(id === null ? {} : { id }), error: value.error } : { jsonrpc: "2.0", id, result: value.result };
  const parsed = (isError ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema).safeParse(message);
  if (!parsed.success) return refuse(id, PROTOCOL.invalidRequest, `invalid response: ${argumentProblems(parsed.error.issues, message)}`);
  return { message: message as JSONRPCMessage };
}

function paramProblems(issues: readonly z.core.$ZodIssue[], params: unknown): string {
  if (!issues.some((issue) => issue.path.length === 0)) return argumentProblems(issues, params);
  return params === undefined ? 'missing "params"' : `"params" is invalid (got ${shown(params)})`;
}

function refuse(id: MessageId | null, code: number, message: string): ReadOutcome {
  return { refusal: { id, code, message } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
