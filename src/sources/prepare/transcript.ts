import { SourceUnavailable, unavailable } from "../errors.js";
import { NEW_ACTIVITY, type SourceRef } from "../model.js";
import { agentName, type TranscriptInfo } from "../transcripts/dialogue.js";
import { presentTranscriptPath } from "../transcripts/locate.js";
import { renderTranscriptRange } from "../transcripts/range.js";
import { renderTranscript, type RenderOptions } from "../transcripts/render.js";
import type { Preparer } from "./material.js";

/**
 * A session condensed to its dialogue; when cut, its beginning (the task) and end (the
 * outcome) stay. A ref with a byte range gets only that part, after a few earlier turns.
 */
export const prepareTranscript: Preparer = async (ref, ctx, tools) => {
  const path = await presentTranscriptPath(ref.path!);
  try {
    const options: RenderOptions = {
      maxLineBytes: tools.limits.transcriptLineBytes,
      maxChars: tools.limits.materialChars,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.privacy?.exclude ? { exclude: ctx.privacy.exclude } : {}),
    };
    const rendered = await render(ref, path, options);
    const notes = path === ref.path ? rendered.notes : [twinNote(ref.path!, path), ...rendered.notes];
    return { title: briefTitle(ref, rendered.info, rendered.partial), text: rendered.text, notes, cut: "ends" };
  } catch (error) {
    if (ctx.signal?.aborted) throw unavailable("cancelled");
    if (error instanceof SourceUnavailable) throw error;
    throw unavailable(`unreadable transcript: ${path}: ${reasonOf(error)}`);
  }
};

async function render(ref: SourceRef, path: string, options: RenderOptions) {
  if (ref.range) return renderTranscriptRange(path, ref.format!, ref.range, options);
  return { ...(await renderTranscript(path, ref.format!, options)), partial: false };
}

function briefTitle(ref: SourceRef, info: TranscriptInfo, partial: boolean): string {
  const session = info.sessionId ? ` ${info.sessionId}` : "";
  const title = `${agentName(ref.format!)} session${session}${info.title ? `: ${info.title}` : ""}`;
  return partial ? `${title} ${NEW_ACTIVITY}` : title;
}

function twinNote(gone: string, read: string): string {
  const how = read.endsWith(".zst") ? "compressed" : "decompressed";
  return `${gone} no longer exists; its ${how} twin ${read} holds the same lines and was read instead.`;
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
