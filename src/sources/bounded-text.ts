import { formatCount } from "./text.js";

/**
 * Text built piece by piece with a memory ceiling: past `limit` characters it keeps the
 * first half and the most recent half, and says how much of the middle was dropped.
 * Material is cut to the prompt budget later; this only keeps a pathological source
 * (a transcript of hundreds of megabytes) from exhausting memory on the way.
 */
export class BoundedText {
  private head = "";
  private tail: string[] = [];
  private tailChars = 0;
  private total = 0;

  constructor(private readonly limit: number) {}

  append(piece: string): void {
    this.total += piece.length;
    const headRoom = Math.floor(this.limit / 2) - this.head.length;
    if (this.tail.length === 0 && headRoom > 0) {
      this.head += piece.slice(0, headRoom);
      piece = piece.slice(headRoom);
      if (piece === "") return;
    }
    this.tail.push(piece);
    this.tailChars += piece.length;
    this.trimTail();
  }

  get totalChars(): number {
    return this.total;
  }

  get droppedChars(): number {
    return this.total - this.head.length - this.tailChars;
  }

  toString(): string {
    const tail = this.tail.join("");
    if (this.droppedChars === 0) return this.head + tail;
    return `${this.head}\n\n[… ${formatCount(this.droppedChars)} characters dropped from the middle …]\n\n${tail}`;
  }

  private trimTail(): void {
    const keep = this.limit - Math.floor(this.limit / 2);
    while (this.tailChars > keep && this.tail.length > 0) {
      const first = this.tail[0]!;
      const excess = this.tailChars - keep;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailChars -= first.length;
      } else {
        this.tail[0] = first.slice(excess);
        this.tailChars -= excess;
      }
    }
  }
}
