import { randomHex } from "../core/crypto.js";
import { invalid } from "../core/errors.js";
import type { RunKind } from "./model.js";

const RUN_ID = /^[A-Za-z0-9_-]+$/;

/** `<kind>-<UTC YYYYMMDDHHMMSS>-<8 hex>`, e.g. `ingest-20260711120304-3fa9c2d1`. */
export function newRunId(kind: RunKind, now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return `${kind}-${stamp}-${randomHex(4)}`;
}

/** The short form that names the newest run. */
export const LATEST = "latest";

export function parseRunId(input: string): string {
  const id = input.trim();
  if (!RUN_ID.test(id)) throw invalid(`invalid run id "${input}": it must match ${RUN_ID.source}`);
  return id;
}

export function newToken(): string {
  return randomHex(16);
}
