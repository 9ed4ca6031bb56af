import { BoundedText } from "../bounded-text.js";
import type { TranscriptFormat } from "../model.js";

/**
 * The readable form of an agent session: what the user asked, what the agent answered,
 * and one short line per tool call. Tool output, reasoning and injected context are
 * what make transcripts huge, and they are dropped by the readers before this point.
 */
export type Turn = { role: "user" | "assistant"; text: string } | { role: "tool"; line: string };

/** What a reader learns about the session besides its turns. */
export interface TranscriptInfo {
  format: TranscriptFormat;
  sessionId?: string;
  cwd?: string;
  startedAt?: string;
  title?: string;
  version?: string;
}

const AGENT_NAMES: Record<TranscriptFormat, string> = { claude: "Claude Code", codex: "Codex" };

export function agentName(format: TranscriptFormat): string {
  return AGENT_NAMES[format];
}

/** Renders turns as they arrive, grouping consecutive turns of one speaker under one label. */
export class DialogueWriter {
  private readonly text: BoundedText;
  private speaker: "user" | "assistant" | null = null;
  /** What was written last, so blocks within one speaker's turn get a blank line between them. */
  private last: "label" | "text" | "tool" = "label";
  private counts = { user: 0, assistant: 0, tool: 0 };

  constructor(limitChars: number) {
    this.text = new BoundedText(limitChars);
  }

  add(turn: Turn): void {
    if (turn.role === "tool") {
      this.counts.tool += 1;
      this.label("assistant");
      this.text.append(`${this.last === "text" ? "\n" : ""}- ↳ ${turn.line}\n`);
      this.last = "tool";
      return;
    }
    const body = turn.text.trim();
    if (body === "") return;
    this.counts[turn.role] += 1;
    this.label(turn.role);
    this.text.append(`${this.last === "label" ? "" : "\n"}${body}\n`);
    this.last = "text";
  }

  get userTurns(): number {
    return this.counts.user;
  }

  get assistantTurns(): number {
    return this.counts.assistant;
  }

  get toolCalls(): number {
    return this.counts.tool;
  }

  get isEmpty(): boolean {
    return this.counts.user + this.counts.assistant + this.counts.tool === 0;
  }

  get droppedChars(): number {
    return this.text.droppedChars;
  }

  toString(): string {
    return this.text.toString().trimEnd();
  }

  private label(speaker: "user" | "assistant"): void {
    if (this.speaker === speaker) return;
    this.speaker = speaker;
    this.last = "label";
    this.text.append(`${this.text.totalChars === 0 ? "" : "\n"}**${speaker === "user" ? "User" : "Assistant"}:**\n`);
  }
}

/** The header above the dialogue: which agent, which session, where and when. */
export function renderTranscriptHeader(info: TranscriptInfo, path: string): string {
  const lines = [`# ${agentName(info.format)} session${info.sessionId ? ` ${info.sessionId}` : ""}`, ""];
  if (info.title) lines.push(`- Title: ${info.title}`);
  lines.push(`- File: ${path}`);
  if (info.cwd) lines.push(`- Working directory: ${info.cwd}`);
  if (info.startedAt) lines.push(`- Started: ${info.startedAt}`);
  if (info.version) lines.push(`- ${agentName(info.format)} version: ${info.version}`);
  return lines.join("\n");
}
