import { basename } from "node:path";
import { cwdFromEnvironmentContext } from "../../sources/transcripts/injected.js";
import type { JsonObject } from "../../sources/transcripts/lines.js";
import { isObject, noIdentity, nonEmptyString, OWN_RUN_MARKER, timeOf, type TranscriptLineReader, type Verdict } from "./identity.js";

interface SessionHeader {
  id: string;
  cwd: string | undefined;
  startedAtMs: number | null;
  ownRun: boolean;
  subagent: boolean;
}

/**
 * Codex rollouts of every generation: the envelope format (a `session_meta` line
 * first, 0.34 on; 0.149 adds `thread_source` and `session_id`, 0.171
 * `parent_thread_id`) and the older bare format (a `{id, timestamp, instructions}`
 * header whose cwd lives only in the first `<environment_context>`). The first
 * session header is the identity: a forked rollout copies other threads' metadata
 * in later. Sub-agent threads have rollouts of their own and are skipped.
 */
export class CodexLineReader implements TranscriptLineReader {
  private header: SessionHeader | undefined;
  private fallbackCwd: string | undefined;
  private damage: string | undefined;

  constructor(private readonly path: string) {}

  get identified(): boolean {
    return this.header !== undefined && !this.header.subagent && this.cwd !== undefined;
  }

  readHeadLine(line: JsonObject): boolean {
    if (this.header === undefined) this.header = this.headerOf(line);
    else this.fallbackCwd ??= laterCwd(line);
    return this.header !== undefined && (this.header.subagent || this.cwd !== undefined);
  }

  noteHeadDamage(description: string): void {
    this.damage ??= description;
  }

  /** Envelope lines carry a time; the bare format's items do not, and its header is the start. */
  readTailLine(line: JsonObject): number | null {
    return typeof line.type === "string" ? timeOf(line.timestamp) : null;
  }

  verdict(): Verdict {
    const header = this.header;
    if (header === undefined) return noIdentity(this.damage);
    const cwd = this.cwd;
    if (header.subagent) return { ok: false, reason: "subagent", sessionId: header.id, ...(cwd === undefined ? {} : { cwd }) };
    if (cwd === undefined) return { ok: false, reason: "no-session", sessionId: header.id };
    return { ok: true, identity: { sessionId: header.id, cwd, startedAtMs: header.startedAtMs, ownRun: header.ownRun } };
  }

  private get cwd(): string | undefined {
    return this.header?.cwd ?? this.fallbackCwd;
  }

  private headerOf(line: JsonObject): SessionHeader | undefined {
    if (line.type === "session_meta" && isObject(line.payload)) return this.fromSessionMeta(line.payload, line.timestamp);
    if (line.type === undefined && typeof line.id === "string") return fromBareHeader(line);
    return undefined;
  }

  private fromSessionMeta(payload: JsonObject, lineTimestamp: unknown): SessionHeader {
    return {
      id: nonEmptyString(payload.id) ?? threadIdOfFileName(this.path),
      cwd: nonEmptyString(payload.cwd),
      startedAtMs: timeOf(payload.timestamp) ?? timeOf(lineTimestamp),
      ownRun: payload.originator === OWN_RUN_MARKER || payload.thread_source === OWN_RUN_MARKER,
      subagent: isSubagentThread(payload),
    };
  }
}

function fromBareHeader(line: JsonObject): SessionHeader {
  return { id: line.id as string, cwd: nonEmptyString(line.cwd), startedAtMs: timeOf(line.timestamp), ownRun: false, subagent: false };
}

/** Spawned threads say so in one of several ways, depending on the Codex version. */
function isSubagentThread(payload: JsonObject): boolean {
  const source = payload.source;
  if (isObject(source) && ("subagent" in source || "internal" in source)) return true;
  if (payload.thread_source === "subagent") return true;
  if (payload.parent_thread_id !== undefined && payload.parent_thread_id !== null) return true;
  return typeof payload.session_id === "string" && typeof payload.id === "string" && payload.session_id !== payload.id;
}

/** A cwd after the header: a turn's context, or the environment block of a user message. */
function laterCwd(line: JsonObject): string | undefined {
  const payload = isObject(line.payload) ? line.payload : undefined;
  if (line.type === "turn_context") return nonEmptyString(payload?.cwd);
  const item = line.type === "response_item" ? payload : line;
  if (item?.type !== "message" || item.role !== "user") return undefined;
  return cwdFromEnvironmentContext(contentText(item.content));
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: unknown) => (isObject(part) && typeof part.text === "string" ? part.text : "")).join("\n");
}

/** `rollout-<local time>-<thread id>[_<rollout id>].jsonl[.zst]`: the thread id is a UUID. */
function threadIdOfFileName(path: string): string {
  const stem = basename(path).replace(/\.jsonl(\.zst)?$/i, "");
  const match = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:_[^_]*)?$/i.exec(stem);
  return match?.[1] ?? stem;
}
