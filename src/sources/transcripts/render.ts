import type { TranscriptFormat } from "../model.js";
import { counted, formatCount } from "../text.js";
import { ClaudeReader } from "./claude.js";
import { CodexReader } from "./codex.js";
import { DialogueWriter, renderTranscriptHeader, type TranscriptInfo } from "./dialogue.js";
import { newJsonlStats, readJsonlObjects, type JsonlStats } from "./lines.js";

export interface RenderOptions {
  maxLineBytes: number;
  /** Ceiling on the rendered text held in memory. */
  maxChars: number;
  signal?: AbortSignal;
}

export interface RenderedTranscript {
  info: TranscriptInfo;
  /** Header and dialogue, as Markdown. */
  text: string;
  notes: string[];
}

/** Streams a transcript file and renders it as a readable dialogue. */
export async function renderTranscript(path: string, format: TranscriptFormat, options: RenderOptions): Promise<RenderedTranscript> {
  const stats = newJsonlStats();
  const lines = readJsonlObjects(path, { maxLineBytes: options.maxLineBytes, signal: options.signal }, stats);
  const { info, dialogue } = format === "claude" ? await readClaude(lines, options) : await readCodex(lines, options);
  const body = dialogue.isEmpty ? "(no user prompts or assistant replies in this transcript)" : dialogue.toString();
  return {
    info,
    text: `${renderTranscriptHeader(info, path)}\n\n${body}\n`,
    notes: renderNotes(dialogue, stats),
  };
}

async function readClaude(lines: AsyncIterable<Record<string, unknown>>, options: RenderOptions) {
  const reader = new ClaudeReader();
  const dialogue = new DialogueWriter(options.maxChars);
  for await (const line of lines) for (const turn of reader.read(line)) dialogue.add(turn);
  return { info: reader.info, dialogue };
}

async function readCodex(lines: AsyncIterable<Record<string, unknown>>, options: RenderOptions) {
  const reader = new CodexReader();
  const fromItems = new DialogueWriter(options.maxChars);
  const fromEvents = new DialogueWriter(options.maxChars);
  for await (const line of lines) {
    const turns = reader.read(line);
    for (const turn of turns.fromItems) fromItems.add(turn);
    for (const turn of turns.fromEvents) fromEvents.add(turn);
  }
  const itemsHoldConversation = fromItems.userTurns + fromItems.assistantTurns > 0;
  return { info: reader.info, dialogue: itemsHoldConversation ? fromItems : fromEvents };
}

function renderNotes(dialogue: DialogueWriter, stats: JsonlStats): string[] {
  const notes = [
    `Condensed from ${counted(stats.objects, "transcript line")}: ${counted(dialogue.userTurns, "user prompt")}, ` +
      `${counted(dialogue.assistantTurns, "assistant reply", "assistant replies")}, ${counted(dialogue.toolCalls, "tool call")} shown as one line each; ` +
      "tool output, reasoning and injected context were left out.",
  ];
  const unreadable = stats.skipped + stats.oversized;
  if (unreadable > 0) notes.push(`${counted(unreadable, "unreadable or oversized transcript line")} skipped.`);
  if (dialogue.droppedChars > 0) {
    notes.push(`The rendered session was too large to keep whole; ${formatCount(dialogue.droppedChars)} characters from its middle were dropped.`);
  }
  return notes;
}

