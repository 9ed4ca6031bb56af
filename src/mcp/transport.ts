import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { PROTOCOL } from "./errors.js";
import { BoundedLines, type LineEvent } from "./lines.js";
import { readMessage, type ParamsCheck, type Refusal } from "./messages.js";

const MIB = 1024 * 1024;

/**
 * The longest message the server reads: 1 MiB. What a client sends here is a method and a
 * few short arguments (the longest, `ingest`'s guidance, is prose); a megabyte is hundreds
 * of times that, and it bounds what one line costs in memory, since JSON.parse builds
 * several times the line's size in objects.
 */
export const MAX_MESSAGE_BYTES = MIB;

export interface LineTransportOptions {
  maxMessageBytes: number;
  /** The params check per request method (see `readMessage`). */
  requests: ReadonlyMap<string, ParamsCheck>;
}

/**
 * MCP's stdio transport, one JSON-RPC message per line, in place of the SDK's
 * `StdioServerTransport`. That one ends the whole connection (and the server exits 0)
 * when 10 MiB have gathered without a newline, and drops every line it cannot parse
 * without answering. Here a line over the limit is skipped as it streams and answered
 * with -32600, and a line that is not a valid message gets the JSON-RPC error for it;
 * either way the next line is read as usual.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly lines: BoundedLines;
  private closed = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: LineTransportOptions,
  ) {
    this.lines = new BoundedLines(options.maxMessageBytes);
  }

  async start(): Promise<void> {
    this.input.on("data", this.onData);
    this.input.on("error", this.onInputError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off("data", this.onData);
    this.input.off("error", this.onInputError);
    if (this.input.listenerCount("data") === 0) this.input.pause();
    if (this.lines.pending > 0) this.onerror?.(new Error(`input ended inside a message: ${this.lines.pending} bytes without a newline were not read`));
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    for (const event of this.lines.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk)) {
      if (this.closed) return;
      this.receive(event);
    }
  };

  private readonly onInputError = (error: Error): void => this.onerror?.(error);

  private receive(event: LineEvent): void {
    if (event.kind === "too_long") {
      const limit = this.options.maxMessageBytes;
      const mib = limit % MIB === 0 ? ` (${limit / MIB} MiB)` : "";
      return this.refuse({
        id: event.id,
        code: PROTOCOL.invalidRequest,
        message: `message too long: ${event.bytes} bytes, over this server's limit of ${limit} bytes${mib}; it was not read`,
      });
    }
    if (event.text.trim() === "") return;
    const read = readMessage(event.text, this.options.requests);
    if ("refusal" in read) return this.refuse(read.refusal);
    this.onmessage?.(read.message);
  }

  /** Answers a message the SDK never sees, and says so on the server's log. */
  private refuse({ id, code, message }: Refusal): void {
    this.onerror?.(new Error(`refused a message (${code}): ${message}`));
    void this.write({ jsonrpc: "2.0", id, error: { code, message } });
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once("drain", resolve);
    });
  }
}
