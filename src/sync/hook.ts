/**
 * The agents' own session-end hooks (installed by `setup`): Claude Code and Codex run a
 * command with a JSON payload on stdin when a session ends, `{session_id,
 * transcript_path, cwd, hook_event_name: "SessionEnd", reason}` (Codex's
 * `transcript_path` may be null). What the hook does with it is decided here; the hook
 * itself only records the request and detaches `sync --session`.
 */
import { EXECUTION_ENV } from "../queue/ports.js";

/** A payload is a few hundred bytes; anything past this is not one. */
export const PAYLOAD_LIMIT_BYTES = 64 * 1024;

export type SessionEndRequest =
  | { sync: true; target: string; sessionId: string | null; reason: string | null }
  | { sync: false; why: string };

/**
 * What to sync for a hook's payload: its transcript (else its session id), unless the
 * session is one of our own runs (the agent carries our execution marker in its
 * environment, and so does every hook it starts) or the payload is not a session end.
 */
export function sessionEndRequest(payload: string, env: NodeJS.ProcessEnv): SessionEndRequest {
  if (env[EXECUTION_ENV]) return { sync: false, why: `a session of a codealmanac run (${EXECUTION_ENV}=${env[EXECUTION_ENV]})` };
  let data: unknown;
  try {
    data = JSON.parse(payload);
  } catch {
    return { sync: false, why: `the payload is not JSON: ${JSON.stringify(payload.slice(0, 80))}` };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { sync: false, why: "the payload is not a JSON object" };
  const fields = data as Record<string, unknown>;
  const text = (key: string) => (typeof fields[key] === "string" && (fields[key] as string).trim() !== "" ? (fields[key] as string) : null);
  const event = text("hook_event_name");
  if (event !== null && event !== "SessionEnd") return { sync: false, why: `the event is ${event}, not SessionEnd` };
  const target = text("transcript_path") ?? text("session_id");
  if (target === null) return { sync: false, why: "the payload names neither a transcript_path nor a session_id" };
  return { sync: true, target, sessionId: text("session_id"), reason: text("reason") };
}
