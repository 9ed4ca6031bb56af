/**
 * Incremental parser for `codex exec --json` stdout (the thread/turn/item stream of
 * Codex 0.44 and later), projecting each line to normalized harness events.
 *
 * Forgiving like the Claude parser: non-JSON lines, unknown event and item types and
 * missing fields are skipped. A first line in the pre-0.44 shape (no `type`) marks the
 * stream as legacy; the adapter refuses it.
 */
import type { HarnessActor, HarnessEvent, HarnessEventKind, HarnessToolDisplay, HarnessUsage, ToolDisplayKind } from "../events.js";
import type { HarnessFailure } from "../types.js";
import { clip, displayPath, firstLine, parseJsonLine, record, text, type Json } from "../text.js";
import { classifyCodexFailure } from "./failures.js";

const TITLE_LIMIT = 120;
/** Tool output kept per event; the whole output stays in Codex's own rollout file. */
const OUTPUT_LIMIT = 8_000;

export interface CodexStreamState {
  threadId: string | null;
  /** The last `agent_message`: the run's answer. */
  answer: string | null;
  /** A `turn.completed` was seen. */
  completed: boolean;
  /** The classified `turn.failed` (or fatal error), if any. */
  failure: HarnessFailure | null;
  /** The stream is the pre-0.44 format. */
  legacy: boolean;
  usage: HarnessUsage | null;
}

export interface CodexStreamParser {
  /** Feed one stdout line; returns the events it produced (possibly none). */
  push(line: string): HarnessEvent[];
  /** Events still held back (a pending error notice), then the final state. */
  flush(): HarnessEvent[];
  readonly state: CodexStreamState;
}

export function createCodexStreamParser(options: { cwd?: string } = {}): CodexStreamParser {
  const roots = options.cwd ? [options.cwd] : [];
  const state: CodexStreamState = { threadId: null, answer: null, completed: false, failure: null, legacy: false, usage: null };
  const started = new Set<string>();
  const helpers = new Map<string, string>();
  let reconnects = 0;
  let lines = 0;
  /** An `error` event waits one line: followed by `turn.failed` with the same text it is that failure. */
  let pendingError: { message: string; event: HarnessEvent } | null = null;

  function actor(): HarnessActor {
    return state.threadId
      ? { thread_id: state.threadId, role: "root", label: "Main", confidence: "provider" }
      : { role: "unknown", label: "Unknown actor", confidence: "unknown" };
  }

  function event(kind: HarnessEventKind, message: string): HarnessEvent {
    const built: HarnessEvent = { kind, message: message.trim() || kind.replace(/_/g, " "), actor: actor() };
    if (state.threadId) built.provider_session_id = state.threadId;
    return built;
  }

  const display = (path: string) => displayPath(path, roots);

  function toolEvent(kind: "tool_use" | "tool_result", item: Json, tool: ToolShape): HarnessEvent {
    const id = text(item.id);
    const status = text(item.status);
    const failed = status === "failed" || status === "declined" || (typeof item.exit_code === "number" && item.exit_code !== 0);
    const message =
      kind === "tool_use" ? tool.display.title! : failed ? `${tool.display.title}: failed` : `${tool.display.title}: done`;
    const built = event(kind, clip(message, TITLE_LIMIT + 20));
    if (id) built.tool_id = id;
    built.tool_name = tool.name;
    if (tool.input !== undefined) built.tool_input = tool.input;
    const shown: HarnessToolDisplay = { ...tool.display };
    if (kind === "tool_use") shown.status = "started";
    else shown.status = status === "declined" ? "declined" : failed ? "failed" : "completed";
    if (typeof item.exit_code === "number") shown.exit_code = item.exit_code;
    built.tool_display = shown;
    if (kind === "tool_result") {
      built.tool_is_error = failed;
      if (tool.output !== undefined) built.tool_result = tool.output;
      if (failed && typeof tool.output === "string" && tool.output.trim()) shown.summary = clip(firstLine(tool.output), 280);
    }
    return built;
  }

  function onItem(type: string, item: Json, out: HarnessEvent[]): void {
    const itemType = text(item.type);
    if (!itemType) return;
    const id = text(item.id) ?? "";
    if (itemType === "agent_message") {
      if (type !== "item.completed") return;
      const said = text(item.text);
      if (said) {
        state.answer = said;
        out.push(event("text", said.trim()));
      }
      return;
    }
    if (itemType === "reasoning") return; // the model's private notes are not part of the log
    if (itemType === "error") {
      const message = text(item.message);
      if (message && type === "item.completed") out.push(event("warning", `Codex: ${message}`));
      return;
    }
    if (itemType === "todo_list" || itemType === "plan") {
      if (type !== "item.completed") return;
      const summary = itemType === "plan" ? text(item.text) : todoSummary(item.items);
      if (summary) out.push(event("tool_summary", summary));
      return;
    }
    if (itemType === "collab_tool_call") return onCollab(type, item, out);
    const tool = describeTool(itemType, item, display);
    if (!tool) return;
    if (type === "item.started") {
      started.add(id);
      out.push(toolEvent("tool_use", item, tool));
    } else if (type === "item.completed") {
      if (!started.has(id)) out.push(toolEvent("tool_use", item, tool));
      out.push(toolEvent("tool_result", item, tool));
    }
  }

  function onCollab(type: string, item: Json, out: HarnessEvent[]): void {
    const tool = text(item.tool) ?? "";
    const receivers = Array.isArray(item.receiver_thread_ids) ? item.receiver_thread_ids.filter((v): v is string => typeof v === "string") : [];
    const label = (thread: string) => {
      let name = helpers.get(thread);
      if (!name) {
        name = `Helper ${helpers.size + 1}`;
        helpers.set(thread, name);
      }
      return name;
    };
    const trace = (thread: string) => ({
      child_thread_id: thread,
      child_thread_ids: [thread],
      ...(state.threadId ? { parent_thread_id: state.threadId } : {}),
      ...(text(item.prompt) ? { prompt: text(item.prompt)! } : {}),
    });
    if (tool === "spawn_agent" && type === "item.completed") {
      for (const thread of receivers) {
        const spawned = event("agent_spawned", `spawned ${label(thread)}`);
        spawned.agent_trace = trace(thread);
        out.push(spawned);
      }
    } else if (tool === "wait" && type === "item.started") {
      out.push(event("agent_wait_started", "waiting for helper agents"));
    } else if ((tool === "wait" || tool === "close_agent") && type === "item.completed") {
      const states = record(item.agents_states) ?? {};
      for (const [thread, value] of Object.entries(states)) {
        const status = text(record(value)?.status);
        if (status && !/completed|shutdown|closed|errored|failed/.test(status)) continue;
        const finished = event("agent_completed", `${label(thread)} ${status ?? "finished"}`);
        const result = text(record(value)?.message);
        finished.agent_trace = { ...trace(thread), ...(result ? { result } : {}) };
        out.push(finished);
      }
    }
  }

  function flushPending(out: HarnessEvent[]): void {
    if (pendingError) out.push(pendingError.event);
    pendingError = null;
  }

  function pushOne(raw: string): HarnessEvent[] {
    const line = parseJsonLine(raw);
    if (!line) return [];
    lines++;
    const type = text(line.type);
    if (!type) {
      // 0.43 and older: a config summary, then `{prompt}`, then `{id, msg}` events.
      if (lines === 1 || "msg" in line || "prompt" in line) state.legacy = true;
      return [];
    }
    const out: HarnessEvent[] = [];
    if (type === "turn.failed") {
      const message = text(record(line.error)?.message) ?? pendingError?.message ?? "codex turn failed";
      if (pendingError && pendingError.message.trim() !== message.trim()) flushPending(out);
      pendingError = null;
      state.failure = classifyCodexFailure(message, reconnects);
      const failed = event("error", state.failure.message);
      failed.failure = { ...state.failure };
      out.push(failed);
      return out;
    }
    flushPending(out);
    switch (type) {
      case "thread.started": {
        const id = text(line.thread_id);
        if (id && !state.threadId) {
          state.threadId = id;
          out.push(event("provider_session", `Codex thread ${id}`));
        }
        break;
      }
      case "item.started":
      case "item.updated":
      case "item.completed": {
        const item = record(line.item);
        if (item) onItem(type, item, out);
        break;
      }
      case "turn.completed": {
        state.completed = true;
        const usage = usageFrom(record(line.usage));
        if (usage) {
          state.usage = usage;
          const used = event("context_usage", `tokens: ${usage.input_tokens ?? 0} in, ${usage.output_tokens ?? 0} out`);
          used.usage = usage;
          out.push(used);
        }
        break;
      }
      case "error": {
        const message = text(line.message) ?? "codex error";
        if (/^reconnecting/i.test(message.trim())) {
          reconnects++;
          const cause = /^reconnecting\.*\s*\d+\/\d+\s*\(([\s\S]*)\)\s*$/i.exec(message.trim())?.[1] ?? message;
          const failure = classifyCodexFailure(cause, 0);
          if (failure.code === "codex.not_authenticated" && !state.failure) {
            // A rejected credential is retried like a dropped stream; it will not get better.
            state.failure = failure;
            const failed = event("error", failure.message);
            failed.failure = { ...failure };
            out.push(failed);
          } else {
            out.push(event("warning", `Codex: ${message.trim()}`));
          }
        } else {
          pendingError = { message, event: event("warning", `Codex: ${message.trim()}`) };
        }
        break;
      }
      default:
        break; // turn.started, item.plan.delta, request_user_input and newer events
    }
    return out;
  }

  return {
    push(line: string): HarnessEvent[] {
      if (!line.includes("\n")) return pushOne(line);
      return line.split("\n").flatMap(pushOne);
    },
    flush(): HarnessEvent[] {
      const out: HarnessEvent[] = [];
      flushPending(out);
      return out;
    },
    get state() {
      return state;
    },
  };
}

interface ToolShape {
  name: string;
  display: HarnessToolDisplay & { title: string; kind: ToolDisplayKind };
  input?: string;
  output?: unknown;
}

function describeTool(itemType: string, item: Json, display: (path: string) => string): ToolShape | null {
  switch (itemType) {
    case "command_execution": {
      const command = text(item.command) ?? "";
      const shown = unwrapShell(command);
      const output = typeof item.aggregated_output === "string" ? clip(item.aggregated_output, OUTPUT_LIMIT) : undefined;
      return {
        name: "shell",
        display: { kind: "shell", title: clip(`Run: ${firstLine(shown)}`, TITLE_LIMIT), command: shown },
        input: command,
        ...(output !== undefined ? { output } : {}),
      };
    }
    case "file_change": {
      const changes = Array.isArray(item.changes) ? item.changes.map(record).filter((c): c is Json => c !== null) : [];
      const paths = changes.map((c) => text(c.path)).filter((p): p is string => p !== undefined).map(display);
      const kinds = changes.map((c) => text(c.kind));
      const verb = kinds.every((k) => k === "add") ? "Write" : kinds.every((k) => k === "delete") ? "Delete" : "Edit";
      const title = paths.length === 1 ? `${verb} ${paths[0]}` : `${verb} ${paths.length} files`;
      return {
        name: "apply_patch",
        display: { kind: verb === "Write" ? "write" : "edit", title: clip(title, TITLE_LIMIT), ...(paths[0] ? { path: paths[0] } : {}) },
        input: JSON.stringify(changes),
        output: paths.join("\n"),
      };
    }
    case "mcp_tool_call": {
      const server = text(item.server) ?? "mcp";
      const tool = text(item.tool) ?? "tool";
      const error = text(record(item.error)?.message);
      return {
        name: `mcp__${server}__${tool}`,
        display: { kind: "mcp", title: `MCP ${server}/${tool}` },
        input: JSON.stringify(item.arguments ?? {}),
        output: error ?? record(item.result)?.content ?? null,
      };
    }
    case "web_search": {
      const query = text(item.query) ?? text(record(item.action)?.query) ?? "";
      return { name: "web_search", display: { kind: "web", title: clip(`Search "${query}"`, TITLE_LIMIT) }, input: query };
    }
    default:
      return null;
  }
}

/** `/bin/bash -lc 'npm test'` → `npm test`: the command the agent meant. */
function unwrapShell(command: string): string {
  const match = /^\S*(?:ba|z)?sh\s+-l?c\s+(['"])([\s\S]*)\1$/.exec(command.trim());
  return match ? match[2]! : command;
}

function todoSummary(items: unknown): string | undefined {
  if (!Array.isArray(items)) return undefined;
  const entries = items.map(record).filter((i): i is Json => i !== null);
  const list = entries.map((i) => `${i.completed === true ? "[x]" : "[ ]"} ${text(i.text) ?? ""}`.trim());
  return list.length > 0 ? list.join(" | ") : undefined;
}

function usageFrom(raw: Json | null): HarnessUsage | null {
  if (!raw) return null;
  const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined);
  const usage: HarnessUsage = {};
  const input = count(raw.input_tokens);
  const cached = count(raw.cached_input_tokens);
  const output = count(raw.output_tokens);
  const reasoning = count(raw.reasoning_output_tokens);
  if (input !== undefined) usage.input_tokens = input;
  if (cached !== undefined) usage.cached_input_tokens = cached;
  if (output !== undefined) usage.output_tokens = output;
  if (reasoning !== undefined) usage.reasoning_output_tokens = reasoning;
  if (input !== undefined && output !== undefined) usage.total_tokens = input + output;
  return Object.keys(usage).length > 0 ? usage : null;
}
