import { basename } from "node:path";
import type { JsonObject } from "../../sources/transcripts/lines.js";
import { noIdentity, nonEmptyString, OWN_RUN_MARKER, timeOf, type TranscriptLineReader, type Verdict } from "./identity.js";

/** Lines Claude Code writes beside the conversation; none of them is a session's identity. */
const BOOKKEEPING_TYPES = new Set([
  "summary",
  "custom-title",
  "ai-title",
  "agent-name",
  "agent-color",
  "last-prompt",
  "queue-operation",
  "file-history-snapshot",
  "mode",
  "permission-mode",
  "tag",
  "pr-link",
  "worktree-state",
  "content-replacement",
  "relocated",
  "api-request",
  "api-request-blob",
  "api-request-shape",
  "tools-used",
  "cost-state",
  "atis-latch",
]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Claude Code session files (1.0.x to 2.1.x). The identity is the first conversation
 * line of the main thread: its `sessionId`, `cwd` and `timestamp`. The project folder
 * name is never used: it encodes the cwd lossily and one folder can hold several cwds.
 * Summary and other bookkeeping lines are skipped (1.0.x even writes summaries of
 * other sessions into the current file), and so are subagent (`isSidechain`) lines,
 * which 1.0.x keeps inline. A later `relocated` line moves the session's cwd.
 */
export class ClaudeLineReader implements TranscriptLineReader {
  private readonly stem: string;
  private sessionId: string | undefined;
  private cwd: string | undefined;
  private startedAtMs: number | null = null;
  private ownRun = false;
  private headRelocatedCwd: string | undefined;
  private tailRelocatedCwd: string | undefined;
  private stemSeen = false;
  private sawSidechain = false;
  private damage: string | undefined;

  constructor(path: string) {
    this.stem = basename(path).replace(/\.jsonl$/i, "");
  }

  get identified(): boolean {
    return this.sessionId !== undefined;
  }

  readHeadLine(line: JsonObject): boolean {
    if (line.type === "relocated") this.headRelocatedCwd = nonEmptyString(line.relocatedCwd) ?? this.headRelocatedCwd;
    if (!isConversationLine(line)) return false;
    if (isSidechainLine(line)) {
      this.sawSidechain = true;
      return false;
    }
    this.sessionId = line.sessionId as string;
    this.cwd = line.cwd as string;
    this.startedAtMs = timeOf(line.timestamp);
    this.noteConversationLine(line);
    return true;
  }

  noteHeadDamage(description: string): void {
    this.damage ??= description;
  }

  readTailLine(line: JsonObject): number | null {
    if (line.type === "relocated") this.tailRelocatedCwd ??= nonEmptyString(line.relocatedCwd);
    if (isSidechainLine(line)) return null;
    if (isConversationLine(line)) this.noteConversationLine(line);
    return timeOf(line.timestamp);
  }

  verdict(): Verdict {
    if (this.sessionId === undefined || this.cwd === undefined) {
      return this.sawSidechain ? { ok: false, reason: "subagent" } : noIdentity(this.damage);
    }
    return {
      ok: true,
      identity: {
        sessionId: this.chosenSessionId(this.sessionId),
        cwd: this.tailRelocatedCwd ?? this.headRelocatedCwd ?? this.cwd,
        startedAtMs: this.startedAtMs,
        ownRun: this.ownRun,
      },
    };
  }

  private noteConversationLine(line: JsonObject): void {
    if (line.entrypoint === OWN_RUN_MARKER) this.ownRun = true;
    if (line.sessionId === this.stem) this.stemSeen = true;
  }

  /**
   * The file is named after its session. Lines copied in from an older session (a
   * resume in early versions) carry that session's id, so the name wins when any of
   * the file's own lines confirms it.
   */
  private chosenSessionId(fromLines: string): string {
    return UUID.test(this.stem) && this.stemSeen ? this.stem : fromLines;
  }
}

/** A line of the conversation: it has a uuid, a session id and a cwd, and is not bookkeeping. */
function isConversationLine(line: JsonObject): boolean {
  return (
    typeof line.uuid === "string" &&
    nonEmptyString(line.sessionId) !== undefined &&
    nonEmptyString(line.cwd) !== undefined &&
    !(typeof line.type === "string" && BOOKKEEPING_TYPES.has(line.type))
  );
}

function isSidechainLine(line: JsonObject): boolean {
  return line.isSidechain === true || line.agentId !== undefined;
}
