import { TopLevelIdScanner, type MessageId } from "./id-scan.js";

const NEWLINE = 0x0a;

/** A finished line: its text (without the newline or a CR before it), or, past the limit, only its size and id. */
export type LineEvent = { kind: "line"; text: string } | { kind: "too_long"; bytes: number; id: MessageId | null };

/**
 * Splits a byte stream into newline-ended lines, holding at most `maxBytes` of any one
 * line. A longer line is not buffered: its bytes are only scanned for the message's id as
 * they pass, and it ends as a `too_long` event at its newline, so the next line is read
 * as usual. Memory stays at the limit plus one chunk, however long the line.
 */
export class BoundedLines {
  private parts: Buffer[] = [];
  /** Bytes of the current line so far, buffered or skipped. */
  private size = 0;
  /** Set once the current line passed the limit. */
  private skipping: TopLevelIdScanner | null = null;

  constructor(private readonly maxBytes: number) {}

  /** The lines this chunk finished, in order. */
  push(chunk: Buffer): LineEvent[] {
    const events: LineEvent[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return events;
      events.push(this.endLine());
      start = newline + 1;
    }
  }

  /** Bytes of a line begun but not ended. */
  get pending(): number {
    return this.size;
  }

  /** Bytes held in memory for the current line (never more than the limit). */
  get buffered(): number {
    return this.skipping ? 0 : this.size;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.skipping) return this.skipping.feed(piece);
    if (this.size <= this.maxBytes) return void this.parts.push(piece);
    this.skipping = new TopLevelIdScanner();
    for (const part of this.parts) this.skipping.feed(part);
    this.skipping.feed(piece);
    this.parts = [];
  }

  private endLine(): LineEvent {
    const event: LineEvent = this.skipping
      ? { kind: "too_long", bytes: this.size, id: this.skipping.id() }
      : { kind: "line", text: Buffer.concat(this.parts, this.size).toString("utf8").replace(/\r$/, "") };
    this.parts = [];
    this.size = 0;
    this.skipping = null;
    return event;
  }
}
