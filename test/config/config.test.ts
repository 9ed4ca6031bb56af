import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_RUN_IDLE_TIMEOUT_MS, DEFAULT_RUN_TIMEOUT_MS, loadConfig } from "../../src/config/config.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ca-config-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function load(text: string) {
  const file = join(dir, "config.toml");
  writeFileSync(file, text);
  return loadConfig(file);
}

describe("config.toml", () => {
  test("no file: defaults, with no harness chosen so it is detected at queue time", () => {
    expect(loadConfig(join(dir, "missing.toml"))).toEqual({
      autoCommit: true,
      harnessDefault: null,
      harnessModel: null,
      runTimeoutMs: DEFAULT_RUN_TIMEOUT_MS,
      runIdleTimeoutMs: DEFAULT_RUN_IDLE_TIMEOUT_MS,
    });
  });

  test("runs.timeout and runs.idle_timeout take durations", () => {
    expect(load('[runs]\ntimeout = "2h"\nidle_timeout = "5m"\n')).toMatchObject({ runTimeoutMs: 7_200_000, runIdleTimeoutMs: 300_000 });
    expect(() => load('[runs]\nidle_timeout = "soon"\n')).toThrow(/runs\.idle_timeout: must be a positive duration/);
  });

  test("harness.model must belong to the chosen harness's catalog", () => {
    expect(load('[harness]\ndefault = "claude"\nmodel = "claude-opus-4-7"\n')).toMatchObject({ harnessDefault: "claude", harnessModel: "claude-opus-4-7" });
    expect(() => load('[harness]\ndefault = "claude"\nmodel = "gpt-5.5"\n')).toThrow(/harness\.model for claude must be one of: claude-sonnet-5, /);
    expect(() => load('[harness]\ndefault = "gemini"\n')).toThrow(/harness\.default/);
  });
});
