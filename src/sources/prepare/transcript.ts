import { unavailable } from "../errors.js";
import { agentName } from "../transcripts/dialogue.js";
import { renderTranscript } from "../transcripts/render.js";
import type { Preparer } from "./material.js";

/** A session condensed to its dialogue; when cut, its beginning (the task) and end (the outcome) stay. */
export const prepareTranscript: Preparer = async (ref, ctx, tools) => {
  try {
    const rendered = await renderTranscript(ref.path!, ref.format!, {
      maxLineBytes: tools.limits.transcriptLineBytes,
      maxChars: tools.limits.materialChars,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    const session = rendered.info.sessionId ? ` ${rendered.info.sessionId}` : "";
    const title = `${agentName(ref.format!)} session${session}${rendered.info.title ? `: ${rendered.info.title}` : ""}`;
    return { title, text: rendered.text, notes: rendered.notes, cut: "ends" };
  } catch (error) {
    if (ctx.signal?.aborted) throw unavailable("cancelled");
    throw unavailable(`unreadable transcript: ${ref.path}: ${reasonOf(error)}`);
  }
};

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}
