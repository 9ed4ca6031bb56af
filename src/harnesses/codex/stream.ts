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
import { classifyCodexFailure, isOfflineNotice, OFFLINE_NOTICE_LIMIT, unreachable } from "./failures.js";

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

export function createCodexStreamParser(options: { cwd?: string; loginFix?: string } = {}): CodexStreamParser {
  return new CodexStreamReader(options);
}

/**
 * The parser's state and one handler per event type: `thread.started`, `item.*` (one per
 * item type: messages, notes, plans, helper agents, tools), `turn.completed`, `turn.failed`
 * and `error` (reconnect notices, and errors held back one line).
 */
class CodexStreamReader implements CodexStreamParser {
  readonly state: CodexStreamState = { threadId: null, answer: null, completed: false, failure: null, legacy: false, usage: null };
  private readonly roots: string[];
  private readonly started = new Set<string>();
  private readonly helpers = new Map<string, string>();
  private reconnects = 0;
  /** `waiting for network` notices since the stream last showed progress (any other event). */
  private offlineNotices = 0;
  private lines = 0;
  /** An `error` event waits one line: followed by `turn.failed` with the same text it is that failure. */
  private pendingError: { message: string; event: HarnessEvent } | null = null;

  private readonly loginFix: string | undefined;

  constructor(options: { cwd?: string; loginFix?: string }) {
    this.roots = options.cwd ? [options.cwd] : [];
    this.loginFix = options.loginFix;
  }

  push(line: string): HarnessEvent[] {
    if (!line.includes("\n")) return this.pushOne(line);
    return line.split("\n").flatMap((one) => this.pushOne(one));
  }

  flush(): HarnessEvent[] {
    const out: HarnessEvent[] = [];
    this.flushPending(out);
    return out;
  }

  private pushOne(raw: string): HarnessEvent[] {
    const line = parseJsonLine(raw);
    if (!line) return [];
    this.lines++;
    const type = text(line.type);
    if (!type) {
      // 0.43 and older: a config summary, then `{prompt}`, then `{id, msg}` events.
      if (this.lines === 1 || "msg" in line || "prompt" in line) this.state.legacy = true;
      return [];
    }
    const out: HarnessEvent[] = [];
    if (type !== "error") this.offlineNotices = 0;
    if (type === "turn.failed") {
      this.onTurnFailed(line, out);
      return out;
    }
    this.flushPending(out);
    switch (type) {
      case "thread.started":
        this.onThreadStarted(line, out);
        break;
      case "item.started":
      case "item.updated":
      case "item.completed": {
        const item = record(line.item);
        if (item) this.onItem(type, item, out);
        break;
      }
      case "turn.completed":
        this.onTurnCompleted(line, out);
        break;
      case "error":
        this.onError(line, out);
        break;
      default:
        break; // turn.started, item.plan.delta, request_user_input and newer events
    }
    return out;
  }

  // ---- events --------------------------------------------------------------

  private actor(): HarnessActor {
    return this.state.threadId
      ? { thread_id: this.state.threadId, role: "root", label: "Main", confidence: "provider" }
      : { role: "unknown", label: "Unknown actor", confidence: "unknown" };
  }

  private event(kind: HarnessEventKind, message: string): HarnessEvent {
    const built: HarnessEvent = { kind, message: message.trim() || kind.replace(/_/g, " "), actor: this.actor() };
    if (this.state.threadId) built.provider_session_id = this.state.threadId;
    return built;
  }

  private failedEvent(failure: HarnessFailure): HarnessEvent {
    const failed = this.event("error", failure.message);
    failed.failure = { ...failure };
    return failed;
  }

  private flushPending(out: HarnessEvent[]): void {
    if (this.pendingError) out.push(this.pendingError.event);
    this.pendingError = null;
  }

  // ---- line handlers -------------------------------------------------------

  /** The held-back error is this failure when it says the same; else it is shown first, as a warning. */
  private onTurnFailed(line: Json, out: HarnessEvent[]): void {
    const pending = this.pendingError;
    const message = text(record(line.error)?.message) ?? pending?.message ?? "codex turn failed";
    if (pending && pending.message.trim() !== message.trim()) this.flushPending(out);
    this.pendingError = null;
    this.state.failure = classifyCodexFailure(message, this.reconnects, this.loginFix);
    out.push(this.failedEvent(this.state.failure));
  }

  private onThreadStarted(line: Json, out: HarnessEvent[]): void {
    const id = text(line.thread_id);
    if (!id || this.state.threadId) return;
    this.state.threadId = id;
    out.push(this.event("provider_session", `Codex thread ${id}`));
  }

  private onTurnCompleted(line: Json, out: HarnessEvent[]): void {
    this.state.completed = true;
    const usage = usageFrom(record(line.usage));
    if (!usage) return;
    this.state.usage = usage;
    const used = this.event("context_usage", `tokens: ${usage.input_tokens ?? 0} in, ${usage.output_tokens ?? 0} out`);
    used.usage = usage;
    out.push(used);
  }

  /**
   * A reconnect notice is a warning (or the failure: for a rejected credential, and for the
   * last of `OFFLINE_NOTICE_LIMIT` `waiting for network` notices in a row); any other error waits a line.
   */
  private onError(line: Json, out: HarnessEvent[]): void {
    const message = text(line.message) ?? "codex error";
    if (!/^reconnecting/i.test(message.trim())) {
      this.pendingError = { message, event: this.event("warning", `Codex: ${message.trim()}`) };
      return;
    }
    this.reconnects++;
    if (isOfflineNotice(message) && ++this.offlineNotices >= OFFLINE_NOTICE_LIMIT && !this.state.failure) {
      // Codex waits for the network without end; a missing login looks the same from here.
      this.state.failure = unreachable(message, this.loginFix);
      out.push(this.failedEvent(this.state.failure));
      return;
    }
    const cause = /^reconnecting\.*\s*\d+\/\d+\s*\(([\s\S]*)\)\s*$/i.exec(message.trim())?.[1] ?? message;
    const failure = classifyCodexFailure(cause, 0, this.loginFix);
    if (failure.code === "codex.not_authenticated" && !this.state.failure) {
      // A rejected credential is retried like a dropped stream; it will not get better.
      this.state.failure = failure;
      out.push(this.failedEvent(failure));
    } else {
      out.push(this.event("warning", `Codex: ${message.trim()}`));
    }
  }

  // ---- items ---------------------------------------------------------------

  private onItem(type: string, item: Json, out: HarnessEvent[]): void {
    const itemType = text(item.type);
    if (!itemType) return;
    switch (itemType) {
      case "agent_message":
        return this.onAgentMessage(type, item, out);
      case "reasoning":
        return; // the model's private notes are not part of the log
      case "error": {
        const message = text(item.message);
        if (message && type === "item.completed") out.push(this.event("warning", `Codex: ${message}`));
        return;
      }
      case "todo_list":
      case "plan": {
        if (type !== "item.completed") return;
        const summary = itemType === "plan" ? text(item.text) : todoSummary(item.items);
        if (summary) out.push(this.event("tool_summary", summary));
        return;
      }
      case "collab_tool_call":
        return this.onCollab(type, item, out);
      default:
        return this.onToolItem(type, itemType, item, out);
    }
  }

  /** The last completed agent message is the run's answer. */
  private onAgentMessage(type: string, item: Json, out: HarnessEvent[]): void {
    if (type !== "item.completed") return;
    const said = text(item.text);
    if (!said) return;
    this.state.answer = said;
    out.push(this.event("text", said.trim()));
  }

  /** A tool item: `tool_use` when it starts (or completes unseen), `tool_result` when it completes. */
  private onToolItem(type: string, itemType: string, item: Json, out: HarnessEvent[]): void {
    const tool = describeTool(itemType, item, (path) => displayPath(path, this.roots));
    if (!tool) return;
    const id = text(item.id) ?? "";
    if (type === "item.started") {
      this.started.add(id);
      out.push(this.toolEvent("tool_use", item, tool));
    } else if (type === "item.completed") {
      if (!this.started.has(id)) out.push(this.toolEvent("tool_use", item, tool));
      out.push(this.toolEvent("tool_result", item, tool));
    }
  }

  private toolEvent(kind: "tool_use" | "tool_result", item: Json, tool: ToolShape): HarnessEvent {
    const id = text(item.id);
    const status = text(item.status);
    const failed = status === "failed" || status === "declined" || (typeof item.exit_code === "number" && item.exit_code !== 0);
    const message =
      kind === "tool_use" ? tool.display.title! : failed ? `${tool.display.title}: failed` : `${tool.display.title}: done`;
    const built = this.event(kind, clip(message, TITLE_LIMIT + 20));
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

  // ---- helper agents -------------------------------------------------------

  private helperLabel(thread: string): string {
    let name = this.helpers.get(thread);
    if (!name) {
      name = `Helper ${this.helpers.size + 1}`;
      this.helpers.set(thread, name);
    }
    return name;
  }

  private trace(thread: string, item: Json): NonNullable<HarnessEvent["agent_trace"]> {
    return {
      child_thread_id: thread,
      child_thread_ids: [thread],
      ...(this.state.threadId ? { parent_thread_id: this.state.threadId } : {}),
      ...(text(item.prompt) ? { prompt: text(item.prompt)! } : {}),
    };
  }

  /** `spawn_agent` starts helpers; `wait` waits for them; `wait` and `close_agent` report those that ended. */
  private onCollab(type: string, item: Json, out: HarnessEvent[]): void {
    const tool = text(item.tool) ?? "";
    if (tool === "spawn_agent" && type === "item.completed") {
      const receivers = Array.isArray(item.receiver_thread_ids) ? item.receiver_thread_ids.filter((v): v is string => typeof v === "string") : [];
      for (const thread of receivers) {
        const spawned = this.event("agent_spawned", `spawned ${this.helperLabel(thread)}`);
        spawned.agent_trace = this.trace(thread, item);
        out.push(spawned);
      }
    } else if (tool === "wait" && type === "item.started") {
      out.push(this.event("agent_wait_started", "waiting for helper agents"));
    } else if ((tool === "wait" || tool === "close_agent") && type === "item.completed") {
      this.onAgentsEnded(item, out);
    }
  }

  private onAgentsEnded(item: Json, out: HarnessEvent[]): void {
    const states = record(item.agents_states) ?? {};
    for (const [thread, value] of Object.entries(states)) {
      const status = text(record(value)?.status);
      if (status && !/completed|shutdown|closed|errored|failed/.test(status)) continue;
      const finished = this.event("agent_completed", `${this.helperLabel(thread)} ${status ?? "finished"}`);
      const result = text(record(value)?.message);
      finished.agent_trace = { ...this.trace(thread, item), ...(result ? { result } : {}) };
      out.push(finished);
    }
  }
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
