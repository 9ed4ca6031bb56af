import type { TranscriptByteRange, TranscriptFormat } from "../model.js";
import { formatCount } from "../text.js";
import { renderTranscriptHeader, type TranscriptInfo } from "./dialogue.js";
import { EarlierTurns } from "./earlier.js";
import { countEntry, newJsonlStats, readJsonlEntries, readJsonlObjects } from "./lines.js";
import { NO_DIALOGUE, renderNotes, renderTranscript, type RenderedTranscript, type RenderOptions } from "./render.js";
import { identityKnown, SessionDialogue, sessionReader, type SessionReader } from "./session.js";

/** How far before the new part the earlier turns are looked for. */
const EARLIER_WINDOW_BYTES = 256 * 1024;
/** Bound on the start read for the session's identity; Codex's first line alone can be tens of kilobytes. */
const IDENTITY_BYTES = 4 * 1024 * 1024;

export interface RenderedRange extends RenderedTranscript {
  /** False when the file no longer reaches the range and the whole transcript was rendered instead. */
  partial: boolean;
}

/**
 * Renders the part of a session in `range` (the activity since it was last ingested),
 * after a few earlier turns for context and under the session's identity, read from
 * the file's start. Reads in constant memory: the start up to the identity, then the
 * bytes from a little before the range to its end.
 */
export async function renderTranscriptRange(
  path: string,
  format: TranscriptFormat,
  range: TranscriptByteRange,
  options: RenderOptions,
): Promise<RenderedRange> {
  const earlierFrom = Math.max(0, range.fromByte - EARLIER_WINDOW_BYTES);
  const reader = sessionReader(format, options.exclude);
  // Only lines before the earlier window, so the Claude reader never sees a line twice (it drops repeats).
  await readIdentity(reader, path, Math.min(earlierFrom, IDENTITY_BYTES), options);
  const read = await readAroundRange(reader, path, range, earlierFrom, options);
  if (read.endByte < range.fromByte) return wholeInstead(path, format, range, options);
  const dialogue = read.session.chosen;
  const earlierText = read.earlier.render();
  return {
    info: reader.info,
    text: rangeText(reader.info, path, range, earlierText, dialogue.isEmpty ? NO_NEW_DIALOGUE : dialogue.toString()),
    notes: [rangeNote(range, earlierText !== ""), ...renderNotes(dialogue, read.stats)],
    partial: true,
  };
}

/** One pass from the earlier window to the range's end; lines are told apart by where they start. */
async function readAroundRange(reader: SessionReader, path: string, range: TranscriptByteRange, earlierFrom: number, options: RenderOptions) {
  const earlier = new EarlierTurns();
  const session = new SessionDialogue(options.maxChars);
  const stats = newJsonlStats();
  const streamStats = newJsonlStats();
  const window = { maxLineBytes: options.maxLineBytes, fromByte: earlierFrom, toByte: range.toByte, seekLineStart: true, signal: options.signal };
  for await (const entry of readJsonlEntries(path, window, streamStats)) {
    const turns = entry.object ? reader.read(entry.object) : { primary: [], fallback: [] };
    if (entry.offset < range.fromByte) {
      earlier.add(turns);
      continue;
    }
    countEntry(entry, stats);
    session.add(turns);
  }
  return { earlier, session, stats, endByte: streamStats.endByte };
}

const NO_NEW_DIALOGUE = NO_DIALOGUE.replace("this transcript", "the new part");

async function readIdentity(reader: SessionReader, path: string, toByte: number, options: RenderOptions): Promise<void> {
  if (toByte <= 0) return;
  for await (const line of readJsonlObjects(path, { maxLineBytes: options.maxLineBytes, toByte, signal: options.signal })) {
    reader.read(line);
    if (identityKnown(reader.info)) return;
  }
}

/** A transcript rewritten or truncated since the range was taken: its offsets mean nothing now. */
async function wholeInstead(path: string, format: TranscriptFormat, range: TranscriptByteRange, options: RenderOptions): Promise<RenderedRange> {
  const whole = await renderTranscript(path, format, options);
  const note =
    `The transcript is now shorter than the start of the new part (byte ${formatCount(range.fromByte)}); ` +
    "it was rewritten or truncated since, so the whole transcript is shown, parts of it perhaps ingested before.";
  return { ...whole, notes: [note, ...whole.notes], partial: false };
}

function rangeText(info: TranscriptInfo, path: string, range: TranscriptByteRange, earlier: string, dialogue: string): string {
  const sections = [`${renderTranscriptHeader(info, path)}\n- Part: ${partLine(range)}`, partIntro(range)];
  if (earlier !== "") sections.push(`## Earlier in this session (context only, already ingested)\n\n${earlier}`);
  sections.push(`## New activity since the last sync\n\n${dialogue}`);
  return `${sections.join("\n\n")}\n`;
}

function partLine(range: TranscriptByteRange): string {
  const bytes = `bytes ${formatCount(range.fromByte)}–${formatCount(range.toByte)}`;
  return range.fromByte === 0 ? `the session from its start (${bytes})` : `new activity since the last sync (${bytes})`;
}

function partIntro(range: TranscriptByteRange): string {
  if (range.fromByte === 0) return "This is the session from its start up to the last sync; none of it was ingested before.";
  return (
    "This is only the new part of the session since it was last ingested; what came before was ingested then. " +
    "Record only new durable knowledge that this part establishes."
  );
}

function rangeNote(range: TranscriptByteRange, withEarlier: boolean): string {
  const bytes = `transcript bytes ${formatCount(range.fromByte)}–${formatCount(range.toByte)}`;
  if (range.fromByte === 0) return `Only ${bytes}: the session from its start up to the last sync.`;
  const context = withEarlier ? "; a few earlier turns are shown before it as context, already ingested" : "";
  return `Only the new activity since the last sync: ${bytes}${context}.`;
}
