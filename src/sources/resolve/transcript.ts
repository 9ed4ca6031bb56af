import { access, constants, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import { invalid } from "../../core/errors.js";
import type { ResolveContext, SourceTools } from "../context.js";
import { NEW_ACTIVITY, type SourceRef, type TranscriptByteRange, type TranscriptFormat } from "../model.js";
import { agentName } from "../transcripts/dialogue.js";
import { sniffTranscriptFormat } from "../transcripts/detect.js";
import { claudeProjectsDir, codexHome, findTranscriptBySessionId, looksLikeSessionId, presentTranscriptPath } from "../transcripts/locate.js";
import { expandHome, repositoryDisplay } from "./paths-common.js";
import { mayLookAt } from "./confine.js";

/**
 * `transcript:<path>` or `transcript:<session-id>`, optionally with `#bytes=<from>-<to>`
 * for part of the session. A rollout that Codex compressed (or re-inflated) since its
 * path was taken is read from its twin.
 */
export async function resolveTranscriptAddress(address: string, value: string, ctx: ResolveContext, tools: SourceTools): Promise<SourceRef> {
  const { target, range } = splitTranscriptRange(address, value);
  if (target === "") throw invalid(`transcript address needs a session id or a path: ${address}`);
  const path = await transcriptPathOf(address, target, ctx, tools.env);
  // Where a confined caller may not look, the answer is the one a missing file gets.
  const present = mayLookAt(path, ctx, tools.env) ? await presentTranscriptPath(path) : path;
  if (!mayLookAt(present, ctx, tools.env)) throw unreadable(path, NO_SUCH_FILE);
  const format = await requireTranscript(present, tools);
  return transcriptRef(address, path, format, ctx, range);
}

const RANGE_MARKER = "#bytes=";
const RANGE_SUFFIX = /^#bytes=(\d+)-(\d+)$/;

/**
 * Splits a `#bytes=<from>-<to>` suffix off the end of a transcript address's value. A
 * marker followed by a path separator belongs to a folder name and is no suffix.
 */
export function splitTranscriptRange(address: string, value: string): { target: string; range?: TranscriptByteRange } {
  const marker = value.lastIndexOf(RANGE_MARKER);
  if (marker === -1 || /[\\/]/.test(value.slice(marker))) return { target: value };
  const match = RANGE_SUFFIX.exec(value.slice(marker));
  const fromByte = Number(match?.[1]);
  const toByte = Number(match?.[2]);
  if (!match || !Number.isSafeInteger(fromByte) || !Number.isSafeInteger(toByte) || fromByte >= toByte) {
    throw invalid(`invalid transcript byte range: ${address} (expected #bytes=<from>-<to> with whole numbers 0 ≤ from < to)`);
  }
  return { target: value.slice(0, marker).trim(), range: { fromByte, toByte } };
}

async function transcriptPathOf(address: string, value: string, ctx: ResolveContext, env: NodeJS.ProcessEnv): Promise<string> {
  const asPath = resolve(ctx.cwd, expandHome(value, env));
  if (isPathLike(value) || (mayLookAt(asPath, ctx, env) && (await exists(asPath)))) return asPath;
  if (!looksLikeSessionId(value)) throw invalid(`transcript address needs a session id or a path: ${address}`);
  const found = await findTranscriptBySessionId(value, env);
  if (found) return found;
  throw invalid(`transcript session not found: ${value} (looked in ${claudeProjectsDir(env)} and ${codexHome(env)})`);
}

function isPathLike(value: string): boolean {
  return /[\\/]/.test(value) || value.startsWith("~") || value.startsWith(".") || /\.jsonl(\.zst)?$/i.test(value);
}

/** The file must exist, be readable, and be recognisably a Claude or Codex transcript. */
export async function requireTranscript(path: string, tools: SourceTools): Promise<TranscriptFormat> {
  const format = await sniffOrReason(path, tools);
  if (typeof format === "string") return format;
  throw unreadable(path, format.reason);
}

const NO_SUCH_FILE = "no such file";

function unreadable(path: string, reason: string) {
  return invalid(`unreadable transcript: ${path}: ${reason}`);
}

async function sniffOrReason(path: string, tools: SourceTools): Promise<TranscriptFormat | { reason: string }> {
  try {
    if ((await stat(path)).isDirectory()) return { reason: "is a folder" };
    await access(path, constants.R_OK);
    return (await sniffTranscriptFormat(path, tools.limits.transcriptLineBytes)) ?? { reason: "not a Claude or Codex transcript" };
  } catch (error) {
    return { reason: fileSystemReason(error) };
  }
}

function fileSystemReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return NO_SUCH_FILE;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}

export function transcriptRef(address: string, path: string, format: TranscriptFormat, ctx: ResolveContext, range?: TranscriptByteRange): SourceRef {
  const display = repositoryDisplay(path, ctx.repositoryRoot);
  return {
    address,
    kind: "transcript",
    title: `${agentName(format)} transcript ${basename(path)}${range ? ` ${NEW_ACTIVITY}` : ""}`,
    path,
    ...(display !== undefined ? { display } : {}),
    format,
    ...(range ? { range } : {}),
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
