import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DEFAULT_RUN_IDLE_TIMEOUT_MS, DEFAULT_RUN_TIMEOUT_MS, loadConfig } from "../../src/config/config.js";
import { formatDuration, isoDuration, parseDuration } from "../../src/config/duration.js";

const HOUR = 3_600_000;
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
      automation: { sync: { enabled: true, everyMs: 5 * HOUR }, garden: { enabled: true, everyMs: 24 * HOUR } },
      privacy: { redact: [], exclude: [] },
    });
  });

  test("automation tasks take enabled and a human duration; files of older versions still load", () => {
    const config = load('telemetry = { enabled = false }\n[automation.sync]\nenabled = false\n[automation.garden]\nevery = "2 days"\n[automation.update]\nevery = "1h"\n');
    expect(config.automation).toEqual({ sync: { enabled: false, everyMs: 5 * HOUR }, garden: { enabled: true, everyMs: 48 * HOUR } });
  });

  test("errors are one line naming the file, the key and the problem", () => {
    const file = join(dir, "config.toml");
    const message = (text: string) => {
      try {
        load(text);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error("loaded");
    };
    expect(message("verbose = true\n")).toBe(`invalid config ${file}: unknown key "verbose"`);
    expect(message("[harness]\nflavour = 1\n")).toBe(`invalid config ${file}: unknown key "harness.flavour"`);
    expect(message("[viewer]\nport = 1\n")).toBe(`invalid config ${file}: unknown key "viewer"`);
    expect(message('auto_commit = "yes"\n')).toBe(`invalid config ${file}: auto_commit: must be true or false`);
    expect(message("harness = 3\n")).toBe(`invalid config ${file}: harness: must be a table`);
    expect(message("[automation.sync]\nevery = 5\n")).toBe(`invalid config ${file}: automation.sync.every: must be a duration such as "30m" or "5h"`);
    // The parser's own wording follows the file name and the line.
    const syntax = message("a = 1\n[runs\n");
    expect(syntax.startsWith(`invalid config TOML in ${file}, line 2: `)).toBe(true);
    expect(syntax).not.toContain("\n");
  });

  test("runs.timeout and runs.idle_timeout take durations", () => {
    expect(load('[runs]\ntimeout = "2h"\nidle_timeout = "5m"\n')).toMatchObject({ runTimeoutMs: 7_200_000, runIdleTimeoutMs: 300_000 });
    expect(() => load('[runs]\nidle_timeout = "soon"\n')).toThrow(/runs\.idle_timeout: must be a duration such as 90s, 30m, 5h or 1d \(got "soon"\)$/);
  });

  test("a hand-edited duration outside its key's range is refused on load, naming the key, the value and the range", () => {
    const file = join(dir, "config.toml");
    const cases: [string, string][] = [
      ['[runs]\ntimeout = "25d"\n', 'runs.timeout: must be between 1m and 7d (got "25d")'],
      ['[runs]\ntimeout = "1ms"\n', 'runs.timeout: must be between 1m and 7d (got "1ms")'],
      ['[runs]\nidle_timeout = "30s"\n', 'runs.idle_timeout: must be between 1m and 7d (got "30s")'],
      ['[automation.sync]\nevery = "1ms"\n', 'automation.sync.every: must be between 1m and 365d (got "1ms")'],
      ['[automation.garden]\nevery = "400d"\n', 'automation.garden.every: must be between 1m and 365d (got "400d")'],
    ];
    for (const [text, detail] of cases) expect(() => load(text)).toThrow(`invalid config ${file}: ${detail}`);
    expect(load('[runs]\ntimeout = "7d"\nidle_timeout = "1m"\n')).toMatchObject({ runTimeoutMs: 7 * 24 * HOUR, runIdleTimeoutMs: 60_000 });
    // No longer read: older files keep loading whatever interval they held.
    expect(load('[automation.update]\nevery = "1ms"\n').automation.sync.everyMs).toBe(5 * HOUR);
  });

  test("harness.model must belong to the chosen harness's catalog", () => {
    expect(load('[harness]\ndefault = "claude"\nmodel = "claude-opus-4-7"\n')).toMatchObject({ harnessDefault: "claude", harnessModel: "claude-opus-4-7" });
    expect(() => load('[harness]\ndefault = "claude"\nmodel = "gpt-5.5"\n')).toThrow(/harness\.model for claude must be one of: claude-sonnet-5, /);
    expect(() => load('[harness]\ndefault = "gemini"\n')).toThrow(/harness\.default/);
  });
});

describe("durations", () => {
  test("the canonical spelling: whole hours, else whole minutes, else whole seconds", () => {
    const canonical = (text: string) => formatDuration(parseDuration(text)!);
    expect(["1d", "1.5h", "90m", "90s", "5 hours", "2w", "2.5s", "61m"].map(canonical)).toEqual(["24h", "90m", "90m", "90s", "5h", "336h", "2s", "61m"]);
  });

  test("ISO-8601 for JSON output", () => {
    expect([5 * HOUR, 1.5 * HOUR, 45_000, 0, 24 * HOUR + 1_000].map(isoDuration)).toEqual(["PT5H", "PT1H30M", "PT45S", "PT0S", "PT24H1S"]);
  });
});
