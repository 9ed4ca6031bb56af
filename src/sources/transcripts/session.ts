import { excludingFolder, exclusionDetail } from "../../privacy/exclude.js";
import { unavailable } from "../errors.js";
import type { TranscriptFormat } from "../model.js";
import { ClaudeReader } from "./claude.js";
import { CodexReader } from "./codex.js";
import { DialogueWriter, type TranscriptInfo, type Turn } from "./dialogue.js";
import type { JsonObject } from "./lines.js";

/**
 * Either agent's reader behind one shape. A line yields `primary` turns (Claude's
 * messages, Codex's response items) and `fallback` turns (Codex's UI events, which
 * repeat the items and are used only where the items hold no conversation).
 */
export interface SessionTurns {
  primary: Turn[];
  fallback: Turn[];
}

export interface SessionReader {
  readonly info: TranscriptInfo;
  read(line: JsonObject): SessionTurns;
}

/**
 * The reader for `format`. With `exclude` (`privacy.exclude`'s folders) it stops at the
 * first line that names a cwd inside one of them: the session is not read past it.
 */
export function sessionReader(format: TranscriptFormat, exclude?: readonly string[]): SessionReader {
  const reader = formatReader(format);
  if (!exclude || exclude.length === 0) return reader;
  return {
    info: reader.info,
    read: (line) => {
      const turns = reader.read(line);
      const cwd = reader.info.cwd;
      const folder = cwd === undefined ? null : excludingFolder(cwd, exclude);
      if (folder !== null) throw unavailable(exclusionDetail(cwd!, folder));
      return turns;
    },
  };
}

function formatReader(format: TranscriptFormat): SessionReader {
  if (format === "claude") {
    const claude = new ClaudeReader();
    return { info: claude.info, read: (line) => ({ primary: claude.read(line), fallback: [] }) };
  }
  const codex = new CodexReader();
  return {
    info: codex.info,
    read: (line) => {
      const turns = codex.read(line);
      return { primary: turns.fromItems, fallback: turns.fromEvents };
    },
  };
}

/** Enough to head the rendered session: which session, where it ran. */
export function identityKnown(info: TranscriptInfo): boolean {
  return info.sessionId !== undefined && info.cwd !== undefined;
}

/** Whether the fallback turns stand in for the primary ones: only where the primary hold no prompt or reply. */
export function fallbackWins(primary: TurnCounts, fallback: TurnCounts): boolean {
  return primary.user + primary.assistant === 0 && fallback.user + fallback.assistant + fallback.tool > 0;
}

export interface TurnCounts {
  user: number;
  assistant: number;
  tool: number;
}

/** Renders both streams of turns as they arrive; `chosen` is the one that holds the conversation. */
export class SessionDialogue {
  private readonly primary: DialogueWriter;
  private readonly fallback: DialogueWriter;

  constructor(maxChars: number) {
    this.primary = new DialogueWriter(maxChars);
    this.fallback = new DialogueWriter(maxChars);
  }

  add(turns: SessionTurns): void {
    for (const turn of turns.primary) this.primary.add(turn);
    for (const turn of turns.fallback) this.fallback.add(turn);
  }

  get chosen(): DialogueWriter {
    return fallbackWins(countsOf(this.primary), countsOf(this.fallback)) ? this.fallback : this.primary;
  }
}

function countsOf(writer: DialogueWriter): TurnCounts {
  return { user: writer.userTurns, assistant: writer.assistantTurns, tool: writer.toolCalls };
}
