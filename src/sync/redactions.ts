import { redact, type PrivacyRules, type RedactionCount } from "../privacy/redact.js";
import { DEFAULT_LIMITS } from "../sources/context.js";
import { renderTranscriptRange } from "../sources/transcripts/range.js";
import type { TranscriptApp } from "./discovery/index.js";

export interface TranscriptPart {
  path: string;
  app: TranscriptApp;
  fromOffset: number;
  toOffset: number;
}

/**
 * How many secrets of each kind the redactor would hide in the part of a session a sync
 * would queue: the part is rendered exactly as the ingest run will render it, then counted.
 * Only the counts leave this function, never a secret.
 */
export async function redactionsOf(part: TranscriptPart, rules: PrivacyRules): Promise<RedactionCount[]> {
  const rendered = await renderTranscriptRange(part.path, part.app, { fromByte: part.fromOffset, toByte: part.toOffset }, {
    maxLineBytes: DEFAULT_LIMITS.transcriptLineBytes,
    maxChars: DEFAULT_LIMITS.materialChars,
    ...(rules.exclude ? { exclude: rules.exclude } : {}),
  });
  return (await redact(rendered.text, rules)).redactions;
}
