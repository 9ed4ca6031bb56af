import { execFileSync } from "node:child_process";

/** Builders for synthetic transcripts whose byte offsets the tests control. */

export const CLAUDE_SESSION = "44444444-4444-4444-8444-444444444444";
export const CODEX_SESSION = "019a1b2c-5555-7f00-8123-456789abcdef";

export interface ClaudeLineOptions {
  uuid: string;
  cwd?: string;
  version?: string;
  isSidechain?: boolean;
}

export function claudeLine(role: "user" | "assistant", text: string, options: ClaudeLineOptions): string {
  const content = role === "user" ? text : [{ type: "text", text }];
  return `${JSON.stringify({
    sessionId: CLAUDE_SESSION,
    cwd: options.cwd ?? "/home/dev/src/shop",
    version: options.version ?? "2.1.332",
    isSidechain: options.isSidechain ?? false,
    type: role,
    uuid: options.uuid,
    timestamp: "2026-11-20T08:00:00.000Z",
    message: { role, content },
  })}\n`;
}

export function claudeToolLine(uuid: string, command: string): string {
  return `${JSON.stringify({
    sessionId: CLAUDE_SESSION,
    cwd: "/home/dev/src/shop",
    type: "assistant",
    uuid,
    message: { role: "assistant", content: [{ type: "tool_use", id: uuid, name: "Bash", input: { command } }] },
  })}\n`;
}

/** A bookkeeping line Claude writes between turns, padded to about `bytes` bytes. */
export function claudeFiller(bytes: number): string {
  return `${JSON.stringify({ type: "progress", sessionId: CLAUDE_SESSION, data: "p".repeat(bytes) })}\n`;
}

export function codexMeta(cwd = "/home/dev/src/invoice-api"): string {
  return `${JSON.stringify({
    timestamp: "2026-11-29T21:01:05.000Z",
    type: "session_meta",
    payload: { id: CODEX_SESSION, timestamp: "2026-11-29T21:01:05.000Z", cwd, cli_version: "0.171.0", base_instructions: { text: "BASE" } },
  })}\n`;
}

/** A message as Codex records it: the response item and the UI event that repeats it. */
export function codexMessage(role: "user" | "assistant", text: string): string {
  const part = role === "user" ? "input_text" : "output_text";
  const item = { timestamp: "t", type: "response_item", payload: { type: "message", role, content: [{ type: part, text }] } };
  const event = { timestamp: "t", type: "event_msg", payload: { type: role === "user" ? "user_message" : "agent_message", message: text } };
  return `${JSON.stringify(item)}\n${JSON.stringify(event)}\n`;
}

export function codexCall(command: string): string {
  const item = { timestamp: "t", type: "response_item", payload: { type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: command }), call_id: "c" } };
  return `${JSON.stringify(item)}\n`;
}

/** Byte length as offsets count it. */
export function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

export const zstdAvailable = (() => {
  try {
    execFileSync("zstd", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Compresses `path` to `<path>.zst` with the zstd CLI, as Codex does for idle rollouts; the plain file stays. */
export function zstdCompress(path: string): string {
  execFileSync("zstd", ["-q", "-f", path, "-o", `${path}.zst`]);
  return `${path}.zst`;
}
