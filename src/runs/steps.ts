import type { RunEvent } from "./model.js";

/** A log line as people read it: consecutive text merged, tool calls paired with their results. */
export interface RunStep {
  sequence: number;
  timestamp: number;
  kind: "assistant" | "tool" | "status" | "error" | "agent" | "warning";
  title: string;
  body?: string;
  detail?: string;
  actor?: string;
  tool?: string;
  target?: string;
  status?: string;
  input?: string;
  output?: unknown;
  error: boolean;
}

interface HarnessPayload {
  kind?: string;
  message?: string;
  status?: string;
  actor?: { label?: string };
  tool_id?: string;
  tool_name?: string;
  tool_input?: string;
  tool_display?: {
    kind?: string;
    title?: string;
    path?: string;
    command?: string;
    status?: string;
    exit_code?: number;
    duration_ms?: number;
    summary?: string;
  };
  tool_result?: unknown;
  tool_is_error?: boolean;
  provider_session_id?: string;
  failure?: { message?: string; fix?: string };
  agent_trace?: { prompt?: string; result?: string };
}

/**
 * Projects events into steps. A follower that projects batch after batch passes the same
 * `tools` memory each time, so a result whose call came in an earlier batch still names
 * its tool and target.
 */
export function projectSteps(events: RunEvent[], tools: Map<string, RunStep> = new Map()): RunStep[] {
  const steps: RunStep[] = [];
  for (const event of events) {
    const at: At = { sequence: event.seq, timestamp: event.createdAt };
    if (isHarness(event.payload)) projectHarnessEvent(steps, tools, event.payload, at);
    else projectRunEvent(steps, event, at);
  }
  return steps;
}

/** Where a step sits in the run: the sequence and time of its (latest) event. */
interface At {
  sequence: number;
  timestamp: number;
}

/** An event the run itself recorded (status, message, error, warning), not the agent. */
function projectRunEvent(steps: RunStep[], event: RunEvent, at: At): void {
  if (event.kind === "error") pushError(steps, { ...at, kind: "error", title: "Error", body: event.message, error: true });
  else if (event.kind === "warning") steps.push({ ...at, kind: "warning", title: "Warning", body: event.message, error: false });
  else if (event.kind === "status") pushStatus(steps, { ...at, kind: "status", title: titleCase(event.message), body: event.message, error: false });
  else steps.push({ ...at, kind: "status", title: sentence(event.message), error: false });
}

/** An event the agent's harness reported, one projection per harness event kind. */
function projectHarnessEvent(steps: RunStep[], tools: Map<string, RunStep>, h: HarnessPayload, at: At): void {
  switch (h.kind) {
    case "text":
    case "text_delta":
      return projectText(steps, h, at);
    case "tool_use":
      return projectToolUse(steps, tools, h, at);
    case "tool_result":
    case "tool_summary":
      return projectToolResult(steps, tools, h, at);
    case "agent_spawned":
    case "agent_wait_started":
    case "agent_completed":
      return projectAgent(steps, h.kind, h, at);
    case "error": {
      const step: RunStep = { ...at, kind: "error", title: "Error", body: h.failure?.message ?? h.message ?? "", error: true };
      if (h.failure?.fix) step.detail = h.failure.fix;
      return pushError(steps, step);
    }
    case "warning":
      steps.push({ ...at, kind: "warning", title: "Warning", body: h.message ?? "", error: false });
      return;
    case "done":
      if (h.failure) pushError(steps, { ...at, kind: "error", title: "Error", body: h.failure.message ?? h.message ?? "", error: true });
      else steps.push({ ...at, kind: "status", title: "Done", body: h.message ?? "", error: false });
      return;
    case "provider_session":
      if (h.provider_session_id) steps.push({ ...at, kind: "status", title: "Session", body: h.provider_session_id, error: false });
      return;
    default:
      return;
  }
}

/** Consecutive text of the same actor merges into one assistant step. */
function projectText(steps: RunStep[], h: HarnessPayload, at: At): void {
  const actor = h.actor?.label ?? "Assistant";
  const last = steps[steps.length - 1];
  if (last && last.kind === "assistant" && last.actor === actor) {
    last.body = joinText(last.body ?? "", h.message ?? "");
    last.sequence = at.sequence;
    last.timestamp = at.timestamp;
  } else {
    steps.push({ ...at, kind: "assistant", title: actor, actor, body: h.message ?? "", error: false });
  }
}

/** A tool call starts a tool step, remembered by tool id for its result. */
function projectToolUse(steps: RunStep[], tools: Map<string, RunStep>, h: HarnessPayload, at: At): void {
  const d = h.tool_display ?? {};
  const step: RunStep = {
    ...at,
    kind: "tool",
    title: d.title ?? h.tool_name ?? "Tool",
    tool: d.kind?.replace(/_/g, " ") ?? h.tool_name ?? "tool",
    status: d.status ?? "started",
    error: false,
  };
  const target = d.path ?? d.command;
  if (target) step.target = target;
  const detail = [d.path, d.command, d.exit_code !== undefined ? `exit ${d.exit_code}` : undefined, d.duration_ms !== undefined ? `${d.duration_ms}ms` : undefined]
    .filter((p): p is string => p !== undefined)
    .join(" · ");
  if (detail) step.detail = detail;
  if (h.tool_input) step.input = h.tool_input;
  steps.push(step);
  if (h.tool_id) tools.set(h.tool_id, step);
}

/**
 * A result (or summary) completes its call's step: in place when the call is in this batch,
 * as a copy when it came in an earlier one, or as a new step when the call is unknown.
 */
function projectToolResult(steps: RunStep[], tools: Map<string, RunStep>, h: HarnessPayload, at: At): void {
  let step = h.tool_id ? tools.get(h.tool_id) : undefined;
  if (step && !steps.includes(step)) {
    step = { ...step, ...at };
    steps.push(step);
  } else if (!step) {
    step = { ...at, kind: "tool", title: h.tool_name ?? "Tool", tool: h.tool_name ?? "tool", error: false };
    steps.push(step);
  }
  if (h.tool_id) tools.set(h.tool_id, step);
  step.sequence = at.sequence;
  step.timestamp = at.timestamp;
  step.status = h.tool_display?.status ?? (h.tool_is_error ? "failed" : "completed");
  step.error = step.status === "failed";
  if (h.tool_result !== undefined) step.output = h.tool_result;
  const summary = h.tool_display?.summary ?? preview(h.tool_result);
  if (summary) step.body = summary;
}

const AGENT_STEPS = {
  agent_spawned: { title: "Agent started", status: "started" },
  agent_wait_started: { title: "Waiting for agent", status: "waiting" },
  agent_completed: { title: "Agent finished", status: "completed" },
} as const;

function projectAgent(steps: RunStep[], kind: keyof typeof AGENT_STEPS, h: HarnessPayload, at: At): void {
  const { title, status } = AGENT_STEPS[kind];
  const step: RunStep = { ...at, kind: "agent", title, status, error: false, body: h.agent_trace?.result ?? h.message ?? "" };
  if (h.agent_trace?.prompt) step.detail = h.agent_trace.prompt;
  steps.push(step);
}

function isHarness(payload: unknown): payload is HarnessPayload {
  return typeof payload === "object" && payload !== null && typeof (payload as HarnessPayload).kind === "string";
}

/**
 * One failure is often reported three times (the agent's error, its final `done`, the
 * run's error with the fix); consecutive errors that repeat or extend each other merge.
 */
function pushError(steps: RunStep[], step: RunStep): void {
  const last = steps[steps.length - 1];
  const body = step.body ?? "";
  if (last?.kind === "error" && last.body !== undefined && body.includes(last.body)) {
    last.body = body;
    last.sequence = step.sequence;
    last.timestamp = step.timestamp;
    if (step.detail) last.detail = step.detail;
    return;
  }
  steps.push(step);
}

/** The agent's own `done` and the run's final status say the same thing: one "Done" is shown. */
function pushStatus(steps: RunStep[], step: RunStep): void {
  const last = steps[steps.length - 1];
  if (last?.kind === "status" && last.title === "Done" && step.title === "Done") {
    last.sequence = step.sequence;
    last.timestamp = step.timestamp;
    return;
  }
  steps.push(step);
}

function sentence(message: string): string {
  return message.charAt(0).toUpperCase() + message.slice(1);
}

function titleCase(message: string): string {
  return message
    .replace(/[_-]/g, " ")
    .split(/\s+/)
    .filter((w) => w !== "")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");
}

function joinText(a: string, b: string): string {
  if (a === "") return b;
  return a.endsWith("\n") || b.startsWith("\n") ? a + b : `${a}\n${b}`;
}

function preview(result: unknown): string | undefined {
  if (result === undefined || result === null) return undefined;
  const text = typeof result === "string" ? result : JSON.stringify(result);
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  return trimmed.length > 280 ? `${trimmed.slice(0, 279)}…` : trimmed;
}
