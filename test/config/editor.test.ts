import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { Automation, AutomationTask, ReconcileResult, TaskSettings } from "../../src/automation/model.js";
import { ConfigEditor } from "../../src/config/editor.js";
import { loadConfig } from "../../src/config/config.js";
import { ProductError } from "../../src/core/errors.js";

const HOUR = 3_600_000;
const KEYS =
  "auto_commit, harness.default, harness.model, runs.timeout, runs.idle_timeout, automation.sync.enabled, automation.sync.every, automation.garden.enabled, automation.garden.every, privacy.redact, privacy.exclude";

let dir: string;
let path: string;
let calls: { task: AutomationTask; settings: TaskSettings }[];
let failWith: string | null;
let writes: number;

/** Stands in for the scheduler; records what config asked of it. */
const automation: Automation = {
  async reconcile(task, settings): Promise<ReconcileResult> {
    calls.push({ task, settings });
    if (failWith) throw new Error(`${failWith}\nsecond line`);
    return { task, enabled: settings.enabled, intervalMs: settings.everyMs, scheduler: "cron", location: "crontab", changed: true };
  },
  status: async () => [],
  removeAll: async () => [],
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ca-config-editor-"));
  path = join(dir, "state", "config.toml");
  calls = [];
  failWith = null;
  writes = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function editor(): ConfigEditor {
  return new ConfigEditor({ path, automation: async () => automation, onWrite: () => writes++ });
}

function write(text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

function read(): string {
  return readFileSync(path, "utf8");
}

function failure(fn: () => unknown): ProductError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ProductError) return error;
    throw error;
  }
  throw new Error("did not fail");
}

async function rejection(promise: Promise<unknown>): Promise<ProductError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProductError) return error;
    throw error;
  }
  throw new Error("did not fail");
}

describe("list and get", () => {
  test("no file: every key with its default, harness left to detection", () => {
    expect(editor().list()).toEqual([
      { key: "auto_commit", value: "true", isDefault: true },
      { key: "harness.default", value: "auto", isDefault: true },
      { key: "harness.model", value: "auto", isDefault: true },
      { key: "runs.timeout", value: "90m", isDefault: true },
      { key: "runs.idle_timeout", value: "5m", isDefault: true },
      { key: "automation.sync.enabled", value: "true", isDefault: true },
      { key: "automation.sync.every", value: "5h", isDefault: true },
      { key: "automation.garden.enabled", value: "true", isDefault: true },
      { key: "automation.garden.every", value: "24h", isDefault: true },
      { key: "privacy.redact", value: "[]", isDefault: true, items: [] },
      { key: "privacy.exclude", value: "[]", isDefault: true, items: [] },
    ]);
    expect(existsSync(path)).toBe(false);
  });

  test("values from the file, durations in canonical form; older keys are accepted but not listed", () => {
    write('telemetry = { enabled = false }\n[harness]\ndefault = "claude"\n[runs]\ntimeout = "1.5 hours"\n[automation.update]\nenabled = false\n');
    const entries = editor().list();
    expect(entries.map((e) => e.key)).not.toContain("telemetry.enabled");
    expect(entries.filter((e) => !e.isDefault)).toEqual([
      { key: "harness.default", value: "claude", isDefault: false },
      { key: "runs.timeout", value: "90m", isDefault: false },
    ]);
    expect(editor().get("harness.model")).toEqual({ key: "harness.model", value: "claude-sonnet-5", isDefault: true });
  });

  test("an unknown key is a usage error naming it and the keys there are", () => {
    for (const key of ["nope", "telemetry.enabled", "automation.update.every"]) {
      const error = failure(() => editor().get(key));
      expect(error.code).toBe("usage");
      expect(error.message).toBe(`unknown config key "${key}"; valid keys: ${KEYS}`);
    }
  });

  test("an invalid file is refused in one line naming the file and the key", () => {
    write("[harness]\nflavour = 1\n");
    const error = failure(() => editor().list());
    expect(error.code).toBe("validation_failed");
    expect(error.message).toBe(`invalid config ${path}: unknown key "harness.flavour"`);
  });
});

describe("set", () => {
  test("normalises what was typed and writes it", async () => {
    const cases: [string, string, string, string][] = [
      ["auto_commit", " FALSE ", "false", "auto_commit = false\n"],
      ["harness.default", "Claude", "claude", '[harness]\ndefault = "claude"\n'],
      ["runs.timeout", "1d", "24h", '[runs]\ntimeout = "24h"\n'],
      ["runs.timeout", "1.5h", "90m", '[runs]\ntimeout = "90m"\n'],
      ["runs.idle_timeout", "90s", "90s", '[runs]\nidle_timeout = "90s"\n'],
      ["runs.idle_timeout", "90.5s", "90s", '[runs]\nidle_timeout = "90s"\n'],
      ["runs.timeout", "1 minute", "1m", '[runs]\ntimeout = "1m"\n'],
      ["runs.timeout", "7d", "168h", '[runs]\ntimeout = "168h"\n'],
      ["automation.sync.every", "60s", "1m", '[automation.sync]\nevery = "1m"\n'],
      ["automation.sync.every", "52w", "8736h", '[automation.sync]\nevery = "8736h"\n'],
      ["automation.garden.every", "2 days", "48h", '[automation.garden]\nevery = "48h"\n'],
    ];
    for (const [key, input, value, text] of cases) {
      rmSync(dirname(path), { recursive: true, force: true });
      const change = await editor().set(key, input);
      expect(change).toMatchObject({ path, key, value, written: true, cleared: [] });
      expect(read()).toBe(text);
    }
  });

  test("a bad value is refused in one line naming the key and what it accepts; nothing is written", async () => {
    const cases: [string, string, string][] = [
      ["auto_commit", "yes", 'auto_commit must be true or false (got "yes")'],
      ["harness.default", "gemini", 'harness.default must be one of: claude, codex (got "gemini")'],
      [
        "harness.model",
        "claude-opus-4-7",
        'harness.model for codex must be one of: gpt-5.5, gpt-5.4, gpt-5.4-mini, gpt-5.3-codex-spark (got "claude-opus-4-7"; harness.default is unset, so the codex catalog applies)',
      ],
      ["runs.timeout", "soon", 'runs.timeout must be a duration such as 90s, 30m, 5h or 1d (got "soon")'],
      ["runs.timeout", "0m", 'runs.timeout must be between 1m and 7d (got "0m")'],
      ["runs.timeout", "59s", 'runs.timeout must be between 1m and 7d (got "59s")'],
      ["runs.timeout", "25d", 'runs.timeout must be between 1m and 7d (got "25d")'],
      ["runs.timeout", "7.01d", 'runs.timeout must be between 1m and 7d (got "7.01d")'],
      ["runs.idle_timeout", "2.5s", 'runs.idle_timeout must be between 1m and 7d (got "2.5s")'],
      ["runs.idle_timeout", "30d", 'runs.idle_timeout must be between 1m and 7d (got "30d")'],
      ["automation.sync.every", "1ms", 'automation.sync.every must be between 1m and 365d (got "1ms")'],
      ["automation.sync.every", "500ms", 'automation.sync.every must be between 1m and 365d (got "500ms")'],
      ["automation.garden.every", "366d", 'automation.garden.every must be between 1m and 365d (got "366d")'],
    ];
    for (const [key, input, message] of cases) {
      const error = await rejection(editor().set(key, input));
      expect(error.code).toBe("validation_failed");
      expect(error.message).toBe(message);
    }
    expect(existsSync(path)).toBe(false);
    expect(writes).toBe(0);
  });

  test("harness.model is checked against the configured harness", async () => {
    write('[harness]\ndefault = "claude"\n');
    await expect(editor().set("harness.model", "gpt-5.5")).rejects.toThrow(
      'harness.model for claude must be one of: claude-sonnet-5, claude-opus-4-7, claude-haiku-4-5 (got "gpt-5.5")',
    );
    expect((await editor().set("harness.model", "claude-haiku-4-5")).value).toBe("claude-haiku-4-5");
    expect(read()).toBe('[harness]\ndefault = "claude"\nmodel = "claude-haiku-4-5"\n');
  });

  test("changing harness.default drops a model of the other harness and says so; a fitting model stays", async () => {
    write('[harness]\ndefault = "claude"\nmodel = "claude-opus-4-7"\n');
    expect((await editor().set("harness.default", "CLAUDE")).cleared).toEqual([]);
    const change = await editor().set("harness.default", "codex");
    expect(change.cleared).toEqual([{ key: "harness.model", previous: "claude-opus-4-7", value: "gpt-5.5" }]);
    expect(read()).toBe('[harness]\ndefault = "codex"\n');
    expect(loadConfig(path)).toMatchObject({ harnessDefault: "codex", harnessModel: null });
  });

  test("comments and unrelated lines survive byte for byte", async () => {
    const original = [
      "# my settings",
      "auto_commit = false # no commits",
      "",
      "# agents",
      "[harness]",
      '  default = "codex"   # fast',
      "",
      "# keep runs short",
      "[runs]",
      'timeout = "2h"',
      "",
    ].join("\n");
    write(original);
    await editor().set("runs.idle_timeout", "5m");
    await editor().set("harness.default", "claude");
    await editor().set("auto_commit", "true");
    expect(read()).toBe(
      [
        "# my settings",
        "auto_commit = true # no commits",
        "",
        "# agents",
        "[harness]",
        '  default = "claude"   # fast',
        "",
        "# keep runs short",
        "[runs]",
        'timeout = "2h"',
        'idle_timeout = "5m"',
        "",
      ].join("\n"),
    );
  });

  test("setting what the file already says writes nothing", async () => {
    write('[runs]\ntimeout = "2h"\n');
    expect(await editor().set("runs.timeout", "120m")).toMatchObject({ value: "2h", written: false });
    expect(writes).toBe(0);
  });

  test("an invalid file is refused before editing, with how to repair it; the file is untouched", async () => {
    const broken = '# mine\n[harness]\ndefault = "claude"\nmodel = "gpt-5.5"\n';
    write(broken);
    const error = await rejection(editor().set("runs.timeout", "2h"));
    expect(error.message).toBe(
      `cannot set runs.timeout: invalid config ${path}: harness.model for claude must be one of: claude-sonnet-5, claude-opus-4-7, claude-haiku-4-5; fix it by hand or run \`codealmanac config unset harness.model\``,
    );
    write("verbose = true\n");
    expect((await rejection(editor().set("runs.timeout", "2h"))).message).toBe(
      `cannot set runs.timeout: invalid config ${path}: unknown key "verbose"; fix it by hand`,
    );
    write("[runs\n");
    expect((await rejection(editor().set("runs.timeout", "2h"))).message).toMatch(
      new RegExp(`^cannot set runs\\.timeout: invalid config TOML in ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, line 1: [^\\n]+; fix it by hand$`),
    );
    expect(read()).toBe("[runs\n");
    expect(writes).toBe(0);
  });

  test("a key spelled in a form the line editor does not handle is refused, not duplicated", async () => {
    for (const text of ['harness.default = "claude"\n', 'harness = { default = "claude" }\n', '[automation]\nsync.enabled = true\n']) {
      write(text);
      const key = text.includes("sync") ? "automation.sync.enabled" : "harness.default";
      const value = key === "harness.default" ? "codex" : "false";
      const error = await rejection(editor().set(key, value));
      expect(error.message).toBe(
        `cannot set ${key}: ${path} writes it in a form this editor does not change (a dotted key or an inline table); edit the file by hand`,
      );
      expect(read()).toBe(text);
    }
    expect(calls).toEqual([]);
  });

  test("the state directory is created, and no temporary file is left behind", async () => {
    await editor().set("auto_commit", "false");
    expect(readdirSync(dirname(path))).toEqual(["config.toml"]);
  });

  test("a file that cannot be written is one line naming it", async () => {
    // A directory where the temporary file must go makes the write itself fail (root ignores permissions).
    mkdirSync(join(dirname(path), `.config.toml.${process.pid}.tmp`), { recursive: true });
    const error = await rejection(editor().set("auto_commit", "false"));
    expect(error.message).toMatch(new RegExp(`^cannot write config ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: [^\\n]+$`));
    expect(writes).toBe(0);
    expect(existsSync(path)).toBe(false);
  });

  test("keys that are not automation keys never touch the scheduler", async () => {
    expect((await editor().set("runs.timeout", "2h")).automation).toBeNull();
    expect(calls).toEqual([]);
  });
});

describe("automation keys", () => {
  test("set reconciles that task with the whole resulting settings", async () => {
    write("[automation.sync]\nenabled = false\n");
    const change = await editor().set("automation.sync.every", "2h");
    expect(calls).toEqual([{ task: "sync", settings: { enabled: false, everyMs: 2 * HOUR } }]);
    expect(change.automation).toEqual({
      task: "sync",
      settings: { enabled: false, everyMs: 2 * HOUR },
      result: { task: "sync", enabled: false, intervalMs: 2 * HOUR, scheduler: "cron", location: "crontab", changed: true },
      error: null,
    });
  });

  test("a scheduler failure is reported in one line and the file stays written", async () => {
    failWith = "crontab: command not found";
    const change = await editor().set("automation.garden.enabled", "false");
    expect(read()).toBe("[automation.garden]\nenabled = false\n");
    expect(change.written).toBe(true);
    expect(change.automation).toMatchObject({ task: "garden", result: null, error: "crontab: command not found" });
  });

  test("unset reconciles with the default", async () => {
    write('[automation.garden]\nevery = "48h"\n');
    const change = await editor().unset("automation.garden.every");
    expect(change).toMatchObject({ value: "24h", written: true });
    expect(existsSync(path) && read()).toBe("");
    expect(calls).toEqual([{ task: "garden", settings: { enabled: true, everyMs: 24 * HOUR } }]);
  });

  test("apply validates the hand-edited file, then reconciles every task in order", async () => {
    write('[automation.sync]\nenabled = false\n[automation.garden]\nevery = "12h"\n');
    const report = await editor().apply();
    expect(report.path).toBe(path);
    expect(calls).toEqual([
      { task: "sync", settings: { enabled: false, everyMs: 5 * HOUR } },
      { task: "garden", settings: { enabled: true, everyMs: 12 * HOUR } },
    ]);
    expect(report.automation.map((o) => o.error)).toEqual([null, null]);
  });

  test("apply reports each task the scheduler failed, and still tries the others", async () => {
    failWith = "no scheduler here";
    const report = await editor().apply();
    expect(calls.map((c) => c.task)).toEqual(["sync", "garden"]);
    expect(report.automation.map((o) => [o.task, o.error])).toEqual([
      ["sync", "no scheduler here"],
      ["garden", "no scheduler here"],
    ]);
  });

  test("apply on an invalid file reconciles nothing", async () => {
    write("[automation.sync]\nevery = 5\n");
    await expect(editor().apply()).rejects.toThrow(`invalid config ${path}: automation.sync.every: must be a duration such as "30m" or "5h"`);
    expect(calls).toEqual([]);
  });
});

describe("unset", () => {
  test("removes the line and an emptied table, keeping comments", async () => {
    write('# mine\nauto_commit = false\n\n[runs]\ntimeout = "2h"\n\n# agents\n[harness]\ndefault = "claude"\n');
    expect(await editor().unset("runs.timeout")).toMatchObject({ value: "90m", written: true, automation: null });
    expect(read()).toBe('# mine\nauto_commit = false\n\n# agents\n[harness]\ndefault = "claude"\n');
  });

  test("a key that is not set is reported as such, nothing written", async () => {
    expect(await editor().unset("auto_commit")).toMatchObject({ value: "true", written: false });
    expect(existsSync(path)).toBe(false);
  });

  test("unsetting the key at fault repairs an invalid file", async () => {
    write('[harness]\ndefault = "claude"\nmodel = "gpt-5.5" # wrong harness\n');
    expect(() => editor().list()).toThrow(/harness\.model for claude/);
    await editor().unset("harness.model");
    expect(read()).toBe('[harness]\ndefault = "claude"\n');
  });

  test("unsetting another key of an invalid file is refused and writes nothing", async () => {
    const text = '[harness]\ndefault = "claude"\nmodel = "gpt-5.5"\n[runs]\ntimeout = "2h"\n';
    write(text);
    expect((await rejection(editor().unset("runs.timeout"))).message).toBe(
      `cannot unset runs.timeout: invalid config ${path}: harness.model for claude must be one of: claude-sonnet-5, claude-opus-4-7, claude-haiku-4-5 (nothing written)`,
    );
    expect(read()).toBe(text);
  });

  test("unsetting harness.default drops a model the preferred harness does not have", async () => {
    write('[harness]\ndefault = "claude"\nmodel = "claude-opus-4-7"\n');
    const change = await editor().unset("harness.default");
    expect(change).toMatchObject({ value: "auto", cleared: [{ key: "harness.model", previous: "claude-opus-4-7", value: "auto" }] });
    expect(read()).toBe("");
  });
});

describe("list keys (privacy.redact, privacy.exclude)", () => {
  test("set takes one argument per entry, or a JSON array, and replaces the list; get and list show it", async () => {
    write("# mine\n[privacy]\nexclude = [\"/old\"] # by hand\n");
    await editor().set("privacy.redact", ["ACME-[0-9]{6}", 'say "hi"\\d', "ACME-[0-9]{6}"]);
    await editor().set("privacy.exclude", '["~/clients", "/srv/private"]');
    expect(read()).toBe('# mine\n[privacy]\nexclude = ["~/clients", "/srv/private"] # by hand\nredact = ["ACME-[0-9]{6}", "say \\"hi\\"\\\\d"]\n');
    expect(editor().get("privacy.redact")).toEqual({ key: "privacy.redact", value: '["ACME-[0-9]{6}", "say \\"hi\\"\\\\d"]', isDefault: false, items: ["ACME-[0-9]{6}", 'say "hi"\\d'] });
    expect(loadConfig(path).privacy).toEqual({ redact: ["ACME-[0-9]{6}", 'say "hi"\\d'], exclude: ["~/clients", "/srv/private"] });
    // A single argument that is not a JSON array is one entry, brackets and all.
    await editor().set("privacy.redact", "[A-Z]{3}-\\d+");
    expect(loadConfig(path).privacy.redact).toEqual(["[A-Z]{3}-\\d+"]);
    await editor().unset("privacy.exclude");
    expect(read()).toBe('# mine\n[privacy]\nredact = ["[A-Z]{3}-\\\\d+"]\n');
  });

  test("a bad entry is refused in one line naming the key and the entry; nothing is written", async () => {
    const cases: [string, string[], string][] = [
      ["privacy.redact", ["ok", "(unclosed"], 'privacy.redact: "(unclosed" is not a valid regular expression (Unterminated group)'],
      ["privacy.redact", ["a*"], 'privacy.redact: "a*" matches the empty string'],
      ["privacy.exclude", ["projects/secret"], 'privacy.exclude: "projects/secret" is not an absolute path or one starting with ~/'],
      ["auto_commit", ["true", "false"], "auto_commit takes one value (got 2)"],
    ];
    for (const [key, input, message] of cases) {
      const error = await rejection(editor().set(key, input));
      expect(error.message).toBe(message);
    }
    expect(existsSync(path)).toBe(false);
  });

  test("a hand-written file with a bad entry is refused, naming the entry by its place", () => {
    write('[privacy]\nredact = ["fine", "[oops"]\n');
    expect(failure(() => loadConfig(path)).message).toBe(
      `invalid config ${path}: privacy.redact[1]: "[oops" is not a valid regular expression (Unterminated character class)`,
    );
    write('[privacy]\nexclude = "/one"\n');
    expect(failure(() => loadConfig(path)).message).toBe(`invalid config ${path}: privacy.exclude: must be a list of folders, such as ["one", "two"]`);
  });
});
