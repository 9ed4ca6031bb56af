/**
 * The harness registry: which agent CLI a run uses, whether it can run, and its adapter.
 * Selection happens when a run is queued, so nothing is queued for a harness that
 * cannot run; the executor loads the adapter lazily.
 */
import { ProductError } from "../core/errors.js";
import { resolveExecutable } from "../core/executables.js";
import { defaultModel, HARNESS_KINDS, HARNESSES, PREFERRED_HARNESS, type HarnessKind } from "./catalog.js";
import type { HarnessAdapter } from "./types.js";

/** What app.ts gives the adapters from other domains. */
export interface AdapterWiring {
  /** The fix for a rejected Codex key, which depends on Codex's own config (read by the config domain). */
  codexLoginFix?: (env: NodeJS.ProcessEnv) => string;
}

const ADAPTERS: Record<HarnessKind, (wiring: AdapterWiring) => Promise<HarnessAdapter>> = {
  claude: async () => (await import("./claude/adapter.js")).createClaudeAdapter(),
  codex: async ({ codexLoginFix }) => (await import("./codex/adapter.js")).createCodexAdapter(codexLoginFix ? { loginFix: codexLoginFix } : {}),
};

export function loadAdapter(kind: HarnessKind, wiring: AdapterWiring = {}): Promise<HarnessAdapter> {
  return ADAPTERS[kind](wiring);
}

/** Agent CLIs found on PATH (nothing is started to find them). */
export function installedHarnesses(env: NodeJS.ProcessEnv): HarnessKind[] {
  return HARNESS_KINDS.filter((kind) => resolveExecutable(HARNESSES[kind].executable, env) !== null);
}

export interface HarnessChoice {
  kind: HarnessKind;
  model: string;
}

export interface SelectionRequest {
  /** `--using`. */
  using?: HarnessKind;
  /** `harness.default` and `harness.model` from config.toml. */
  configured: { kind: HarnessKind | null; model: string | null };
  env: NodeJS.ProcessEnv;
}

/**
 * `--using`, else the configured default, else the only installed CLI, else the
 * preferred one when both are installed. The chosen CLI must be installed; readiness
 * stops there on purpose, because logins, API keys in the environment and custom model
 * providers all work without a stored login that a check could see.
 */
export function selectHarness(request: SelectionRequest): HarnessChoice {
  const { using, configured, env } = request;
  const installed = installedHarnesses(env);
  const detected = installed.length === 1 ? installed[0]! : installed.length > 1 ? PREFERRED_HARNESS : null;
  const kind = using ?? configured.kind ?? detected;
  if (kind === null) {
    throw new ProductError(
      "execution_failed",
      `no agent CLI found on PATH: ${HARNESS_KINDS.map((k) => HARNESSES[k].install).join("; or ")}`,
    );
  }
  if (!installed.includes(kind)) {
    const others = installed.filter((k) => k !== kind);
    const switchHint = others.length > 0 ? `, or use --using ${others.join(" or --using ")}` : "";
    throw new ProductError("execution_failed", `${kind} not found on PATH: ${HARNESSES[kind].install}${switchHint}`);
  }
  // harness.model belongs to harness.default, which config validation takes as the preferred one when unset.
  const modelOwner = configured.kind ?? PREFERRED_HARNESS;
  const model = kind === modelOwner && configured.model ? configured.model : defaultModel(kind);
  return { kind, model };
}
