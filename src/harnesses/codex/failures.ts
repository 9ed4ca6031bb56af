/** Codex failure classes, each with the one line that fixes it. */
import { HARNESSES, defaultModel } from "../catalog.js";
import type { HarnessFailure } from "../types.js";

/** `codex exec --json` printed another event stream before this line (0.44). */
export const CODEX_MIN_VERSION = "0.44.0";

export const CODEX_UPGRADE_FIX = "upgrade Codex: npm install -g @openai/codex@latest";

export function codexFailure(code: string, message: string, fix?: string): HarnessFailure {
  return { provider: "codex", code, message, ...(fix ? { fix } : {}) };
}

/**
 * Classifies the text of a failed turn (or a fatal error). `reconnects` is how many
 * `Reconnecting…` notices came before it: a turn that fails after them gave up on the network.
 * `loginFix` is the fix for a rejected key, which depends on the model provider (see provider.ts).
 */
export function classifyCodexFailure(message: string, reconnects = 0, loginFix: string = HARNESSES.codex.login): HarnessFailure {
  const text = message.trim() || "codex turn failed";
  if (/\b401\b|unauthorized|invalid api key|incorrect api key/i.test(text)) {
    return codexFailure("codex.not_authenticated", text, loginFix);
  }
  const missing = /missing environment variable: `?([A-Za-z0-9_]+)`?/i.exec(text);
  if (missing) {
    return codexFailure("codex.not_authenticated", text, `set ${missing[1]} (the key your Codex model provider reads)`);
  }
  if (/requires a newer version of codex/i.test(text)) {
    return codexFailure("codex.model_requires_newer_cli", text, CODEX_UPGRADE_FIX);
  }
  if (/model (is )?not supported|model_not_found|model .* does not exist|unsupported model|not supported when using/i.test(text)) {
    return codexFailure(
      "codex.model_unavailable",
      text,
      `choose another model: set harness.model in config.toml (for example ${defaultModel("codex")})`,
    );
  }
  if (reconnects > 0 || /stream disconnected|reconnecting|error sending request|connection (refused|reset)/i.test(text)) {
    return codexFailure(
      "codex.reconnects_exhausted",
      text,
      "check the network and the model provider's base_url in $CODEX_HOME/config.toml, then retry the job",
    );
  }
  return codexFailure("codex.turn_failed", text);
}

/**
 * How many `Reconnecting... waiting for network` notices in a row, with nothing else in
 * between, make a run hopeless. Codex never gives up on its own in that state (it has no
 * retry bound there, unlike `Reconnecting... n/5`), so without this the run would sit until
 * its idle or run timeout.
 */
export const OFFLINE_NOTICE_LIMIT = 3;

/** `Reconnecting... waiting for network (…)`: Codex cannot reach its model provider at all. */
export function isOfflineNotice(message: string): boolean {
  return /^reconnecting\.*\s*waiting for network\b/i.test(message.trim());
}

/**
 * The failure of a run whose Codex keeps waiting for the network. Not logged in looks the
 * same from here (the request never gets an answer), so the fix names both.
 */
export function unreachable(message: string, loginFix: string = HARNESSES.codex.login): HarnessFailure {
  return codexFailure(
    "codex.provider_unreachable",
    `codex cannot reach its model provider: ${message.trim()} (${OFFLINE_NOTICE_LIMIT} times in a row, nothing else in between)`,
    `check the network; if Codex is not logged in, ${loginFix}`,
  );
}

export function tooOld(version: string | null): HarnessFailure {
  const which = version ? `codex ${version}` : "this codex";
  return codexFailure(
    "codex.cli_too_old",
    `${which} is older than ${CODEX_MIN_VERSION} and prints a --json stream CodeAlmanac cannot read`,
    CODEX_UPGRADE_FIX,
  );
}

export function notInstalled(message: string): HarnessFailure {
  return codexFailure("codex.not_installed", message, HARNESSES.codex.install);
}
