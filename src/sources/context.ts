import type { CommandRunner } from "../core/command.js";
import type { PrivacyRules } from "../privacy/redact.js";

/** What the sources domain needs from the outside world; app.ts wires the real ones in. */
export interface SourcesDeps {
  run: CommandRunner;
  env: NodeJS.ProcessEnv;
  /** Defaults to the global fetch; tests may hand in their own. */
  fetch?: typeof globalThis.fetch;
  /** Overrides for the bounds below (tests shrink timeouts instead of waiting them out). */
  limits?: Partial<SourceLimits>;
  /** `privacy.redact` and `privacy.exclude` from config; none when absent. */
  privacyRules?: () => Promise<PrivacyRules>;
}

export interface ResolveContext {
  /** Where the user typed the command: relative paths resolve against it. */
  cwd: string;
  repositoryRoot: string;
  /**
   * The addresses come from an agent (the MCP server), not from the user at a shell: a
   * local path must lie inside the repository or the agents' transcript folders, and one
   * elsewhere is answered exactly as a missing one, so the answer never tells whether a
   * file exists there (src/sources/resolve/confine.ts).
   */
  confined?: boolean;
}

export interface PrepareContext {
  repositoryRoot: string;
  /** The run's own folder in the state root; material files go under `<workDir>/sources/`. */
  workDir: string;
  /** Total characters of source content the prompt may hold, shared by all sources. */
  budgetChars: number;
  signal?: AbortSignal;
  /** Set by the service from `SourcesDeps.privacyRules`, for the preparers. */
  privacy?: PrivacyRules;
}

export interface SourceLimits {
  /** Bytes read of one file (a file alone or one of a folder's files). */
  fileReadBytes: number;
  /** Files included from one folder. */
  folderFiles: number;
  /** Directory entries a walk outside git looks at before it stops. */
  folderWalkEntries: number;
  /** Each git or gh command. */
  commandTimeoutMs: number;
  /** stdout kept of each git or gh command (a huge diff is cut there, and the cut is stated). */
  commandOutputBytes: number;
  /** The whole URL request, body included. */
  urlTimeoutMs: number;
  urlMaxBytes: number;
  /** A transcript line longer than this (an inlined image, a pasted log) is skipped. */
  transcriptLineBytes: number;
  /** Characters of one rendered material kept in memory; beyond it the middle is dropped. */
  materialChars: number;
}

export const DEFAULT_LIMITS: SourceLimits = {
  fileReadBytes: 200_000,
  folderFiles: 25,
  folderWalkEntries: 20_000,
  commandTimeoutMs: 30_000,
  commandOutputBytes: 8 * 1024 * 1024,
  urlTimeoutMs: 20_000,
  urlMaxBytes: 5 * 1024 * 1024,
  transcriptLineBytes: 8 * 1024 * 1024,
  materialChars: 16_000_000,
};

/** Everything a resolver or preparer needs, bundled once per call. */
export interface SourceTools {
  run: CommandRunner;
  env: NodeJS.ProcessEnv;
  fetch: typeof globalThis.fetch;
  limits: SourceLimits;
}

export function sourceTools(deps: SourcesDeps): SourceTools {
  return {
    run: deps.run,
    env: deps.env,
    fetch: deps.fetch ?? globalThis.fetch,
    limits: { ...DEFAULT_LIMITS, ...deps.limits },
  };
}
