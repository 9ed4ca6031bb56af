import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { codexLoginFix } from "../../src/config/codex-provider.js";

function codexHomeWith(config: string | null): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), "codex-home-"));
  if (config !== null) writeFileSync(join(home, "config.toml"), config);
  return { CODEX_HOME: home, HOME: home };
}

describe("the fix for a rejected Codex key", () => {
  test("OpenAI's own provider, or no config: codex login or OPENAI_API_KEY", () => {
    for (const config of [null, "", 'model_provider = "openai"\n', "this is [not toml"]) {
      expect(codexLoginFix(codexHomeWith(config))).toBe("run `codex login` or set OPENAI_API_KEY");
    }
  });

  test("a custom provider: the variable its env_key names", () => {
    const env = codexHomeWith('model_provider = "acme"\n[model_providers.acme]\nenv_key = "ACME_LLM_KEY"\n');
    expect(codexLoginFix(env)).toBe('set ACME_LLM_KEY (the key Codex\'s model provider "acme" reads)');
  });

  test("a custom provider without env_key: its credentials in config.toml", () => {
    const env = codexHomeWith('model_provider = "local"\n[model_providers.local]\nbase_url = "http://127.0.0.1:11434/v1"\n');
    expect(codexLoginFix(env)).toBe(`check the credentials of Codex's model provider "local" in ${join(env.CODEX_HOME!, "config.toml")}`);
  });
});
