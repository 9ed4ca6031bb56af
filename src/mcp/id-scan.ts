/** A JSON-RPC request id as MCP allows it: a string or an integer. */
export type MessageId = string | number;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
/** Longer than any id a client sends (a UUID is 38 bytes quoted); a longer value is not read. */
const MAX_ID_BYTES = 256;

/** Whether a parsed value is an id this server echoes. */
export function isMessageId(value: unknown): value is MessageId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/**
 * Finds the top-level `"id"` of a JSON object fed to it in pieces, keeping only the id's
 * own bytes: a message too long to read is still answered under its id. The SDK's client
 * writes `id` as the last member, so the whole message is scanned when need be. Strings,
 * escapes and nesting are tracked exactly; an `"id"` inside params is not the message's.
 */
export class TopLevelIdScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1, the next string is a member name. */
  private expectName = false;
  /** A member name at depth 1 is being read; `name` holds its first bytes (an escape spoils it). */
  private readingName = false;
  private name = "";
  private nameIsId = false;
  /** The id's value being read, or null. */
  private value: number[] | null = null;
  /** The id once known; null when the message has none that can be read. */
  private result: MessageId | null | undefined = undefined;

  feed(bytes: Buffer): void {
    // Where the next quote and backslash are, found natively and only when passed: the
    // inside of a long string (what makes a message long) is skipped without a byte loop.
    let quote = -1;
    let backslash = -1;
    for (let i = 0; i < bytes.length && this.result === undefined; i++) {
      if (this.inString && !this.escaped && !this.readingName && this.value === null) {
        if (quote < i) quote = bytes.indexOf(QUOTE, i);
        if (backslash < i) backslash = bytes.indexOf(BACKSLASH, i);
        if (quote === -1) quote = bytes.length;
        if (backslash === -1) backslash = bytes.length;
        i = Math.min(quote, backslash);
        if (i === bytes.length) return;
      }
      this.step(bytes[i]!);
    }
  }

  /** The message's id, or null when none could be read (yet). */
  id(): MessageId | null {
    return this.result ?? null;
  }

  private step(byte: number): void {
    if (this.value !== null) {
      if (!this.inString && this.depth === 1 && (byte === COMMA || byte === CLOSE_OBJECT)) return this.settle();
      if (this.value.length >= MAX_ID_BYTES) return void (this.result = null);
      this.value.push(byte);
    }
    if (this.inString) return this.stringStep(byte);
    switch (byte) {
      case QUOTE:
        this.inString = true;
        this.readingName = this.depth === 1 && this.expectName;
        this.name = "";
        return;
      case OPEN_OBJECT:
      case OPEN_ARRAY:
        // A message is an object; anything else (a batch, a scalar) has no id to read.
        if (this.depth === 0 && byte !== OPEN_OBJECT) return void (this.result = null);
        this.depth++;
        if (this.depth === 1) this.expectName = true;
        return;
      case CLOSE_OBJECT:
      case CLOSE_ARRAY:
        this.depth--;
        if (this.depth === 0) this.result = null;
        return;
      case COMMA:
        if (this.depth === 1) this.expectName = true;
        return;
      case COLON:
        if (this.depth === 1 && this.nameIsId) this.value = [];
        this.nameIsId = false;
        return;
      default:
        if (this.depth === 0 && !isWhitespace(byte)) this.result = null;
    }
  }

  private stringStep(byte: number): void {
    if (this.escaped) {
      this.escaped = false;
      return;
    }
    if (byte === BACKSLASH) {
      this.escaped = true;
      this.name = "\\";
      return;
    }
    if (byte === QUOTE) {
      this.inString = false;
      if (this.readingName) {
        this.nameIsId = this.name === "id";
        this.readingName = false;
        this.expectName = false;
      }
      return;
    }
    if (this.readingName && this.name.length < 3) this.name += String.fromCharCode(byte);
  }

  private settle(): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(this.value!).toString("utf8"));
    } catch {
      parsed = null;
    }
    this.result = isMessageId(parsed) ? parsed : null;
  }
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}
