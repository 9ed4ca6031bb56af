import { DialogueWriter, type Turn } from "./dialogue.js";
import { fallbackWins, type SessionTurns, type TurnCounts } from "./session.js";

/** Prompts and replies shown before new activity, so it reads in context without being re-ingested. */
const EARLIER_TEXT_TURNS = 3;
const EARLIER_CHARS = 4_000;
/** Turns held while reading up to the new part; tool lines come in runs, so some slack over the few kept. */
const HELD_TURNS = 200;

/** The last turns read before the new part of a session, both streams, bounded. */
export class EarlierTurns {
  private readonly primary: Turn[] = [];
  private readonly fallback: Turn[] = [];

  add(turns: SessionTurns): void {
    hold(this.primary, turns.primary);
    hold(this.fallback, turns.fallback);
  }

  /** The last few turns as a dialogue, or "" when there are none. */
  render(): string {
    const turns = fallbackWins(countTurns(this.primary), countTurns(this.fallback)) ? this.fallback : this.primary;
    const writer = new DialogueWriter(EARLIER_CHARS * 2);
    for (const turn of lastTurns(turns)) writer.add(turn);
    return writer.toString();
  }
}

function hold(held: Turn[], turns: Turn[]): void {
  held.push(...turns);
  if (held.length > HELD_TURNS) held.splice(0, held.length - HELD_TURNS);
}

/** The latest turns back to the third prompt or reply, within the character bound; a long latest one keeps its end. */
function lastTurns(turns: Turn[]): Turn[] {
  const kept: Turn[] = [];
  let chars = 0;
  let texts = 0;
  for (let index = turns.length - 1; index >= 0 && texts < EARLIER_TEXT_TURNS; index -= 1) {
    const turn = turns[index]!;
    const size = turn.role === "tool" ? turn.line.length : turn.text.length;
    if (kept.length > 0 && chars + size > EARLIER_CHARS) break;
    kept.unshift(size > EARLIER_CHARS ? tailOf(turn) : turn);
    chars += Math.min(size, EARLIER_CHARS);
    if (turn.role !== "tool") texts += 1;
  }
  return kept;
}

function tailOf(turn: Turn): Turn {
  if (turn.role === "tool") return turn;
  return { role: turn.role, text: `… ${turn.text.slice(-EARLIER_CHARS).trimStart()}` };
}

function countTurns(turns: Turn[]): TurnCounts {
  const counts = { user: 0, assistant: 0, tool: 0 };
  for (const turn of turns) counts[turn.role] += 1;
  return counts;
}
