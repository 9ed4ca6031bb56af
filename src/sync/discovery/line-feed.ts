import type { TranscriptLineReader } from "./identity.js";
import { MAX_LINE_LABEL, READ_LIMITS } from "./limits.js";
import { isBlank, LineSplitter, parseLenient, parseStrict, visitLinesBackward } from "./line-split.js";

/** A splitter that feeds a file's first lines to a reader until it knows the identity. */
export function headSplitter(reader: TranscriptLineReader): LineSplitter {
  return new LineSplitter(READ_LIMITS.maxLineBytes, {
    line(bytes, lineNumber) {
      if (isBlank(bytes)) return false;
      const parsed = parseStrict(bytes);
      if (typeof parsed === "string") {
        reader.noteHeadDamage(`line ${lineNumber} ${parsed}`);
        return false;
      }
      return reader.readHeadLine(parsed);
    },
    oversized(lineNumber) {
      reader.noteHeadDamage(`line ${lineNumber} is longer than ${MAX_LINE_LABEL}`);
    },
  });
}

/** Whether the head has been read far enough: a new line is not started past the bound. */
export function headExhausted(splitter: LineSplitter, bytesRead: number): boolean {
  if (splitter.done) return true;
  if (bytesRead >= READ_LIMITS.headBytes + READ_LIMITS.maxLineBytes) return true;
  return bytesRead >= READ_LIMITS.headBytes && !splitter.midLine;
}

/** Collects the newest activity time among the last few timestamped lines. */
export class ActivityScan {
  private newest: number | null = null;
  private counted = 0;

  constructor(private readonly reader: TranscriptLineReader) {}

  get latest(): number | null {
    return this.newest;
  }

  /**
   * Visits the region's lines from the end; returns how many bytes at its start were
   * left unvisited (see `visitLinesBackward`). A torn last line simply fails to parse.
   */
  scan(region: Buffer, startsAtLine: boolean): number {
    return visitLinesBackward(region, startsAtLine, (line) => this.visit(line));
  }

  private visit(line: Buffer): boolean {
    if (isBlank(line)) return false;
    const parsed = parseLenient(line);
    const time = parsed === null ? null : this.reader.readTailLine(parsed);
    if (time === null) return false;
    if (this.newest === null || time > this.newest) this.newest = time;
    return ++this.counted >= READ_LIMITS.activityLines;
  }
}
