/**
 * Reading harness events back (from the ledger, from older or newer writers): a
 * tolerant schema — extra fields pass through and unknown vocabulary degrades to
 * `unknown` — so a newer writer never breaks an older reader.
 */
import { z } from "zod";
import {
  ACTOR_CONFIDENCES,
  ACTOR_ROLES,
  HARNESS_EVENT_KINDS,
  HARNESS_KINDS,
  HARNESS_RUN_STATUSES,
  TOOL_DISPLAY_KINDS,
  TOOL_DISPLAY_STATUSES,
  type HarnessEvent,
} from "./events.js";

const nonBlank = z.string().refine((value) => value.trim() !== "", { message: "must not be blank" });

/** A closed vocabulary that degrades to `fallback` for values a newer writer added. */
function openEnum<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  const known = new Set<string>(values);
  return z.string().transform((value): T[number] => (known.has(value) ? (value as T[number]) : fallback));
}

const count = z.number().finite().nonnegative();

const ActorSchema = z.looseObject({
  thread_id: nonBlank.optional(),
  role: openEnum(ACTOR_ROLES, "unknown"),
  parent_thread_id: nonBlank.optional(),
  label: nonBlank.optional(),
  confidence: openEnum(ACTOR_CONFIDENCES, "unknown"),
});

const ToolDisplaySchema = z.looseObject({
  kind: openEnum(TOOL_DISPLAY_KINDS, "unknown").optional(),
  title: nonBlank.optional(),
  path: nonBlank.optional(),
  command: nonBlank.optional(),
  cwd: nonBlank.optional(),
  // No `unknown` member to fall back to: an unrecognised status is dropped.
  status: z.enum(TOOL_DISPLAY_STATUSES).optional().catch(undefined),
  exit_code: z.number().int().optional(),
  duration_ms: count.optional(),
  summary: nonBlank.optional(),
  provider_thread_id: nonBlank.optional(),
  provider_turn_id: nonBlank.optional(),
});

const UsageSchema = z.looseObject({
  input_tokens: count.optional(),
  cached_input_tokens: count.optional(),
  output_tokens: count.optional(),
  reasoning_output_tokens: count.optional(),
  total_tokens: count.optional(),
  total_processed_tokens: count.optional(),
  max_tokens: count.optional(),
});

const FailureSchema = z.looseObject({
  provider: z.enum(HARNESS_KINDS),
  message: nonBlank,
  fix: nonBlank.optional(),
  code: nonBlank.optional(),
  raw: z.unknown().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

const AgentTraceSchema = z.looseObject({
  parent_thread_id: nonBlank.optional(),
  child_thread_id: nonBlank.optional(),
  child_thread_ids: z.array(z.string()).default([]),
  prompt: nonBlank.optional(),
  model: nonBlank.optional(),
  reasoning_effort: nonBlank.optional(),
  result: nonBlank.optional(),
});

export const HarnessEventSchema = z.looseObject({
  kind: nonBlank.pipe(openEnum(HARNESS_EVENT_KINDS, "unknown")),
  message: nonBlank,
  status: z.enum(HARNESS_RUN_STATUSES).optional(),
  actor: ActorSchema.optional(),
  tool_id: nonBlank.optional(),
  tool_name: nonBlank.optional(),
  tool_input: nonBlank.optional(),
  tool_display: ToolDisplaySchema.optional(),
  tool_result: z.unknown().optional(),
  tool_is_error: z.boolean().optional(),
  usage: UsageSchema.optional(),
  provider_session_id: nonBlank.optional(),
  provider_event_id: nonBlank.optional(),
  provider_parent_tool_use_id: nonBlank.optional(),
  source_thread_id: nonBlank.optional(),
  source_turn_id: nonBlank.optional(),
  source_role: openEnum(ACTOR_ROLES, "unknown").optional(),
  failure: FailureSchema.optional(),
  agent_trace: AgentTraceSchema.optional(),
  raw: z.unknown().optional(),
});

// The schema's output must stay usable wherever a HarnessEvent is expected.
type _SchemaMatchesType = z.output<typeof HarnessEventSchema> extends HarnessEvent ? true : never;
const _schemaMatchesType: _SchemaMatchesType = true;
void _schemaMatchesType;

/** Parse an event that crossed a boundary (ledger row, file); throws a ZodError when invalid. */
export function parseHarnessEvent(value: unknown): HarnessEvent {
  return HarnessEventSchema.parse(value);
}

