import { invalid, ProductError } from "../core/errors.js";
import { AUTOMATION_TASKS, DEFAULT_EVERY_MS, type AutomationTask } from "../automation/model.js";
import { defaultModel, HARNESS_KINDS, HARNESSES, PREFERRED_HARNESS, type HarnessKind } from "../harnesses/catalog.js";
import { DEFAULT_RUN_IDLE_TIMEOUT_MS, DEFAULT_RUN_TIMEOUT_MS } from "./config.js";
import { formatDuration, parseDuration } from "./duration.js";
import { userPatternProblem } from "../privacy/user-patterns.js";
import { folderProblem } from "./folders.js";
import { CONFIG_KEYS, LIST_KEYS, type ConfigKey } from "./key-names.js";
import { durationProblem, type DurationKey } from "./ranges.js";
import type { ConfigFileData } from "./schema.js";

export { CONFIG_KEYS, type ConfigKey };

/** What `config list` shows for a harness (or its model) left to detection at queue time. */
export const AUTO = "auto";

type KeyKind = "boolean" | "harness" | "model" | "duration" | "list";

export interface KeySpec {
  key: ConfigKey;
  /** The TOML table holding the key (`automation.sync`), or null at the top level. */
  table: string | null;
  /** The key's name inside its table. */
  name: string;
  kind: KeyKind;
}

/** A value as config.toml stores it. */
export type StoredValue = boolean | string | string[];

export function keySpec(key: ConfigKey): KeySpec {
  const dot = key.lastIndexOf(".");
  const table = dot < 0 ? null : key.slice(0, dot);
  const name = key.slice(dot + 1);
  return { key, table, name, kind: kindOf(key, name) };
}

function kindOf(key: ConfigKey, name: string): KeyKind {
  if (key === "harness.default") return "harness";
  if (key === "harness.model") return "model";
  if (LIST_KEYS.includes(key)) return "list";
  return name === "enabled" || key === "auto_commit" ? "boolean" : "duration";
}

export function isConfigKey(text: string): text is ConfigKey {
  return (CONFIG_KEYS as readonly string[]).includes(text);
}

/** An unknown key is a usage mistake: the message names it and the keys there are. */
export function parseConfigKey(text: string): ConfigKey {
  const key = text.trim();
  if (isConfigKey(key)) return key;
  throw new ProductError("usage", `unknown config key "${text}"; valid keys: ${CONFIG_KEYS.join(", ")}`);
}

/** The scheduled task an `automation.<task>.*` key configures. */
export function automationTaskOf(key: ConfigKey): AutomationTask | null {
  const task = /^automation\.([a-z]+)\./.exec(key)?.[1];
  return (AUTOMATION_TASKS as readonly string[]).includes(task ?? "") ? (task as AutomationTask) : null;
}

/** Reads a key's stored value from a validated file, if the file sets it. */
export function storedValue(file: ConfigFileData, spec: KeySpec): StoredValue | undefined {
  let node: unknown = file;
  for (const part of [...(spec.table?.split(".") ?? []), spec.name]) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  if (Array.isArray(node)) return node.filter((item): item is string => typeof item === "string");
  return typeof node === "boolean" || typeof node === "string" ? node : undefined;
}

/** The harness `harness.model` is checked against: the configured one, else the preferred one. */
export function modelOwner(harness: HarnessKind | undefined): HarnessKind {
  return harness ?? PREFERRED_HARNESS;
}

export function modelFits(model: string, harness: HarnessKind | undefined): boolean {
  return (HARNESSES[modelOwner(harness)].models as readonly string[]).includes(model);
}

/** A key's value as `config list` shows it: what the file says, canonicalised, else the default. */
export function displayValue(file: ConfigFileData, spec: KeySpec): string {
  const stored = storedValue(file, spec);
  if (stored === undefined) return defaultDisplay(file, spec.key);
  if (Array.isArray(stored)) return listDisplay(stored);
  return spec.kind === "duration" ? formatDuration(parseDuration(stored as string)!) : String(stored);
}

/** A list as config.toml writes it: `["one", "two"]`. */
export function listDisplay(items: readonly string[]): string {
  return `[${items.map((item) => JSON.stringify(item)).join(", ")}]`;
}

function defaultDisplay(file: ConfigFileData, key: ConfigKey): string {
  switch (key) {
    case "harness.default":
      return AUTO;
    case "harness.model": {
      // Without a configured harness the run's harness, and so its default model, is detected at queue time.
      const harness = file.harness?.default;
      return harness ? defaultModel(harness) : AUTO;
    }
    case "runs.timeout":
      return formatDuration(DEFAULT_RUN_TIMEOUT_MS);
    case "runs.idle_timeout":
      return formatDuration(DEFAULT_RUN_IDLE_TIMEOUT_MS);
    case "privacy.redact":
    case "privacy.exclude":
      return listDisplay([]);
    default: {
      const task = automationTaskOf(key);
      return task && key.endsWith(".every") ? formatDuration(DEFAULT_EVERY_MS[task]) : "true";
    }
  }
}

/**
 * Turns what the user typed into the value to store, or refuses in one line naming the
 * key and what it accepts. `file` is the current file, which `harness.model` is checked against.
 */
export function normalizeValue(spec: KeySpec, inputs: readonly string[], file: ConfigFileData): StoredValue {
  if (spec.kind === "list") return normalizeList(spec.key, inputs);
  if (inputs.length !== 1) throw new ProductError("usage", `${spec.key} takes one value (got ${inputs.length})`);
  const text = inputs[0]!.trim();
  switch (spec.kind) {
    case "boolean":
      return normalizeBoolean(spec.key, text);
    case "harness":
      return normalizeHarness(text);
    case "model":
      return normalizeModel(text, file.harness?.default);
    case "duration":
      return normalizeDuration(spec.key as DurationKey, text);
  }
}

const LIST_PROBLEM: Partial<Record<ConfigKey, (entry: string) => string | null>> = {
  "privacy.redact": userPatternProblem,
  "privacy.exclude": folderProblem,
};

/**
 * A list key's entries: one per argument, or one argument holding a JSON array of strings
 * (as `config get --json` prints it). Each entry is checked as the file's schema checks it.
 */
function normalizeList(key: ConfigKey, inputs: readonly string[]): string[] {
  const entries = inputs.length === 1 ? (jsonList(inputs[0]!) ?? inputs) : inputs;
  const problem = LIST_PROBLEM[key]!;
  for (const entry of entries) {
    const why = problem(entry);
    if (why) throw invalid(`${key}: ${JSON.stringify(entry)} ${why}`);
  }
  return [...new Set(entries)];
}

function jsonList(text: string): string[] | null {
  if (!text.trimStart().startsWith("[")) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) && parsed.every((item) => typeof item === "string") ? parsed : null;
  } catch {
    return null;
  }
}

function normalizeBoolean(key: ConfigKey, text: string): boolean {
  const lower = text.toLowerCase();
  if (lower === "true" || lower === "false") return lower === "true";
  throw invalid(`${key} must be true or false (got "${text}")`);
}

function normalizeHarness(text: string): HarnessKind {
  const lower = text.toLowerCase();
  const kind = HARNESS_KINDS.find((k) => k === lower);
  if (kind) return kind;
  throw invalid(`harness.default must be one of: ${HARNESS_KINDS.join(", ")} (got "${text}")`);
}

function normalizeModel(text: string, harness: HarnessKind | undefined): string {
  if (modelFits(text, harness)) return text;
  const owner = modelOwner(harness);
  const why = harness ? "" : `; harness.default is unset, so the ${owner} catalog applies`;
  throw invalid(`harness.model for ${owner} must be one of: ${HARNESSES[owner].models.join(", ")} (got "${text}"${why})`);
}

function normalizeDuration(key: DurationKey, text: string): string {
  const problem = durationProblem(key, text);
  if (problem) throw invalid(`${key} ${problem} (got "${text}")`);
  return formatDuration(parseDuration(text)!);
}
