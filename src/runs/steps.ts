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
    const base = { sequence: event.seq, timestamp: event.createdAt };
    const h = isHarness(event.payload) ? event.payload : null;
    if (!h) {
      if (event.kind === "error") pushError(steps, { ...base, kind: "error", title: "Error", body: event.message, error: true });
      else if (event.kind === "warning") steps.push({ ...base, kind: "warning", title: "Warning", body: event.message, error: false });
      else if (event.kind === "status") pushStatus(steps, { ...base, kind: "status", title: titleCase(event.message), body: event.message, error: false });
      else steps.push({ ...base, kind: "status", title: sentence(event.message), error: false });
      continue;
    }
    switch (h.kind) {
      case "text":
      case "text_delta": {
        const actor = h.actor?.label ?? "Assistant";
        const last = steps[steps.length - 1];
        if (last && last.kind === "assistant" && last.actor === actor) {
          last.body = joinText(last.body ?? "", h.message ?? "");
          last.sequence = event.seq;
          last.timestamp = event.createdAt;
        } else {
          steps.push({ ...base, kind: "assistant", title: actor, actor, body: h.message ?? "", error: false });
        }
        break;
      }
      case "tool_use": {
        const d = h.tool_display ?? {};
        const step: RunStep = {
          ...base,
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
        break;
      }
      case "tool_result":
      case "tool_summary": {
        let step = h.tool_id ? tools.get(h.tool_id) : undefined;
        if (step && !steps.includes(step)) {
          step = { ...step, ...base };
          steps.push(step);
        } else if (!step) {
          step = { ...base, kind: "tool", title: h.tool_name ?? "Tool", tool: h.tool_name ?? "tool", error: false };
          steps.push(step);
        }
        if (h.tool_id) tools.set(h.tool_id, step);
        step.sequence = event.seq;
        step.timestamp = event.createdAt;
        step.status = h.tool_display?.status ?? (h.tool_is_error ? "failed" : "completed");
        step.error = step.status === "failed";
        if (h.tool_result !== undefined) step.output = h.tool_result;
        const summary = h.tool_display?.summary ?? preview(h.tool_result);
        if (summary) step.body = summary;
        break;
      }
      case "agent_spawned":
      case "agent_wait_started":
      case "agent_completed": {
        const title = { agent_spawned: "Agent started", agent_wait_started: "Waiting for agent", agent_completed: "Agent finished" }[h.kind];
        const status = { agent_spawned: "started", agent_wait_started: "waiting", agent_completed: "completed" }[h.kind];
        const step: RunStep = { ...base, kind: "agent", title, status, error: false, body: h.agent_trace?.result ?? h.message ?? "" };
        if (h.agent_trace?.prompt) step.detail = h.agent_trace.prompt;
        steps.push(step);
        break;
      }
      case "error": {
        const step: RunStep = { ...base, kind: "error", title: "Error", body: h.failure?.message ?? h.message ?? "", error: true };
        if (h.failure?.fix) step.detail = h.failure.fix;
        pushError(steps, step);
        break;
      }
      case "warning":
        steps.push({ ...base, kind: "warning", title: "Warning", body: h.message ?? "", error: false });
        break;
      case "done":
        if (h.failure) pushError(steps, { ...base, kind: "error", title: "Error", body: h.failure.message ?? h.message ?? "", error: true });
        else steps.push({ ...base, kind: "status", title: "Done", body: h.message ?? "", error: false });
        break;
      case "provider_session":
        if (h.provider_session_id) steps.push({ ...base, kind: "status", title: "Session", body: h.provider_session_id, error: false });
        break;
      default:
        break;
    }
  }
  return steps;
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
