import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { homeDir } from "../core/paths.js";
import { HARNESSES } from "../harnesses/catalog.js";

/** `$CODEX_HOME`, or `~/.codex`. */
function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME?.trim() || join(homeDir(env), ".codex");
}

/**
 * The fix for a rejected Codex key (the codex adapter takes it from app.ts, since reading
 * TOML is this domain's). A custom `model_provider` reads its own `env_key`, so telling
 * its user to set OPENAI_API_KEY would send them after the wrong variable.
 */
export function codexLoginFix(env: NodeJS.ProcessEnv): string {
  const provider = customProvider(env);
  if (!provider) return HARNESSES.codex.login;
  if (provider.envKey) return `set ${provider.envKey} (the key Codex's model provider "${provider.name}" reads)`;
  return `check the credentials of Codex's model provider "${provider.name}" in ${join(codexHome(env), "config.toml")}`;
}

/** The top-level `model_provider` of Codex's config.toml and its table's `env_key`, when one is set and is not OpenAI's own. */
function customProvider(env: NodeJS.ProcessEnv): { name: string; envKey: string | null } | null {
  let config: Record<string, unknown>;
  try {
    config = parseToml(readFileSync(join(codexHome(env), "config.toml"), "utf8"));
  } catch {
    return null;
  }
  const name = config.model_provider;
  if (typeof name !== "string" || name === "" || name === "openai") return null;
  const providers = config.model_providers;
  const table = providers !== null && typeof providers === "object" ? (providers as Record<string, unknown>)[name] : undefined;
  const envKey = table !== null && typeof table === "object" ? (table as Record<string, unknown>).env_key : undefined;
  return { name, envKey: typeof envKey === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(envKey) ? envKey : null };
}
