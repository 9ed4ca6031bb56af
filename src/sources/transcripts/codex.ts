import type { TranscriptInfo, Turn } from "./dialogue.js";
import { cwdFromEnvironmentContext, withoutInjectedContext } from "./injected.js";
import type { JsonObject } from "./lines.js";
import { parseArguments, patchLine, toolCallLine } from "./tool-calls.js";

/**
 * Reads Codex rollouts: the envelope format (`{timestamp, type, payload}`, 0.34 on) and
 * the older bare format (a header line, then Responses items without an envelope).
 *
 * A conversation is recorded twice in envelope rollouts: as `response_item`s (what the
 * model saw) and as `event_msg`s (what the UI showed). The items are the primary record;
 * the events are kept apart as a fallback for rollouts that have no item messages.
 */
export interface CodexTurns {
  fromItems: Turn[];
  fromEvents: Turn[];
}

const NONE: CodexTurns = { fromItems: [], fromEvents: [] };

export class CodexReader {
  readonly info: TranscriptInfo = { format: "codex" };
  private sawSessionMeta = false;

  read(line: JsonObject): CodexTurns {
    const payload = line.payload;
    if (typeof line.type === "string" && isObject(payload)) return this.readEnvelope(line.type, payload);
    if (line.record_type !== undefined) return NONE;
    if (typeof line.type === "string") return { fromItems: this.readItem(line), fromEvents: [] };
    this.readLegacyHeader(line);
    return NONE;
  }

  private readEnvelope(type: string, payload: JsonObject): CodexTurns {
    if (type === "session_meta") this.readSessionMeta(payload);
    if (type === "turn_context" && typeof payload.cwd === "string") this.info.cwd ??= payload.cwd;
    if (type === "response_item") return { fromItems: this.readItem(payload), fromEvents: [] };
    if (type === "event_msg") return { fromItems: [], fromEvents: readEvent(payload) };
    return NONE;
  }

  /** The first session_meta is this file's identity; a fork copies others in later. */
  private readSessionMeta(payload: JsonObject): void {
    if (this.sawSessionMeta) return;
    this.sawSessionMeta = true;
    if (typeof payload.id === "string") this.info.sessionId = payload.id;
    if (typeof payload.cwd === "string") this.info.cwd = payload.cwd;
    if (typeof payload.timestamp === "string") this.info.startedAt = payload.timestamp;
    if (typeof payload.cli_version === "string") this.info.version = payload.cli_version;
  }

  private readLegacyHeader(line: JsonObject): void {
    if (this.sawSessionMeta || typeof line.id !== "string") return;
    this.sawSessionMeta = true;
    this.info.sessionId = line.id;
    if (typeof line.timestamp === "string") this.info.startedAt = line.timestamp;
    if (typeof line.cwd === "string") this.info.cwd = line.cwd;
  }

  private readItem(item: JsonObject): Turn[] {
    switch (item.type) {
      case "message":
        return this.readMessage(item);
      case "function_call":
        return [{ role: "tool", line: toolCallLine(String(item.name ?? "function"), parseArguments(item.arguments)) }];
      case "custom_tool_call":
        return [{ role: "tool", line: customToolLine(item) }];
      case "local_shell_call":
        return [{ role: "tool", line: toolCallLine("shell", isObject(item.action) ? item.action : undefined) }];
      case "web_search_call":
        return [{ role: "tool", line: toolCallLine("web_search", isObject(item.action) ? item.action : undefined) }];
      default:
        return [];
    }
  }

  private readMessage(item: JsonObject): Turn[] {
    const text = contentText(item.content);
    if (item.role === "assistant") return textTurn("assistant", text);
    if (item.role !== "user") return [];
    this.info.cwd ??= cwdFromEnvironmentContext(text);
    return textTurn("user", text);
  }
}

function customToolLine(item: JsonObject): string {
  const name = String(item.name ?? "tool");
  if (name === "apply_patch" && typeof item.input === "string") return patchLine(item.input);
  return toolCallLine(name, parseArguments(item.input));
}

function readEvent(payload: JsonObject): Turn[] {
  if (payload.type === "user_message" && typeof payload.message === "string") return textTurn("user", payload.message);
  if (payload.type === "agent_message" && typeof payload.message === "string") return textTurn("assistant", payload.message);
  if (payload.type === "item_completed" && isObject(payload.item)) return readCompletedItem(payload.item);
  return [];
}

/** The PascalCase items of paginated rollouts (0.149 on). */
function readCompletedItem(item: JsonObject): Turn[] {
  switch (item.type) {
    case "UserMessage":
      return textTurn("user", contentText(item.content));
    case "AgentMessage":
      return textTurn("assistant", contentText(item.content));
    case "CommandExecution":
      return [{ role: "tool", line: toolCallLine("command", { command: item.command }) }];
    case "FileChange":
      return [{ role: "tool", line: toolCallLine("file_change", isObject(item.changes) ? Object.keys(item.changes).join(", ") : "") }];
    default:
      return [];
  }
}

/** `input_text`, `output_text`, `text` and `Text` parts, joined. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function textTurn(role: "user" | "assistant", text: string): Turn[] {
  const kept = role === "user" ? withoutInjectedContext(text) : text.trim();
  return kept === "" ? [] : [{ role, text: kept }];
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
