import { extname } from "node:path";
import { sha256Hex } from "../../core/crypto.js";
import { unavailable } from "../errors.js";
import type { SourceRef } from "../model.js";
import { decodeUtf8, fenced, formatSize, looksBinary, readFileHead } from "../text.js";
import type { Preparer } from "./material.js";

export interface TextFile {
  text: string;
  size: number;
  /** Fewer bytes were read than the file holds. */
  cut: boolean;
  fingerprint: string;
}

/** Reads the start of a text file; null when it is binary. Throws what the file system throws. */
export async function readTextFile(path: string, limit: number): Promise<TextFile | null> {
  const head = await readFileHead(path, limit);
  if (looksBinary(head.bytes)) return null;
  const cut = head.bytes.length < head.size;
  return { text: decodeUtf8(head.bytes, cut), size: head.size, cut, fingerprint: sha256Hex(head.bytes) };
}

export const prepareFile: Preparer = async (ref, _ctx, tools) => {
  const display = ref.display ?? ref.path!;
  const file = await readTextFile(ref.path!, tools.limits.fileReadBytes).catch((error: NodeJS.ErrnoException) => {
    throw unavailable(error.code === "ENOENT" ? `file no longer exists: ${display}` : `file is not readable: ${display} (${error.code ?? error.message})`);
  });
  if (!file) throw unavailable(`not a text file: ${display}`);
  return { text: `# File ${display}\n\n${fenced(file.text, fenceLanguage(display))}\n`, notes: fileNotes(ref, file, tools.limits.fileReadBytes), cut: "head" };
};

function fileNotes(ref: SourceRef, file: TextFile, limit: number): string[] {
  const notes: string[] = [];
  if (file.cut) notes.push(`Only the first ${formatSize(limit)} of this ${formatSize(file.size)} file were read.`);
  if (ref.fingerprint && ref.fingerprint !== file.fingerprint) {
    notes.push("The file changed after the ingest was queued; this is its content when the run started.");
  }
  return notes;
}

/** `ts` for src/app.ts: a hint for the reader, nothing more. */
export function fenceLanguage(path: string): string {
  const extension = extname(path).slice(1).toLowerCase();
  return /^[a-z0-9+-]{1,12}$/.test(extension) ? extension : "";
}
