/**
 * Transcript discovery for `ca sync`: which Claude Code and Codex sessions exist,
 * whose they are (session id, cwd, our own run or not) and when each was last active.
 * Listing only stats; reading looks at each file's first and last lines.
 */
import type { TranscriptFile, TranscriptMetaResult } from "./model.js";
import { newReadBuffers } from "./read-plain.js";
import { readTranscriptMetaWith } from "./read-meta.js";

export { TRANSCRIPT_APPS } from "./model.js";
export type { DiscoverySkip, TranscriptApp, TranscriptFile, TranscriptListing, TranscriptMeta, TranscriptMetaResult } from "./model.js";
export { listTranscriptFiles } from "./list.js";

/** How many files are read at once: enough to keep the file system busy, few enough to keep memory flat. */
const READ_CONCURRENCY = 16;

/**
 * Reads one transcript's identity from its first lines and its last activity from
 * its last lines, never the whole file. Never throws: a file that cannot be read or
 * holds no session of its own comes back as a skip with a short reason.
 */
export function readTranscriptMeta(file: TranscriptFile): Promise<TranscriptMetaResult> {
  return readTranscriptMetaWith(file, newReadBuffers());
}

/** Reads many transcripts, a bounded number at a time; results are in input order. */
export async function readTranscriptMetas(files: readonly TranscriptFile[], exclude: readonly string[] = []): Promise<TranscriptMetaResult[]> {
  const results = new Array<TranscriptMetaResult>(files.length);
  let next = 0;
  const worker = async () => {
    const buffers = newReadBuffers();
    while (next < files.length) {
      const index = next++;
      results[index] = await readTranscriptMetaWith(files[index]!, buffers, exclude);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
  return results;
}
