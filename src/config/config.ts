import { readFileSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import * as z from "zod/mini";
import { invalid } from "../core/errors.js";
import { parseDuration } from "./duration.js";

export const HARNESS_MODELS = {
  codex: ["gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-5.3-codex-spark"],
  claude: ["claude-sonnet-5", "claude-opus-4-7", "claude-haiku-4-5"],
} as const;
export type HarnessName = keyof typeof HARNESS_MODELS;
export const DEFAULT_MODEL: Record<HarnessName, string> = { codex: "gpt-5.5", claude: "claude-sonnet-5" };

const duration = z
  .string()
  .check(z.refine((v) => (parseDuration(v) ?? 0) > 0, "must be a positive duration such as 30m or 5h"));
const flag = z.optional(z.boolean());
const task = z.optional(z.strictObject({ enabled: flag, every: z.optional(duration) }));

const ConfigFile = z.strictObject({
  auto_commit: flag,
  harness: z.optional(z.strictObject({ default: z.optional(z.enum(["codex", "claude"])), model: z.optional(z.string()) })),
  telemetry: z.optional(z.strictObject({ enabled: flag })),
  automation: z.optional(z.strictObject({ sync: task, garden: task, update: task })),
  runs: z.optional(z.strictObject({ timeout: z.optional(duration) })),
});

export interface Config {
  autoCommit: boolean;
  /** Set only when config.toml names a harness; otherwise the default is detected. */
  harnessDefault: HarnessName | null;
  harnessModel: string | null;
  runTimeoutMs: number;
}

export const DEFAULT_RUN_TIMEOUT_MS = 90 * 60 * 1000;

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
    const catalog: readonly string[] = HARNESS_MODELS[harness ?? "codex"];
    if (!catalog.includes(model)) {
      throw invalid(`invalid config ${path}: harness.model for ${harness ?? "codex"} must be one of: ${catalog.join(", ")}`);
    }
  }
  return {
    autoCommit: file.auto_commit ?? true,
    harnessDefault: harness,
    harnessModel: model,
    runTimeoutMs: file.runs?.timeout ? parseDuration(file.runs.timeout)! : DEFAULT_RUN_TIMEOUT_MS,
  };
}

function defaults(): Config {
  return { autoCommit: true, harnessDefault: null, harnessModel: null, runTimeoutMs: DEFAULT_RUN_TIMEOUT_MS };
}
