import { DURATION_RANGES, type DurationKey } from "./ranges.js";

/**
 * The keys `config` lists, gets and sets, in the order `config list` prints them, with what
 * each accepts. It imports only the duration ranges: the CLI's help reads it without loading the TOML parser.
 */
export const CONFIG_KEYS = [
  "auto_commit",
  "harness.default",
  "harness.model",
  "runs.timeout",
  "runs.idle_timeout",
  "automation.sync.enabled",
  "automation.sync.every",
  "automation.garden.enabled",
  "automation.garden.every",
  "privacy.redact",
  "privacy.exclude",
] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

export const KEY_HELP: Record<ConfigKey, string> = {
  auto_commit: "true or false: whether a successful run commits its wiki changes (default true)",
  "harness.default": "claude or codex (default: detected from the installed CLIs)",
  "harness.model": "a model of that harness (default: the harness's default model)",
  "runs.timeout": `${span("runs.timeout")}, such as 90m or 2h: the longest a run may take (default 90m)`,
  "runs.idle_timeout": `${span("runs.idle_timeout")}: how long an agent may stay silent (default 5m)`,
  "automation.sync.enabled": "true or false: schedule `sync` (default true)",
  "automation.sync.every": `${span("automation.sync.every")} (default 5h)`,
  "automation.garden.enabled": "true or false: schedule `garden` (default true)",
  "automation.garden.every": `${span("automation.garden.every")} (default 24h)`,
  "privacy.redact": "regular expressions, one per argument: text they match is hidden like a secret before any prompt or commit (default none)",
  "privacy.exclude": "folders, one per argument (absolute or ~/…): agent sessions started in them are never read (default none)",
};

/** The keys that hold a list of strings; `config set` takes each entry as its own argument. */
export const LIST_KEYS: readonly ConfigKey[] = ["privacy.redact", "privacy.exclude"];

function span(key: DurationKey): string {
  const range = DURATION_RANGES[key];
  return `a duration from ${range.min} to ${range.max}`;
}
