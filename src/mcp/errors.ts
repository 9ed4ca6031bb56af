import { isProductError, oneLine } from "../core/errors.js";

/** JSON-RPC error codes this server answers with. */
export const PROTOCOL = {
  /** A line that is not JSON. */
  parseError: -32700,
  /** JSON that is not a JSON-RPC message this server reads: another version, a batch, a line too long. */
  invalidRequest: -32600,
  invalidParams: -32602,
  internal: -32603,
  /** MCP's code for a resource that does not exist. */
  resourceNotFound: -32002,
} as const;

/**
 * A failed request (as opposed to a tool's error result). The SDK sends any thrown error
 * with a numeric `code` as a JSON-RPC error with that code and this message, which stays
 * one clean line (the SDK's own McpError prefixes it with "MCP error <code>:").
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message.replace(/\s*\n\s*/g, " "));
    this.name = "ProtocolError";
  }
}

/** A product error as the matching protocol error; anything else is logged and reported as internal. */
export function protocolError(error: unknown, log: (line: string) => void, what: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (isProductError(error)) {
    const invalid = error.code === "validation_failed" || error.code === "usage";
    return new ProtocolError(invalid ? PROTOCOL.invalidParams : PROTOCOL.resourceNotFound, oneLine(error));
  }
  log(`codealmanac mcp: ${what} failed: ${error instanceof Error ? (error.stack ?? error.message) : oneLine(error)}`);
  return new ProtocolError(PROTOCOL.internal, `internal error: ${oneLine(error)}`);
}
