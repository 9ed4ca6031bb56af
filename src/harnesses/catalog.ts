/**
 * The harness catalog: the one place that names the agent CLIs CodeAlmanac can drive,
 * with their executables, install lines and model catalogs. Everything else (config,
 * the CLI's `--using`, selection, adapters) reads it from here.
 */
export const HARNESS_KINDS = ["claude", "codex"] as const;
export type HarnessKind = (typeof HARNESS_KINDS)[number];

export interface HarnessInfo {
  kind: HarnessKind;
  /** For people: "Claude Code", "Codex". */
  label: string;
  /** Looked up on PATH; nothing is started to find it. */
  executable: string;
  /** One line telling the user how to install it; it names the npm package. */
  install: string;
  /**
   * The oldest Node.js major its npm package runs on (the `engines` field of its
   * package.json), for the CI files that install it on a fresh runner.
   */
  nodeMajor: number;
  /** One line telling the user how to authenticate. */
  login: string;
  /** The models a run may use; the first is the default. */
  models: readonly [string, ...string[]];
}

export const HARNESSES: Record<HarnessKind, HarnessInfo> = {
  claude: {
    kind: "claude",
    label: "Claude Code",
    executable: "claude",
    install: "install Claude Code: npm install -g @anthropic-ai/claude-code",
    // 2.1.332 declares node >=22.0.0.
    nodeMajor: 22,
    login: "run `claude auth login` or set ANTHROPIC_API_KEY",
    models: ["claude-sonnet-5", "claude-opus-4-7", "claude-haiku-4-5"],
  },
  codex: {
    kind: "codex",
    label: "Codex",
    executable: "codex",
    install: "install Codex: npm install -g @openai/codex",
    // 0.171.0 declares node >=16.
    nodeMajor: 16,
    login: "run `codex login` or set OPENAI_API_KEY",
    models: ["gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-5.3-codex-spark"],
  },
};

/** When both CLIs are installed and nothing is configured, runs use this one. */
export const PREFERRED_HARNESS: HarnessKind = "codex";

export function isHarnessKind(value: string): value is HarnessKind {
  return (HARNESS_KINDS as readonly string[]).includes(value);
}

export function defaultModel(kind: HarnessKind): string {
  return HARNESSES[kind].models[0];
}
