import type { TranscriptInfo, Turn } from "./dialogue.js";
import { withoutInjectedContext } from "./injected.js";
import type { JsonObject } from "./lines.js";
import { toolCallLine } from "./tool-calls.js";

/**
 * Reads Claude Code session files (1.0.x to 2.1.x, which share one line shape): user
 * prompts and assistant text become turns, each `tool_use` one tool line; tool
 * results, thinking, attachments and bookkeeping lines are dropped. Subagent
 * conversations (`isSidechain`) are skipped, unless the file is itself a subagent's
 * transcript, whose every line is a sidechain.
 */
export class ClaudeReader {
  readonly info: TranscriptInfo = { format: "claude" };
  private mainIsSidechain: boolean | undefined;
  private readonly seen = new Set<string>();

  read(line: JsonObject): Turn[] {
    this.learn(line);
    if (line.type !== "user" && line.type !== "assistant") return [];
    if (!this.isMainConversation(line) || this.isRepeat(line) || isInjectedLine(line)) return [];
    const message = line.message;
    if (typeof message !== "object" || message === null) return [];
    const content = (message as JsonObject).content;
    return line.type === "user" ? userTurns(content) : assistantTurns(content);
  }

  private learn(line: JsonObject): void {
    const info = this.info;
    if (line.type === "custom-title" && typeof line.customTitle === "string") info.title = line.customTitle;
    if (line.type === "ai-title" && typeof line.aiTitle === "string") info.title ??= line.aiTitle;
    if (line.type !== "user" && line.type !== "assistant") return;
    if (info.sessionId === undefined && typeof line.sessionId === "string") info.sessionId = line.sessionId;
    if (info.cwd === undefined && typeof line.cwd === "string") info.cwd = line.cwd;
    if (info.startedAt === undefined && typeof line.timestamp === "string") info.startedAt = line.timestamp;
    if (info.version === undefined && typeof line.version === "string") info.version = line.version;
  }

  private isMainConversation(line: JsonObject): boolean {
    const sidechain = line.isSidechain === true;
    this.mainIsSidechain ??= sidechain;
    return sidechain === this.mainIsSidechain;
  }

  /** A resumed session can repeat lines; the uuid tells. */
  private isRepeat(line: JsonObject): boolean {
    if (typeof line.uuid !== "string") return false;
    if (this.seen.has(line.uuid)) return true;
    this.seen.add(line.uuid);
    return false;
  }
}

/** Lines Claude marks as not typed by the user: caveats, compaction summaries. */
function isInjectedLine(line: JsonObject): boolean {
  return line.isMeta === true || line.isCompactSummary === true || line.isVisibleInTranscriptOnly === true;
}

function userTurns(content: unknown): Turn[] {
  if (typeof content === "string") return textTurn("user", content);
  if (!Array.isArray(content)) return [];
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    if (!isBlock(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    if (block.type === "image") parts.push("[image]");
  }
  return textTurn("user", parts.join("\n"));
}

function assistantTurns(content: unknown): Turn[] {
  if (typeof content === "string") return textTurn("assistant", content);
  if (!Array.isArray(content)) return [];
  const turns: Turn[] = [];
  for (const block of content as unknown[]) {
    if (!isBlock(block)) continue;
    if (block.type === "text" && typeof block.text === "string") turns.push({ role: "assistant", text: block.text });
    if (block.type === "tool_use" || block.type === "server_tool_use") {
      turns.push({ role: "tool", line: toolCallLine(String(block.name ?? "tool"), block.input) });
    }
  }
  return turns;
}

function textTurn(role: "user" | "assistant", text: string): Turn[] {
  const kept = role === "user" ? withoutInjectedContext(text) : text.trim();
  return kept === "" ? [] : [{ role, text: kept }];
}

function isBlock(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null;
}
