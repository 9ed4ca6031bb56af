/**
 * The normalized harness event: what every agent adapter emits,
 * whatever the provider, and what the run ledger stores as `harness_event`.
 *
 * The TypeScript types are what adapters produce. `events-schema.ts` holds the
 * tolerant schema for reading events back; it lives apart so that running an agent
 * never loads the validation library.
 */

export { HARNESS_KINDS, type HarnessKind } from "./catalog.js";
import type { HarnessKind } from "./catalog.js";

export const HARNESS_RUN_STATUSES = ["succeeded", "failed", "cancelled"] as const;
export type HarnessRunStatus = (typeof HARNESS_RUN_STATUSES)[number];

/** The 20 provider-neutral kinds, then the 3 CodeAlmanac synthesizes for helper agents. */
export const HARNESS_EVENT_KINDS = [
  "text_delta",
  "text",
  "tool_use",
  "tool_result",
  "tool_summary",
  "tool_request",
  "approval_request",
  "user_input_request",
  "request_resolved",
  "context_usage",
  "provider_session",
  "warning",
  "error",
  "done",
  "hook",
  "rate_limit",
  "goal_updated",
  "goal_cleared",
  "stream_event",
  "unknown",
  "agent_spawned",
  "agent_wait_started",
  "agent_completed",
] as const;
export type HarnessEventKind = (typeof HARNESS_EVENT_KINDS)[number];

export const ACTOR_ROLES = ["root", "helper", "unknown"] as const;
export type HarnessActorRole = (typeof ACTOR_ROLES)[number];

export const ACTOR_CONFIDENCES = ["provider", "derived", "unknown"] as const;
export type HarnessActorConfidence = (typeof ACTOR_CONFIDENCES)[number];

export const TOOL_DISPLAY_KINDS = [
  "read",
  "write",
  "edit",
  "search",
  "shell",
  "mcp",
  "web",
  "agent",
  "image",
  "unknown",
] as const;
export type ToolDisplayKind = (typeof TOOL_DISPLAY_KINDS)[number];

export const TOOL_DISPLAY_STATUSES = ["started", "completed", "failed", "declined"] as const;
export type ToolDisplayStatus = (typeof TOOL_DISPLAY_STATUSES)[number];

export interface HarnessActor {
  thread_id?: string;
  role: HarnessActorRole;
  parent_thread_id?: string;
  label?: string;
  confidence: HarnessActorConfidence;
}

export interface HarnessToolDisplay {
  kind?: ToolDisplayKind;
  title?: string;
  path?: string;
  command?: string;
  cwd?: string;
  status?: ToolDisplayStatus;
  exit_code?: number;
  duration_ms?: number;
  summary?: string;
  provider_thread_id?: string;
  provider_turn_id?: string;
}

export interface HarnessUsage {
  input_tokens?: number;
  cached_input_tokens?: number;
  output_tokens?: number;
  reasoning_output_tokens?: number;
  total_tokens?: number;
  total_processed_tokens?: number;
  max_tokens?: number;
}

/** Failure as carried on an event; `code` is optional here, unlike `HarnessFailure`. */
export interface HarnessEventFailure {
  provider: HarnessKind;
  message: string;
  fix?: string;
  code?: string;
  raw?: unknown;
  details?: Record<string, unknown>;
}

export interface HarnessAgentTrace {
  parent_thread_id?: string;
  child_thread_id?: string;
  child_thread_ids: string[];
  prompt?: string;
  model?: string;
  reasoning_effort?: string;
  result?: string;
}

export interface HarnessEvent {
  kind: HarnessEventKind;
  /** Non-blank, human-readable: `Read src/totals.ts`, `Bash: git status`. */
  message: string;
  status?: HarnessRunStatus;
  actor?: HarnessActor;
  tool_id?: string;
  tool_name?: string;
  /** The tool input as readable text (a JSON string for structured inputs). */
  tool_input?: string;
  tool_display?: HarnessToolDisplay;
  tool_result?: unknown;
  tool_is_error?: boolean;
  usage?: HarnessUsage;
  provider_session_id?: string;
  provider_event_id?: string;
  provider_parent_tool_use_id?: string;
  source_thread_id?: string;
  source_turn_id?: string;
  source_role?: HarnessActorRole;
  failure?: HarnessEventFailure;
  agent_trace?: HarnessAgentTrace;
  raw?: unknown;
}

// ---------------------------------------------------------------------------
// Harness event kind → run event kind.

export type RunEventKind = "tool" | "output" | "error";

const TOOL_KINDS: ReadonlySet<HarnessEventKind> = new Set<HarnessEventKind>([
  "tool_use",
  "tool_result",
  "tool_summary",
  "context_usage",
  "provider_session",
  "warning",
  "agent_spawned",
  "agent_wait_started",
  "agent_completed",
]);

/** The run event kind a harness event is stored as; `null` means drop it (`text_delta`). */
export function runEventKindFor(kind: HarnessEventKind): RunEventKind | null {
  if (kind === "text_delta") return null;
  if (kind === "error") return "error";
  if (TOOL_KINDS.has(kind)) return "tool";
  return "output";
}
