/**
 * Incremental parser for `claude -p --output-format stream-json --verbose` stdout
 * (recorded samples: test/fixtures/claude-stream/), projecting each line to normalized
 * harness events (almanac/architecture/harnesses.md).
 *
 * It is deliberately forgiving: non-JSON lines, unknown line types, unknown block
 * types and missing fields are skipped, never thrown. The `result` line is
 * captured for the adapter rather than emitted as an event.
 */
import * as z from "zod/mini";
import type {
  HarnessActor,
  HarnessEvent,
  HarnessEventKind,
  HarnessToolDisplay,
  ToolDisplayKind,
} from "../events.js";
import type { HarnessFailure } from "../types.js";
import { HARNESSES } from "../catalog.js";
import { clip, displayPath, firstLine, parseJsonLine, record, text, type Json } from "../text.js";

// ---------------------------------------------------------------------------
// The result line

export interface ClaudeResultUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  [key: string]: unknown;
}

/** The final `result` line; unknown fields are kept. */
export interface ClaudeResultLine {
  type: "result";
  subtype: string;
  /** Authoritative failure flag; when absent it is derived from `subtype`. */
  is_error: boolean;
  /** Final answer, or the error text on `success` + `is_error`. Absent on error subtypes. */
  result?: string;
  errors?: string[];
  session_id?: string;
  total_cost_usd?: number;
  num_turns?: number;
  duration_ms?: number;
  usage?: ClaudeResultUsage;
  [key: string]: unknown;
}

/** A field that is dropped (not fatal) when a newer CLI changes its type. */
const lenient = <T extends z.ZodMiniType>(schema: T) => z.catch(z.optional(schema), undefined);
const finite = z.number().check(z.refine((n) => Number.isFinite(n)));
const tokenCount = lenient(finite.check(z.nonnegative()));

const ResultLineSchema = z.looseObject({
  type: z.literal("result"),
  subtype: z.catch(z.string(), "unknown"),
  is_error: lenient(z.boolean()),
  result: lenient(z.string()),
  errors: lenient(
    z.pipe(
      z.array(z.unknown()),
      z.transform((items) => items.filter((item): item is string => typeof item === "string")),
    ),
  ),
  session_id: lenient(z.string()),
  total_cost_usd: lenient(finite),
  num_turns: lenient(finite),
  duration_ms: lenient(finite),
  usage: lenient(
    z.looseObject({
      input_tokens: tokenCount,
      output_tokens: tokenCount,
      cache_creation_input_tokens: tokenCount,
      cache_read_input_tokens: tokenCount,
    }),
  ),
});

function toResultLine(line: Record<string, unknown>): ClaudeResultLine | null {
  const parsed = ResultLineSchema.safeParse(line);
  if (!parsed.success) return null;
  const { is_error, ...rest } = parsed.data;
  return { ...rest, is_error: is_error ?? rest.subtype !== "success" };
}

// ---------------------------------------------------------------------------
// Failure classification

export interface ClaudeFailureInput {
  /** Error text: the result text, joined `errors`, or a synthetic message's text. */
  text: string;
  /** Result subtype (`success`, `error_max_turns`, …). */
  subtype?: string;
  /** Top-level `error` of a synthetic assistant line or an `api_retry` line. */
  error?: string;
}

const STREAM_IDLE_FIX =
  "check that the model provider answers; Claude Code's own stream idle timeout is CLAUDE_STREAM_IDLE_TIMEOUT_MS (ours, runs.idle_timeout, fires first unless it is set lower)";

export function classifyClaudeFailure(input: ClaudeFailureInput): HarnessFailure {
  const text = input.text.trim();
  const subtype = input.subtype?.trim() || undefined;
  const error = input.error?.trim() || undefined;
  const message = text || (subtype ? `claude ${subtype}` : error ? `claude ${error}` : "claude failed");
  if (/not logged in/i.test(text) || /authentication/i.test(text) || error === "authentication_failed") {
    return { provider: "claude", code: "claude.not_authenticated", message, fix: HARNESSES.claude.login };
  }
  if (/stream idle timeout/i.test(text)) {
    // Claude Code's own idle timeout, reached before ours only when it was set lower or ours
    // is past its limit (claude/adapter.ts, withStreamIdleTimeout): a timeout all the same.
    return { provider: "claude", code: "timeout", message, fix: STREAM_IDLE_FIX };
  }
  if (subtype === "error_max_turns") return { provider: "claude", code: "claude.error_max_turns", message };
  if (subtype === "error_max_budget_usd") {
    return { provider: "claude", code: "claude.max_budget_exceeded", message };
  }
  if (subtype && subtype !== "success") return { provider: "claude", code: `claude.${codePart(subtype)}`, message };
  if (error) return { provider: "claude", code: `claude.${codePart(error)}`, message };
  return { provider: "claude", code: "claude.process_failed", message };
}

/** The failure a result line reports, or null when it reports success. */
export function classifyClaudeResult(result: ClaudeResultLine): HarnessFailure | null {
  if (!result.is_error && result.subtype === "success") return null;
  const text = result.result?.trim() || (result.errors ?? []).join("; ");
  // A rejected API key reads "Invalid API key · Fix external API key" (2.1.197, no
  // "authentication" in it); the HTTP status the CLI reports is what identifies it.
  const error = result.api_error_status === 401 ? "authentication_failed" : undefined;
  return classifyClaudeFailure({ text, subtype: result.subtype, ...(error ? { error } : {}) });
}

function codePart(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9_]+/g, "_") || "unknown";
}

// ---------------------------------------------------------------------------
// Tool display

const DISPLAY_KINDS: Record<string, ToolDisplayKind> = {
  Read: "read",
  Write: "write",
  Edit: "edit",
  MultiEdit: "edit",
  NotebookEdit: "edit",
  Bash: "shell",
  BashOutput: "shell",
  KillBash: "shell",
  KillShell: "shell",
  Grep: "search",
  Glob: "search",
  LS: "search",
  WebFetch: "web",
  WebSearch: "web",
  Agent: "agent",
  Task: "agent",
};

export function toolDisplayKind(toolName: string): ToolDisplayKind {
  if (toolName.startsWith("mcp__")) return "mcp";
  return DISPLAY_KINDS[toolName] ?? "unknown";
}

const TITLE_LIMIT = 120;

// ---------------------------------------------------------------------------
// The parser

export interface ClaudeStreamParserOptions {
  /** The run's cwd: tool paths inside it are shown relative to it. */
  cwd?: string;
}

export interface ClaudeStreamParser {
  /** Feed one stdout line; returns the events it produced (possibly none). */
  push(line: string): HarnessEvent[];
  /** The captured `result` line and the first session id seen. */
  finish(): { result: ClaudeResultLine | null; sessionId: string | null };
  /** Set by the first `system/api_retry` with `error: "authentication_failed"`; retrying will not help. */
  readonly authenticationFailure: HarnessFailure | null;
}

interface KnownTool {
  name: string;
  display: HarnessToolDisplay & { title: string };
}

interface Helper {
  label: string;
  parentThreadId: string | undefined;
}

export function createClaudeStreamParser(options: ClaudeStreamParserOptions = {}): ClaudeStreamParser {
  return new ClaudeStreamReader(options);
}

/**
 * The parser's state (session, result, known tools and helper agents) and one handler per
 * line type: `system` (init, api_retry), `assistant` (text, tool_use, synthetic errors),
 * `user` (tool_result), `stream_event` (text deltas), `tool_use_summary` and `result`.
 */
class ClaudeStreamReader implements ClaudeStreamParser {
  private sessionId: string | null = null;
  private result: ClaudeResultLine | null = null;
  private authFailure: HarnessFailure | null = null;
  private readonly roots: string[];
  private readonly tools = new Map<string, KnownTool>();
  private readonly helpers = new Map<string, Helper>();
  private readonly spawned = new Set<string>();
  private readonly completed = new Set<string>();

  constructor(options: ClaudeStreamParserOptions) {
    this.roots = options.cwd ? [options.cwd] : [];
  }

  push(line: string): HarnessEvent[] {
    if (!line.includes("\n")) return this.pushOne(line);
    return line.split("\n").flatMap((one) => this.pushOne(one));
  }

  finish(): { result: ClaudeResultLine | null; sessionId: string | null } {
    return { result: this.result, sessionId: this.sessionId };
  }

  get authenticationFailure(): HarnessFailure | null {
    return this.authFailure;
  }

  private pushOne(raw: string): HarnessEvent[] {
    const line = parseJsonLine(raw);
    const type = line ? text(line.type) : undefined;
    if (!line || !type) return [];

    const out: HarnessEvent[] = [];
    this.onSession(line, out);
    switch (type) {
      case "system":
        this.onSystem(line, out);
        break;
      case "assistant":
        this.onAssistant(line, out);
        break;
      case "user":
        this.onUser(line, out);
        break;
      case "stream_event":
        this.onStreamEvent(line, out);
        break;
      case "tool_use_summary":
        this.onToolUseSummary(line, out);
        break;
      case "result":
        this.result = toResultLine(line) ?? this.result;
        break;
      default:
        break; // unknown line types are expected from newer CLIs
    }
    return out;
  }

  // ---- actors and events ---------------------------------------------------

  private helperFor(toolUseId: string, parentThreadId?: string): Helper {
    let helper = this.helpers.get(toolUseId);
    if (!helper) {
      helper = { label: `Helper ${this.helpers.size + 1}`, parentThreadId: parentThreadId ?? this.sessionId ?? undefined };
      this.helpers.set(toolUseId, helper);
    }
    return helper;
  }

  private actorFor(parentToolUseId: string | undefined): HarnessActor {
    if (parentToolUseId) {
      const helper = this.helperFor(parentToolUseId);
      const actor: HarnessActor = {
        thread_id: parentToolUseId,
        role: "helper",
        label: helper.label,
        confidence: "derived",
      };
      if (helper.parentThreadId) actor.parent_thread_id = helper.parentThreadId;
      return actor;
    }
    if (this.sessionId) return { thread_id: this.sessionId, role: "root", label: "Main", confidence: "provider" };
    return { role: "unknown", label: "Unknown actor", confidence: "unknown" };
  }

  private event(kind: HarnessEventKind, message: string, line: Json, parent: string | undefined): HarnessEvent {
    const built: HarnessEvent = {
      kind,
      message: readable(message) || kind.replace(/_/g, " "),
      actor: this.actorFor(parent),
    };
    if (this.sessionId) built.provider_session_id = this.sessionId;
    const uuid = text(line.uuid);
    if (uuid) built.provider_event_id = uuid;
    if (parent) built.provider_parent_tool_use_id = parent;
    return built;
  }

  private describeTool(name: string, input: Json): KnownTool["display"] {
    const kind = toolDisplayKind(name);
    const rawPath = text(input.file_path) ?? text(input.notebook_path) ?? text(input.path);
    const path = rawPath ? displayPath(rawPath, this.roots) : undefined;
    const command = text(input.command);
    const display: KnownTool["display"] = { kind, title: name };
    if (path) display.path = path;
    if (command) display.command = command;
    display.title = clip(toolTitle(name, kind, input, path, command), TITLE_LIMIT);
    return display;
  }

  // ---- line handlers -------------------------------------------------------

  /** Any line may carry the session id; the first one seen is the run's. */
  private onSession(line: Json, out: HarnessEvent[]): void {
    if (this.sessionId) return;
    const id = text(line.session_id);
    if (!id) return;
    this.sessionId = id;
    out.push(this.event("provider_session", `Claude session ${id}`, line, undefined));
  }

  /** `system/init` adds its cwd to the display roots; `system/api_retry` warns, or fails on authentication. */
  private onSystem(line: Json, out: HarnessEvent[]): void {
    const subtype = text(line.subtype);
    if (subtype === "init") {
      const cwd = text(line.cwd);
      if (cwd && !this.roots.includes(cwd)) this.roots.push(cwd);
      return;
    }
    if (subtype !== "api_retry") return;
    const error = text(line.error);
    const status = typeof line.error_status === "number" ? ` (HTTP ${line.error_status})` : "";
    const attempt = typeof line.attempt === "number" ? line.attempt : undefined;
    const max = typeof line.max_retries === "number" ? line.max_retries : undefined;
    const tries = attempt !== undefined ? ` (attempt ${attempt}${max !== undefined ? ` of ${max}` : ""})` : "";
    if (error === "authentication_failed") {
      if (this.authFailure) return; // one error is enough; later retries are noise
      this.authFailure = classifyClaudeFailure({
        text: `Claude API authentication failed${status}`,
        error,
      });
      const failed = this.event("error", `${this.authFailure.message}${tries}`, line, undefined);
      failed.failure = { ...this.authFailure };
      out.push(failed);
      return;
    }
    out.push(this.event("warning", `Claude API retry${tries}: ${error ?? "request failed"}${status}`, line, undefined));
  }

  /** Text and tool_use blocks; a synthetic message (top-level `error`) is one classified error. */
  private onAssistant(line: Json, out: HarnessEvent[]): void {
    const parent = text(line.parent_tool_use_id);
    const content = record(line.message)?.content;
    const blocks = Array.isArray(content) ? content.map(record).filter((b): b is Json => b !== null) : [];
    const syntheticError = text(line.error);
    if (syntheticError) {
      const errorText = blocks
        .map((block) => (block.type === "text" ? (text(block.text) ?? "") : ""))
        .join("\n")
        .trim();
      const failure = classifyClaudeFailure({ text: errorText, error: syntheticError });
      const failed = this.event("error", failure.message, line, parent);
      failed.failure = { ...failure };
      out.push(failed);
      return;
    }
    for (const block of blocks) {
      if (block.type === "text") {
        const said = text(block.text);
        if (said) out.push(this.event("text", said.trim(), line, parent));
      } else if (block.type === "tool_use") {
        this.onToolUse(block, line, parent, out);
      }
    }
  }

  private onToolUse(block: Json, line: Json, parent: string | undefined, out: HarnessEvent[]): void {
    const id = text(block.id);
    const name = text(block.name) ?? "tool";
    const input = record(block.input) ?? {};
    const display = this.describeTool(name, input);
    if (id) this.tools.set(id, { name, display });
    const used = this.event("tool_use", display.title, line, parent);
    if (id) used.tool_id = id;
    used.tool_name = name;
    used.tool_input = JSON.stringify(block.input ?? {});
    used.tool_display = { ...display, status: "started" };
    out.push(used);

    if (display.kind !== "agent" || !id || this.spawned.has(id)) return;
    this.spawned.add(id);
    out.push(this.agentSpawned(id, name, input, line, parent));
  }

  /** The first use of an agent tool starts a helper agent. */
  private agentSpawned(id: string, name: string, input: Json, line: Json, parent: string | undefined): HarnessEvent {
    const spawner = this.actorFor(parent);
    const helper = this.helperFor(id, spawner.thread_id);
    const about = text(input.description) ?? firstLine(text(input.prompt) ?? "");
    const spawn = this.event("agent_spawned", `spawned ${helper.label}${about ? `: ${about}` : ""}`, line, parent);
    spawn.tool_id = id;
    spawn.tool_name = name;
    spawn.agent_trace = { child_thread_id: id, child_thread_ids: [id] };
    if (spawner.thread_id) spawn.agent_trace.parent_thread_id = spawner.thread_id;
    const prompt = text(input.prompt);
    if (prompt) spawn.agent_trace.prompt = prompt;
    const model = text(input.model);
    if (model) spawn.agent_trace.model = model;
    return spawn;
  }

  /** `tool_result` blocks, paired with their tool_use; the result of an agent tool also ends its helper. */
  private onUser(line: Json, out: HarnessEvent[]): void {
    const parent = text(line.parent_tool_use_id);
    const content = record(line.message)?.content;
    if (!Array.isArray(content)) return; // prompt echoes carry plain strings
    for (const block of content.map(record)) {
      if (block?.type !== "tool_result") continue;
      const id = text(block.tool_use_id);
      const isError = block.is_error === true;
      const output = toolResultContent(block.content);
      const outputText = typeof output === "string" ? output : "";
      out.push(this.toolResult(id, isError, output, outputText, line, parent));

      if (!id || !this.spawned.has(id) || this.completed.has(id)) continue;
      this.completed.add(id);
      out.push(this.agentCompleted(id, isError, outputText, line, parent));
    }
  }

  private toolResult(
    id: string | undefined,
    isError: boolean,
    output: unknown,
    outputText: string,
    line: Json,
    parent: string | undefined,
  ): HarnessEvent {
    const known = id ? this.tools.get(id) : undefined;
    const title = known?.display.title ?? "Tool";
    const message = isError
      ? `${title}: failed${outputText.trim() ? `: ${clip(firstLine(outputText), TITLE_LIMIT)}` : ""}`
      : `${title}: done`;
    const finished = this.event("tool_result", message, line, parent);
    if (id) finished.tool_id = id;
    if (known) finished.tool_name = known.name;
    finished.tool_result = output;
    finished.tool_is_error = isError;
    finished.tool_display = {
      ...(known?.display ?? { kind: "unknown", title }),
      status: isError ? "failed" : "completed",
    };
    if (isError && outputText.trim()) finished.tool_display.summary = clip(firstLine(outputText), 280);
    return finished;
  }

  private agentCompleted(id: string, isError: boolean, outputText: string, line: Json, parent: string | undefined): HarnessEvent {
    const helper = this.helperFor(id);
    const done = this.event("agent_completed", `${helper.label} ${isError ? "failed" : "finished"}`, line, parent);
    done.tool_id = id;
    done.agent_trace = { child_thread_id: id, child_thread_ids: [id] };
    if (helper.parentThreadId) done.agent_trace.parent_thread_id = helper.parentThreadId;
    if (outputText.trim()) done.agent_trace.result = outputText.trim();
    return done;
  }

  /** Partial messages: only text deltas are kept. */
  private onStreamEvent(line: Json, out: HarnessEvent[]): void {
    const inner = record(line.event);
    const delta = record(inner?.delta);
    if (inner?.type !== "content_block_delta" || delta?.type !== "text_delta") return;
    const piece = text(delta.text);
    if (piece) out.push(this.event("text_delta", piece, line, text(line.parent_tool_use_id)));
  }

  private onToolUseSummary(line: Json, out: HarnessEvent[]): void {
    const summary = text(line.summary);
    if (!summary) return;
    const summarized = this.event("tool_summary", summary, line, text(line.parent_tool_use_id));
    const ids = Array.isArray(line.preceding_tool_use_ids) ? line.preceding_tool_use_ids : [];
    const last = ids.length > 0 ? text(ids[ids.length - 1]) : undefined;
    if (last) summarized.tool_id = last;
    out.push(summarized);
  }
}

// ---------------------------------------------------------------------------
// Helpers

function toolTitle(
  name: string,
  kind: ToolDisplayKind,
  input: Json,
  path: string | undefined,
  command: string | undefined,
): string {
  switch (kind) {
    case "read":
    case "write":
    case "edit":
      return path ? `${name} ${path}` : name;
    case "shell": {
      if (command) return `${name}: ${firstLine(command)}`;
      const shell = text(input.bash_id) ?? text(input.shell_id);
      return shell ? `${name} ${shell}` : name;
    }
    case "search": {
      const pattern = text(input.pattern);
      const where = path ? ` in ${path}` : "";
      if (!pattern) return path ? `${name} ${path}` : name;
      return name === "Grep" ? `${name} "${pattern}"${where}` : `${name} ${pattern}${where}`;
    }
    case "web": {
      const url = text(input.url);
      const query = text(input.query);
      return url ? `${name} ${url}` : query ? `${name} "${query}"` : name;
    }
    case "agent": {
      const about = text(input.description) ?? firstLine(text(input.prompt) ?? "");
      return about ? `${name}: ${about}` : name;
    }
    case "mcp": {
      const [, server, ...tool] = name.split("__");
      return server && tool.length > 0 ? `MCP ${server}/${tool.join("__")}` : name;
    }
    default:
      return path ? `${name} ${path}` : command ? `${name}: ${firstLine(command)}` : name;
  }
}

/** Tool result content: strings stay; an array of text blocks becomes their joined text. */
function toolResultContent(content: unknown): unknown {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const blocks = content.map(record);
    if (blocks.every((block) => block?.type === "text" && typeof block.text === "string")) {
      return blocks.map((block) => block?.text as string).join("\n");
    }
    return content;
  }
  return content ?? null;
}

function readable(value: string): string {
  return value.trim();
}
