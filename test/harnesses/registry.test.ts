import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { HARNESS_KINDS, HARNESSES, defaultModel } from "../../src/harnesses/catalog.js";
import { installedHarnesses, loadAdapter, selectHarness } from "../../src/harnesses/registry.js";

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ca-registry-"));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A PATH holding stub executables for the named CLIs (nothing is run). */
function pathWith(...names: string[]): NodeJS.ProcessEnv {
  const bin = join(dir, `bin-${names.join("-") || "none"}`);
  mkdirSync(bin, { recursive: true });
  for (const name of names) {
    writeFileSync(join(bin, name), "#!/bin/sh\nexit 0\n");
    chmodSync(join(bin, name), 0o755);
  }
  return { PATH: bin };
}

const none = { kind: null, model: null };

describe("harness selection when a run is queued", () => {
  test("--using wins over config and detection", () => {
    const env = pathWith("claude", "codex");
    expect(selectHarness({ using: "claude", configured: { kind: "codex", model: "gpt-5.4" }, env })).toEqual({
      kind: "claude",
      model: defaultModel("claude"),
    });
  });

  test("the configured default, with its configured model", () => {
    expect(selectHarness({ configured: { kind: "claude", model: "claude-opus-4-7" }, env: pathWith("claude", "codex") })).toEqual({
      kind: "claude",
      model: "claude-opus-4-7",
    });
  });

  test("harness.model without harness.default belongs to codex, and is used when codex runs", () => {
    const configured = { kind: null, model: "gpt-5.4-mini" };
    expect(selectHarness({ configured, env: pathWith("codex") })).toEqual({ kind: "codex", model: "gpt-5.4-mini" });
    expect(selectHarness({ configured, env: pathWith("claude") })).toEqual({ kind: "claude", model: "claude-sonnet-5" });
  });

  test("with no config, the only installed CLI", () => {
    expect(selectHarness({ configured: none, env: pathWith("claude") })).toEqual({ kind: "claude", model: "claude-sonnet-5" });
    expect(selectHarness({ configured: none, env: pathWith("codex") })).toEqual({ kind: "codex", model: "gpt-5.5" });
  });

  test("with both installed and no config, codex", () => {
    expect(selectHarness({ configured: none, env: pathWith("claude", "codex") }).kind).toBe("codex");
  });

  test("with none installed, refused with the install line of each", () => {
    expect(() => selectHarness({ configured: none, env: pathWith() })).toThrow(
      "no agent CLI found on PATH: install Claude Code: npm install -g @anthropic-ai/claude-code; or install Codex: npm install -g @openai/codex",
    );
  });

  test("a chosen CLI that is not installed is refused at queue time, naming the one that is", () => {
    expect(() => selectHarness({ using: "codex", configured: none, env: pathWith("claude") })).toThrow(
      "codex not found on PATH: install Codex: npm install -g @openai/codex, or use --using claude",
    );
    expect(() => selectHarness({ configured: { kind: "claude", model: null }, env: pathWith() })).toThrow(
      "claude not found on PATH: install Claude Code: npm install -g @anthropic-ai/claude-code",
    );
  });

  test("a non-executable file on PATH does not count as installed", () => {
    const env = pathWith();
    writeFileSync(join(env.PATH!, "claude"), "not executable");
    chmodSync(join(env.PATH!, "claude"), 0o644);
    expect(installedHarnesses(env)).toEqual([]);
  });
});

describe("the registry", () => {
  test("every kind has an adapter of its own kind, an install line and a model catalog", async () => {
    for (const kind of HARNESS_KINDS) {
      const adapter = await loadAdapter(kind);
      expect(adapter.kind).toBe(kind);
      expect(HARNESSES[kind].install).toMatch(/npm install -g /);
      expect(HARNESSES[kind].models.length).toBeGreaterThan(0);
    }
  });
});
