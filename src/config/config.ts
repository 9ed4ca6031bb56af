import { readFileSync } from "node:fs";
import { invalid } from "../core/errors.js";
import { AUTOMATION_TASKS, DEFAULT_EVERY_MS, type AutomationTask, type TaskSettings } from "../automation/model.js";
import type { HarnessKind } from "../harnesses/catalog.js";
import { formatDuration, parseDuration } from "./duration.js";
import { checkConfigText, configError, type ConfigFileData } from "./schema.js";

export interface Config {
  autoCommit: boolean;
  /** Set only when config.toml names a harness; otherwise the default is detected. */
  harnessDefault: HarnessKind | null;
  harnessModel: string | null;
  runTimeoutMs: number;
  /** An agent silent this long is stopped: a model that never answers must not hold the queue for the whole run timeout. */
  runIdleTimeoutMs: number;
  /** The scheduled tasks; `config set`/`apply` reconcile the operating system's scheduler with these. */
  automation: Record<AutomationTask, TaskSettings>;
  /** `privacy.redact`: the user's own secret patterns; `privacy.exclude`: folders whose sessions are never read, as written (`~/…` not yet expanded). */
  privacy: { redact: string[]; exclude: string[] };
}

export const DEFAULT_RUN_TIMEOUT_MS = 90 * 60 * 1000;
/**
 * Five minutes: what a real model may take without a line of output (Claude Code's own
 * stream idle timeout is five minutes too, and the Claude adapter moves it past ours).
 */
export const DEFAULT_RUN_IDLE_TIMEOUT_MS = 5 * 60 * 1000;

/** Reads config.toml; a missing file means defaults. Only lifecycle and config commands load it. */
export function loadConfig(path: string): Config {
  const text = readConfigText(path);
  return text === null ? configFromFile({}) : parseConfig(path, text);
}

/** The file's text, or null when there is no file. */
export function readConfigText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw invalid(`cannot read config ${path}: ${(error as Error).message}`);
  }
}

/** Validates a whole config text (named `path` in errors) and fills in the defaults. */
export function parseConfig(path: string, text: string): Config {
  const checked = checkConfigText(text);
  if (!checked.ok) throw configError(path, checked.problem);
  return configFromFile(checked.data);
}

export function configFromFile(file: ConfigFileData): Config {
  return {
    autoCommit: file.auto_commit ?? true,
    harnessDefault: file.harness?.default ?? null,
    harnessModel: file.harness?.model ?? null,
    runTimeoutMs: durationOr(file.runs?.timeout, DEFAULT_RUN_TIMEOUT_MS),
    runIdleTimeoutMs: durationOr(file.runs?.idle_timeout, DEFAULT_RUN_IDLE_TIMEOUT_MS),
    automation: Object.fromEntries(
      AUTOMATION_TASKS.map((task) => {
        const settings = file.automation?.[task];
        return [task, { enabled: settings?.enabled ?? true, everyMs: durationOr(settings?.every, DEFAULT_EVERY_MS[task]) }];
      }),
    ) as Record<AutomationTask, TaskSettings>,
    privacy: { redact: file.privacy?.redact ?? [], exclude: file.privacy?.exclude ?? [] },
  };
}

/**
 * Settings that are valid one by one but do not make sense together: an idle timeout longer
 * than the run timeout can never fire, so the run timeout stops a silent agent first.
 */
export function configWarnings(config: Config): string[] {
  if (config.runIdleTimeoutMs <= config.runTimeoutMs) return [];
  return [
    `runs.idle_timeout (${formatDuration(config.runIdleTimeoutMs)}) is longer than runs.timeout (${formatDuration(config.runTimeoutMs)}), so it never fires: a silent agent is stopped by the run timeout first`,
  ];
}

/** The schema has already checked that a present duration parses. */
function durationOr(text: string | undefined, fallback: number): number {
  return text === undefined ? fallback : parseDuration(text)!;
}
