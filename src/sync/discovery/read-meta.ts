import { EXCLUDED_REASON, excludingFolder } from "../../privacy/exclude.js";
import { isZstdPath } from "../../sources/transcripts/lines.js";
import { ClaudeLineReader } from "./claude-reader.js";
import { CodexLineReader } from "./codex-reader.js";
import { closeQuietly, openForReading, statOf } from "./file-io.js";
import type { TranscriptLineReader, Verdict } from "./identity.js";
import type { DiscoverySkip, TranscriptFile, TranscriptMetaResult } from "./model.js";
import { InvalidZstdError, readCompressedTranscript } from "./read-compressed.js";
import { readPlainTranscript, type ReadBuffers } from "./read-plain.js";

/**
 * Reads who a transcript belongs to (from its first lines) and when it was last
 * active (from its last lines). Never throws: a file that cannot be read, or holds
 * no session of its own, comes back as a skip with a short reason.
 */
export async function readTranscriptMetaWith(file: TranscriptFile, buffers: ReadBuffers, exclude: readonly string[] = []): Promise<TranscriptMetaResult> {
  let fd: number;
  try {
    fd = await openForReading(file.path);
  } catch (error) {
    return skipped(file, { ok: false, reason: failureReason(error) });
  }
  try {
    return await readOpened(file, fd, buffers, exclude);
  } catch (error) {
    return skipped(file, { ok: false, reason: failureReason(error) });
  } finally {
    await closeQuietly(fd);
  }
}

async function readOpened(file: TranscriptFile, fd: number, buffers: ReadBuffers, exclude: readonly string[]): Promise<TranscriptMetaResult> {
  const stats = await statOf(fd);
  if (!stats.isFile()) return skipped(file, { ok: false, reason: "unreadable: not a regular file" });
  if (stats.size === 0) return skipped(file, { ok: false, reason: "empty" });
  const reader = new ExclusionGate(lineReaderFor(file), exclude);
  const activity = isZstdPath(file.path)
    ? await readCompressedTranscript(fd, stats.size, reader)
    : await readPlainTranscript(fd, stats.size, reader, buffers);
  const verdict = reader.verdict();
  if (!verdict.ok) return skipped(file, verdict);
  const { identity } = verdict;
  if (reader.excluded) return skipped(file, { ok: false, reason: EXCLUDED_REASON, sessionId: identity.sessionId, cwd: identity.cwd });
  // Never the file's mtime: a copied or restored ~/.codex makes every old session look new.
  const lastActivityMs = activity ?? identity.startedAtMs;
  if (lastActivityMs === null) return skipped(file, { ok: false, reason: UNDATED_REASON, sessionId: identity.sessionId, cwd: identity.cwd });
  return {
    ok: true,
    meta: {
      app: file.app,
      path: file.path,
      sessionId: identity.sessionId,
      cwd: identity.cwd,
      startedAtMs: identity.startedAtMs,
      lastActivityMs,
      ownRun: identity.ownRun,
    },
  };
}

/**
 * A reader whose head, once it names a cwd inside a `privacy.exclude` folder, counts as
 * holding no session worth more: the tail (the conversation's end) is never read.
 */
class ExclusionGate implements TranscriptLineReader {
  excluded = false;

  constructor(
    private readonly inner: TranscriptLineReader,
    private readonly exclude: readonly string[],
  ) {}

  readHeadLine(line: Parameters<TranscriptLineReader["readHeadLine"]>[0]): boolean {
    return this.inner.readHeadLine(line);
  }

  noteHeadDamage(description: string): void {
    this.inner.noteHeadDamage(description);
  }

  get identified(): boolean {
    if (!this.inner.identified) return false;
    const verdict = this.inner.verdict();
    this.excluded = verdict.ok && excludingFolder(verdict.identity.cwd, this.exclude) !== null;
    return !this.excluded;
  }

  readTailLine(line: Parameters<TranscriptLineReader["readTailLine"]>[0]): number | null {
    return this.inner.readTailLine(line);
  }

  verdict() {
    return this.inner.verdict();
  }
}

/** A session with no time in it at all: its age cannot be judged, so only naming it ingests it. */
const UNDATED_REASON = "undated: no line of the session carries a time; ingest it by name to read it";

function lineReaderFor(file: TranscriptFile): TranscriptLineReader {
  return file.app === "claude" ? new ClaudeLineReader(file.path) : new CodexLineReader(file.path);
}

function skipped(file: TranscriptFile, verdict: Extract<Verdict, { ok: false }>): TranscriptMetaResult {
  const skip: DiscoverySkip = { app: file.app, path: file.path, reason: verdict.reason };
  if (verdict.sessionId !== undefined) skip.sessionId = verdict.sessionId;
  if (verdict.cwd !== undefined) skip.cwd = verdict.cwd;
  return { ok: false, skip };
}

function failureReason(error: unknown): string {
  if (error instanceof InvalidZstdError) return `unreadable: not a valid zstd file (${error.message})`;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return "vanished";
  if (code === "EACCES" || code === "EPERM") return "unreadable: permission denied";
  if (code === "EISDIR") return "unreadable: not a regular file";
  return `unreadable: ${code ?? (error instanceof Error ? error.message : String(error))}`;
}
