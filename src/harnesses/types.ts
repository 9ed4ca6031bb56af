/**
 * The adapter port between lifecycle operations and external coding agents
 * (almanac/architecture/harnesses.md). One adapter per agent CLI; the runner only sees this shape.
 */
import type { HarnessEvent, HarnessKind, HarnessRunStatus, HarnessUsage } from "./events.js";

export type { HarnessEvent, HarnessKind, HarnessRunStatus, HarnessUsage } from "./events.js";

export interface HarnessReadiness {
  kind: HarnessKind;
  available: boolean;
  /** Non-blank, one line. */
  message: string;
  /** What the user can do about it, when not available. */
  repair?: string;
  /** The CLI's version as `x.y.z`, when it could be read; null when it could not. */
  version?: string | null;
}

/**
 * Commands of CodeAlmanac's own CLI that the agent may run during a run; its prompt names
 * them, so each adapter must let them through its CLI's permissions.
 */
export interface AgentCommands {
  /** The name the prompt uses (`codealmanac`), found first on the agent's PATH. */
  executable: string;
  /** The subcommands it may run (`validate`, `search`, `show`). */
  subcommands: readonly string[];
  /** Folders outside the repository those commands write to (their own state root): a sandbox must allow them. */
  writableRoots: readonly string[];
}

export interface HarnessRunRequest {
  /** Passed to the provider verbatim. */
  model: string;
  /** Repository root; the agent runs there. */
  cwd: string;
  /** Forwarded byte-for-byte. */
  prompt: string;
  /** Provider session id chosen up front (a UUID for Claude), so the transcript is known before the run. */
  sessionId: string;
  /** When > 0: stop the agent and fail with code `timeout` after this many milliseconds. */
  timeoutMs?: number;
  /** When > 0: stop the agent and fail with code `timeout` once it has been silent this long. */
  idleTimeoutMs?: number;
  /** Environment for the agent process; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Receives the agent's stderr as it arrives. */
  onStderr?: (text: string) => void;
  /** Aborting stops the agent and ends the run as `cancelled`. */
  signal?: AbortSignal;
  /** The version readiness found (`x.y.z`); adapters pick version-dependent flags with it. */
  cliVersion?: string | null;
  /** CodeAlmanac commands the agent may run; none when absent. */
  commands?: AgentCommands;
}

export interface HarnessFailure {
  provider: HarnessKind;
  /** Stable, machine-readable: `claude.not_authenticated`, `timeout`, … */
  code: string;
  message: string;
  fix?: string;
}

export interface HarnessRunResult {
  kind: HarnessKind;
  status: HarnessRunStatus;
  /** The final answer on success, else the failure text; never blank. */
  outputText: string;
  /** First line (≤ 200 chars) of the final answer, when succeeded. */
  summary: string | null;
  failure: HarnessFailure | null;
  /** Provider session id, when the provider reported one. */
  sessionId: string | null;
  transcriptPath: string | null;
  costUsd: number | null;
  usage: HarnessUsage | null;
  /** Everything delivered to `onEvent`, in order; ends with exactly one `done`. */
  events: HarnessEvent[];
}

export interface HarnessAdapter {
  readonly kind: HarnessKind;
  /** Fast and side-effect free: never starts an agent. */
  readiness(env?: NodeJS.ProcessEnv): Promise<HarnessReadiness>;
  /**
   * Runs the agent to completion. Provider failures resolve as a `failed` result;
   * the promise rejects only when `onEvent` itself throws (with that error).
   */
  run(request: HarnessRunRequest, onEvent: (event: HarnessEvent) => void): Promise<HarnessRunResult>;
}
