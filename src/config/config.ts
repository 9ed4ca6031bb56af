import { readFileSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import * as z from "zod/mini";
import { invalid } from "../core/errors.js";
import { parseDuration } from "./duration.js";
import { HARNESS_KINDS, HARNESSES, PREFERRED_HARNESS, type HarnessKind } from "../harnesses/catalog.js";


const duration = z
  .string()
  .check(z.refine((v) => (parseDuration(v) ?? 0) > 0, "must be a positive duration such as 30m or 5h"));
const flag = z.optional(z.boolean());
const task = z.optional(z.strictObject({ enabled: flag, every: z.optional(duration) }));

const ConfigFile = z.strictObject({
  auto_commit: flag,
  harness: z.optional(z.strictObject({ default: z.optional(z.enum(HARNESS_KINDS)), model: z.optional(z.string()) })),
  telemetry: z.optional(z.strictObject({ enabled: flag })),
  automation: z.optional(z.strictObject({ sync: task, garden: task, update: task })),
  runs: z.optional(z.strictObject({ timeout: z.optional(duration), idle_timeout: z.optional(duration) })),
});

export interface Config {
  autoCommit: boolean;
  /** Set only when config.toml names a harness; otherwise the default is detected. */
  harnessDefault: HarnessKind | null;
  harnessModel: string | null;
  runTimeoutMs: number;
  /** An agent silent this long is stopped: a model that never answers must not hold the queue for the whole run timeout. */
  runIdleTimeoutMs: number;
}

export const DEFAULT_RUN_TIMEOUT_MS = 90 * 60 * 1000;
export const DEFAULT_RUN_IDLE_TIMEOUT_MS = 15 * 60 * 1000;

/** Reads config.toml; a missing file means defaults. Only lifecycle commands load it. */
export function loadConfig(path: string): Config {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return defaults();
    throw invalid(`cannot read config ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    throw invalid(`invalid config TOML in ${path}: ${(error as Error).message.split("\n")[0]}`);
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(`invalid config ${path}: ${issue.path.join(".") || "(top level)"}: ${issue.message}`);
  }
  const file = parsed.data;
  const harness = file.harness?.default ?? null;
  const model = file.harness?.model ?? null;
  if (model !== null) {
    const kind = harness ?? PREFERRED_HARNESS;
    const catalog: readonly string[] = HARNESSES[kind].models;
    if (!catalog.includes(model)) {
      throw invalid(`invalid config ${path}: harness.model for ${kind} must be one of: ${catalog.join(", ")}`);
    }
  }
  return {
    autoCommit: file.auto_commit ?? true,
    harnessDefault: harness,
    harnessModel: model,
    runTimeoutMs: file.runs?.timeout ? parseDuration(file.runs.timeout)! : DEFAULT_RUN_TIMEOUT_MS,
    runIdleTimeoutMs: file.runs?.idle_timeout ? parseDuration(file.runs.idle_timeout)! : DEFAULT_RUN_IDLE_TIMEOUT_MS,
  };
}

function defaults(): Config {
  return {
    autoCommit: true,
    harnessDefault: null,
    harnessModel: null,
    runTimeoutMs: DEFAULT_RUN_TIMEOUT_MS,
    runIdleTimeoutMs: DEFAULT_RUN_IDLE_TIMEOUT_MS,
  };
}
