/** Small text and JSON helpers shared by the agent adapters and their stream parsers. */
import { isAbsolute, relative, sep } from "node:path";

export type Json = Record<string, unknown>;

/** A plain object, or null. */
export function record(value: unknown): Json | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : null;
}

/** A non-blank string, or undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

export function firstLine(value: string): string {
  return (
    value
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "") ?? ""
  );
}

export function clip(value: string, limit: number): string {
  return value.length <= limit ? value : `${value.slice(0, limit - 1)}…`;
}

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  const seconds = ms / 1_000;
  if (seconds < 120) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  const minutes = seconds / 60;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)} min`;
}

/** A path shown relative to the first root that contains it (with `/`), else as given. */
export function displayPath(path: string, roots: readonly string[]): string {
  if (!isAbsolute(path)) return path;
  for (const root of roots) {
    if (path === root) return ".";
    const rel = relative(root, path);
    if (rel && !rel.startsWith("..") && !isAbsolute(rel)) return rel.split(sep).join("/");
  }
  return path;
}

/** Parses a JSON line into an object, or null for anything else (blank, torn, not an object). */
export function parseJsonLine(raw: string): Json | null {
  const trimmed = raw.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    return record(JSON.parse(trimmed));
  } catch {
    return null;
  }
}
