import { isUtf8 } from "node:buffer";
import type { JsonObject } from "../../sources/transcripts/lines.js";

const NEWLINE = 0x0a;

export interface LineSink {
  /** One complete line, without its newline; returns true to stop reading. */
  line(bytes: Buffer, lineNumber: number): boolean;
  oversized(lineNumber: number): void;
}

/**
 * Cuts a stream of chunks into lines for a sink. A line longer than the limit is
 * reported and dropped, never buffered whole. The chunks may be reused by the caller
 * after `push`, so a partial line is copied.
 */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;
  private lineNumber = 0;
  private stopped = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
  ) {}

  get done(): boolean {
    return this.stopped;
  }

  /** True while a started line awaits its end. */
  get midLine(): boolean {
    return this.pendingBytes > 0 || this.skipping;
  }

  push(chunk: Buffer): boolean {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1 && !this.stopped; end = chunk.indexOf(NEWLINE, start)) {
      this.complete(chunk.subarray(start, end));
      start = end + 1;
    }
    if (!this.stopped && start < chunk.length) this.keep(chunk.subarray(start));
    return this.stopped;
  }

  /** The input ended: an unterminated last line is offered too (a torn one fails to parse). */
  end(): void {
    if (this.stopped || this.skipping || this.pendingBytes === 0) return;
    this.emit(this.takePending());
  }

  private complete(rest: Buffer): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    if (this.pendingBytes + rest.length > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.sink.oversized(++this.lineNumber);
      return;
    }
    if (this.pendingBytes === 0) {
      this.emit(rest);
      return;
    }
    this.pending.push(rest);
    this.emit(this.takePending());
  }

  private keep(part: Buffer): void {
    if (this.skipping) return;
    if (this.pendingBytes + part.length > this.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = true;
      this.sink.oversized(++this.lineNumber);
      return;
    }
    this.pending.push(Buffer.from(part));
    this.pendingBytes += part.length;
  }

  private takePending(): Buffer {
    const whole = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    return whole;
  }

  private emit(line: Buffer): void {
    if (this.sink.line(line, ++this.lineNumber)) this.stopped = true;
  }
}

/**
 * Visits the lines of `region` from the last to the first, until `visit` returns
 * true. The first segment is a whole line only when the region starts at one
 * (`startsAtLine`); otherwise it is left alone. Returns how many bytes at the start
 * of the region were not visited: 0 when every line was, else the offset of the
 * newline before the first visited line (the region's length when it has none).
 */
export function visitLinesBackward(region: Buffer, startsAtLine: boolean, visit: (line: Buffer) => boolean): number {
  let end = region.length;
  for (;;) {
    const newline = end === 0 ? -1 : region.lastIndexOf(NEWLINE, end - 1);
    if (newline === -1) {
      if (!startsAtLine) return end;
      if (end > 0) visit(region.subarray(0, end));
      return 0;
    }
    if (visit(region.subarray(newline + 1, end))) return newline;
    end = newline;
  }
}

export function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte > 0x20) return false;
  return true;
}

export type StrictParse = JsonObject | "is not valid UTF-8" | "is not a JSON object";

/** For identity lines: a cwd decoded with replacement characters would be wrong. */
export function parseStrict(line: Buffer): StrictParse {
  if (!isUtf8(line)) return "is not valid UTF-8";
  return parseObject(line.toString("utf8")) ?? "is not a JSON object";
}

/** For activity lines: damaged text elsewhere in a line does not spoil its timestamp. */
export function parseLenient(line: Buffer): JsonObject | null {
  return parseObject(line.toString("utf8"));
}

function parseObject(text: string): JsonObject | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}
