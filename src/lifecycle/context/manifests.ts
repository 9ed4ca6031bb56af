import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * One-line summaries of build manifests. They are read as text with a size cap and
 * matched with a few patterns rather than parsed in full: a malformed or unusual
 * manifest yields a shorter line, never an error.
 */

const MAX_MANIFEST_BYTES = 256 * 1024;
const MAX_NAMES = 15;

type Reader = (text: string) => string;

const READERS: Record<string, Reader> = {
  "package.json": packageJson,
  "Cargo.toml": cargoToml,
  "pyproject.toml": pyprojectToml,
  "go.mod": goMod,
  Makefile: makeTargets,
  GNUmakefile: makeTargets,
};

/** undefined when the file is not a manifest this module reads; "" when it had nothing to say. */
export function manifestDetail(root: string, path: string, name: string): string | undefined {
  const reader = READERS[name];
  if (!reader) return undefined;
  const text = readSmallFile(join(root, path));
  return text === null ? "" : reader(text);
}

function readSmallFile(path: string): string | null {
  try {
    if (statSync(path).size > MAX_MANIFEST_BYTES) return null;
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

function packageJson(text: string): string {
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return "";
  }
  const parts: string[] = [];
  if (typeof pkg.name === "string") parts.push(`name ${pkg.name}`);
  const bins = typeof pkg.bin === "string" ? { [String(pkg.name ?? "bin")]: pkg.bin } : pkg.bin;
  if (isRecord(bins)) parts.push(`bin ${named(Object.entries(bins).map(([k, v]) => `${k} → ${String(v)}`))}`);
  for (const field of ["main", "module"]) {
    const value = pkg[field];
    if (typeof value === "string") parts.push(`${field} ${value}`);
  }
  if (isRecord(pkg.scripts)) parts.push(`scripts ${named(Object.keys(pkg.scripts))}`);
  if (Array.isArray(pkg.workspaces)) parts.push(`workspaces ${named(pkg.workspaces.map(String))}`);
  return parts.join("; ");
}

function cargoToml(text: string): string {
  const parts: string[] = [];
  const name = stringKey(tableBody(text, /^\[package\]\s*$/m) ?? "", "name");
  if (name) parts.push(`package ${name}`);
  const bins = text
    .split(/^\[\[bin\]\]\s*$/m)
    .slice(1)
    .map((chunk) => stringKey(untilNextHeader(chunk), "name"))
    .filter((bin): bin is string => bin !== undefined);
  if (bins.length > 0) parts.push(`bins ${named(bins)}`);
  if (/^\[workspace\]/m.test(text)) parts.push("workspace");
  return parts.join("; ");
}

function pyprojectToml(text: string): string {
  const parts: string[] = [];
  const name = stringKey(tableBody(text, /^\[project\]\s*$/m) ?? "", "name");
  if (name) parts.push(`project ${name}`);
  const scripts = keysOf(tableBody(text, /^\[(?:project\.scripts|tool\.poetry\.scripts)\]\s*$/m) ?? "");
  if (scripts.length > 0) parts.push(`scripts ${named(scripts)}`);
  return parts.join("; ");
}

function goMod(text: string): string {
  const module = /^module\s+(\S+)/m.exec(text)?.[1];
  return module ? `module ${module}` : "";
}

function makeTargets(text: string): string {
  const targets = [...text.matchAll(/^([A-Za-z0-9][A-Za-z0-9_./-]*)\s*:(?!=)/gm)].map((m) => m[1]!);
  const unique = [...new Set(targets)];
  return unique.length > 0 ? `targets ${named(unique)}` : "";
}

/** The lines of one TOML table, up to the next table header; null when it is absent. */
function tableBody(text: string, header: RegExp): string | null {
  const start = header.exec(text);
  return start ? untilNextHeader(text.slice(start.index + start[0].length)) : null;
}

function untilNextHeader(text: string): string {
  const end = text.search(/^\s*\[/m);
  return end < 0 ? text : text.slice(0, end);
}

function stringKey(table: string, key: string): string | undefined {
  return new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, "m").exec(table)?.[1];
}

function keysOf(table: string): string[] {
  return [...table.matchAll(/^\s*"?([A-Za-z0-9_.-]+)"?\s*=/gm)].map((m) => m[1]!);
}

function named(names: string[]): string {
  const shown = names.slice(0, MAX_NAMES).join(", ");
  return names.length > MAX_NAMES ? `${shown} (+${names.length - MAX_NAMES} more)` : shown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
