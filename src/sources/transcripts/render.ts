import type { TranscriptFormat } from "../model.js";
import { counted, formatCount } from "../text.js";
import { renderTranscriptHeader, type DialogueWriter, type TranscriptInfo } from "./dialogue.js";
import { newJsonlStats, readJsonlObjects, type JsonlStats } from "./lines.js";
import { SessionDialogue, sessionReader } from "./session.js";

export interface RenderOptions {
  maxLineBytes: number;
  /** Ceiling on the rendered text held in memory. */
  maxChars: number;
  signal?: AbortSignal;
  /** `privacy.exclude`'s folders: a session that ran in one is refused at its first line naming the cwd. */
  exclude?: readonly string[];
}

export interface RenderedTranscript {
  info: TranscriptInfo;
  /** Header and dialogue, as Markdown. */
  text: string;
  notes: string[];
}

export const NO_DIALOGUE = "(no user prompts or assistant replies in this transcript)";

/** Streams a transcript file and renders it as a readable dialogue. */
export async function renderTranscript(path: string, format: TranscriptFormat, options: RenderOptions): Promise<RenderedTranscript> {
  const stats = newJsonlStats();
  const reader = sessionReader(format, options.exclude);
  const session = new SessionDialogue(options.maxChars);
  for await (const line of readJsonlObjects(path, { maxLineBytes: options.maxLineBytes, signal: options.signal }, stats)) session.add(reader.read(line));
  const dialogue = session.chosen;
  const body = dialogue.isEmpty ? NO_DIALOGUE : dialogue.toString();
  return {
    info: reader.info,
    text: `${renderTranscriptHeader(reader.info, path)}\n\n${body}\n`,
    notes: renderNotes(dialogue, stats),
  };
}

/** What the dialogue was condensed from, and what was lost on the way. */
export function renderNotes(dialogue: DialogueWriter, stats: JsonlStats): string[] {
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
