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
 * What a follower remembers from one batch of events to the next: tool calls by id (so a
 * result whose call came earlier still names its tool and target), and the failures
 * already shown (so a failure reported again later is not shown twice).
 */
export interface StepMemory {
  tools: Map<string, RunStep>;
  failures: string[];
}

export function stepMemory(): StepMemory {
  return { tools: new Map(), failures: [] };
}

/** Projects events into steps. A follower that projects batch after batch passes the same memory each time. */
export function projectSteps(events: RunEvent[], memory: StepMemory = stepMemory()): RunStep[] {
  const steps: RunStep[] = [];
  for (const event of events) {
    const at: At = { sequence: event.seq, timestamp: event.createdAt };
    if (isHarness(event.payload)) projectHarnessEvent(steps, memory, event.payload, at);
    else projectRunEvent(steps, memory, event, at);
  }
  return steps;
}

/**
 * Whether the agent is at work after these events, given whether it was before: it is once
 * it has reported anything, until its one terminal `done`. A follower says, while it
 * waits, whether the run waits for its agent or for the run's own phases around it.
 */
export function agentAtWork(events: RunEvent[], before: boolean): boolean {
  let atWork = before;
  for (const event of events) if (isHarness(event.payload)) atWork = event.payload.kind !== "done";
  return atWork;
}

/** Where a step sits in the run: the sequence and time of its (latest) event. */
interface At {
  sequence: number;
  timestamp: number;
}

/** An event the run itself recorded (status, message, error, warning), not the agent. */
function projectRunEvent(steps: RunStep[], memory: StepMemory, event: RunEvent, at: At): void {
  if (event.kind === "error") pushError(steps, memory, { ...at, kind: "error", title: "Error", body: event.message, error: true });
  else if (event.kind === "warning") steps.push({ ...at, kind: "warning", title: "Warning", body: event.message, error: false });
  else if (event.kind === "status") steps.push({ ...at, kind: "status", title: titleCase(event.message), body: event.message, error: false });
  else steps.push({ ...at, kind: "status", title: sentence(event.message), error: false });
}

/** The step of the agent's own successful end, before the run's closing steps. */
const AGENT_FINISHED = "Agent finished";

/** An event the agent's harness reported, one projection per harness event kind. */
function projectHarnessEvent(steps: RunStep[], memory: StepMemory, h: HarnessPayload, at: At): void {
  const { tools } = memory;
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
    case "error":
      return pushError(steps, memory, failureStep(at, h.failure?.message ?? h.message ?? "", h.failure?.fix));
    case "warning":
      steps.push({ ...at, kind: "warning", title: "Warning", body: h.message ?? "", error: false });
      return;
    case "done":
      if (h.failure) pushError(steps, memory, failureStep(at, h.failure.message ?? h.message ?? "", h.failure.fix));
      // Not "Done": the run's own steps (stamping, the commit) follow, and then the run's Done.
      else steps.push({ ...at, kind: "status", title: AGENT_FINISHED, body: h.message ?? "", error: false });
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

function failureStep(at: At, message: string, fix: string | undefined): RunStep {
  const step: RunStep = { ...at, kind: "error", title: "Error", body: message, error: true };
  if (fix) step.detail = fix;
  return step;
}

/**
 * One failure is reported up to three times, often in different batches: the agent's
 * error, its final `done`, and the run's error (`harness claude failed: <message> (<fix>)`).
 * An error whose text contains, or is contained in, a failure already shown is that
 * failure: it is shown once, where it was first reported, with the first fix given. In
 * the same batch the step moves to the later event; from a later batch it is dropped.
 */
function pushError(steps: RunStep[], memory: StepMemory, step: RunStep): void {
  const text = failureText(step.body ?? "");
  if (memory.failures.some((shown) => sameFailure(shown, text))) {
    const earlier = steps.find((s) => s.kind === "error" && sameFailure(failureText(s.body ?? ""), text));
    if (earlier) {
      earlier.sequence = step.sequence;
      earlier.timestamp = step.timestamp;
      if (!earlier.detail && step.detail) earlier.detail = step.detail;
    }
    return;
  }
  if (text !== "") memory.failures.push(text);
  steps.push(step);
}

/** A failure's text as compared: case and runs of whitespace do not matter (the run's error is one line). */
export function failureText(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

/** Whether two failure texts (from `failureText`) report the same failure. */
export function sameFailure(a: string, b: string): boolean {
  return a !== "" && b !== "" && (a.includes(b) || b.includes(a));
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
