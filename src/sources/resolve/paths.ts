import { realpath, stat } from "node:fs/promises";
import type { Stats } from "node:fs";
import { resolve } from "node:path";
import { sha256Hex } from "../../core/crypto.js";
import { invalid } from "../../core/errors.js";
import type { ResolveContext, SourceTools } from "../context.js";
import type { SourceRef } from "../model.js";
import { looksBinary, readFileHead } from "../text.js";
import { hasTranscriptExtension, sniffTranscriptFormat } from "../transcripts/detect.js";
import { expandHome, isInsideWiki, realPathOr, relativeInside, WIKI_FOLDER } from "./paths-common.js";
import { transcriptRef } from "./transcript.js";
import { mayLookAt } from "./confine.js";

/**
 * A local path: resolved against the user's cwd (not the repository root, which may be
 * elsewhere when `--wiki` picked it), checked to exist, to lie inside the repository
 * after symlinks are resolved, and to be outside the wiki folder. Returns null when
 * nothing exists there, so the caller can try other readings (a bare `A..B` range),
 * and also when a confined caller may not look there (src/sources/resolve/confine.ts).
 */
export async function resolvePathAddress(address: string, ctx: ResolveContext, tools: SourceTools): Promise<SourceRef | null> {
  const absolute = resolve(ctx.cwd, expandHome(address.trim(), tools.env));
  // Where a confined caller may not look, nothing is probed: the path reads as missing.
  if (!mayLookAt(absolute, ctx, tools.env)) return null;
  const stats = await statOrNull(absolute, address);
  if (!stats) return null;
  const real = await realpath(absolute);
  const root = realPathOr(ctx.repositoryRoot);
  const display = relativeInside(root, real);
  if (stats.isFile()) return resolveFile(address, real, display, ctx, tools);
  if (!stats.isDirectory()) throw invalid(`not a file or folder: ${address}`);
  if (display === null) throw invalid(`path is outside repository ${ctx.repositoryRoot}: ${real}`);
  refuseWikiPath(display === "" ? "." : display);
  return folderRef(address, real, display);
}

async function statOrNull(path: string, address: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw invalid(`path is not readable: ${address} (${code ?? "error"})`);
  }
}

function refuseWikiPath(display: string): void {
  if (isInsideWiki(display)) throw invalid(`path is inside the wiki folder ${WIKI_FOLDER}/: ${display}`);
}

/**
 * Transcripts live in the agents' own folders, outside any repository, so a file outside
 * the repository is accepted when it is one; any other file there is refused.
 */
async function resolveFile(address: string, real: string, display: string | null, ctx: ResolveContext, tools: SourceTools): Promise<SourceRef> {
  if (display !== null) refuseWikiPath(display);
  const transcript = hasTranscriptExtension(real) ? await sniffQuietly(real, tools) : null;
  if (transcript) return transcriptRef(address, real, transcript, ctx);
  if (display === null) throw invalid(`path is outside repository ${ctx.repositoryRoot}: ${real}`);
  const head = await readFileHead(real, tools.limits.fileReadBytes).catch(() => {
    throw invalid(`path is not readable: ${address}`);
  });
  if (looksBinary(head.bytes)) throw invalid(`not a text file: ${display}`);
  return { address, kind: "file", title: `File ${display}`, path: real, display, fingerprint: sha256Hex(head.bytes) };
}

async function sniffQuietly(path: string, tools: SourceTools) {
  try {
    return await sniffTranscriptFormat(path, tools.limits.transcriptLineBytes);
  } catch {
    return null;
  }
}

function folderRef(address: string, real: string, rel: string): SourceRef {
  const display = rel === "" ? "." : rel;
  const title = rel === "" ? "Folder (repository root)" : `Folder ${rel}/`;
  return { address, kind: "folder", title, path: real, display };
}
