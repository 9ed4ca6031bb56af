import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { BIN, FAKE_BIN, ROOT, page, sandbox, waitFor, writeWiki, type RunResult, type Sandbox } from "../support/cli.js";
import { expectFailure, expectOk, expectSyntaxScreen } from "./helpers.js";

/** Fake `crontab` (and a `systemctl` that never answers): schedules land in a file of the sandbox. */
const CONFIG_BIN = join(ROOT, "test", "fixtures", "config-bin");
/** How long the racing second `config set`, once at the lock, may take to finish on its own. */
const SECOND_SET_WINDOW_S = 3;
const KEYS =
  "auto_commit, harness.default, harness.model, runs.timeout, runs.idle_timeout, automation.sync.enabled, automation.sync.every, automation.garden.enabled, automation.garden.every, privacy.redact, privacy.exclude";

interface Box {
  box: Sandbox;
  file: string;
  crontab: string;
  ca(args: string[], env?: NodeJS.ProcessEnv): RunResult;
}

const made: Sandbox[] = [];
afterEach(() => {
  while (made.length > 0) made.pop()!.cleanup();
});

function fresh(): Box {
  const box = sandbox({ CODEALMANAC_SCHEDULER: "cron", PATH: `${CONFIG_BIN}:${FAKE_BIN}:${process.env.PATH ?? ""}` });
  made.push(box);
  mkdirSync(box.state, { recursive: true });
  const crontab = join(box.dir, "crontab.txt");
  return {
    box,
    file: join(box.state, "config.toml"),
    crontab,
    ca: (args, env = {}) => box.run(args, { env: { FAKE_CRONTAB_FILE: crontab, ...env } }),
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("config list and get", () => {
  test("no file: every key, its default, and where the value comes from", () => {
    const { ca, file } = fresh();
    const expected = [
      "KEY                        VALUE  SOURCE",
      "auto_commit                true   default",
      "harness.default            auto   default",
      "harness.model              auto   default",
      "runs.timeout               90m    default",
      "runs.idle_timeout          5m     default",
      "automation.sync.enabled    true   default",
      "automation.sync.every      5h     default",
      "automation.garden.enabled  true   default",
      "automation.garden.every    24h    default",
      "privacy.redact             []     default",
      "privacy.exclude            []     default",
      "",
    ].join("\n");
    expect(expectOk(ca(["config", "list"])).stdout).toBe(expected);
    expect(expectOk(ca(["config"])).stdout).toBe(expected);
    expect(existsSync(file)).toBe(false);
  });

  test("--json: {key, value, default} with string values, and arrays for the list keys", () => {
    const { ca, file } = fresh();
    writeFileSync(file, '# mine\n[runs]\ntimeout = "2 hours"\n[privacy]\nexclude = ["~/private"]\n');
    const entries = expectOk(ca(["config", "list", "--json"])).json<{ key: string; value: string | string[]; default: boolean }[]>();
    expect(entries).toHaveLength(11);
    expect(entries[0]).toEqual({ key: "auto_commit", value: "true", default: true });
    expect(entries[3]).toEqual({ key: "runs.timeout", value: "2h", default: false });
    expect(entries.slice(0, 9).every((e) => typeof e.value === "string")).toBe(true);
    expect(entries.slice(9)).toEqual([
      { key: "privacy.redact", value: [], default: true },
      { key: "privacy.exclude", value: ["~/private"], default: false },
    ]);
    expect(expectOk(ca(["config", "get", "privacy.exclude", "--json"])).json()).toEqual({ key: "privacy.exclude", value: ["~/private"] });
    expect(expectOk(ca(["config", "get", "privacy.exclude"])).stdout).toBe('["~/private"]\n');
  });

  test("get prints the value alone, or {key, value}", () => {
    const { ca, file } = fresh();
    writeFileSync(file, '[harness]\ndefault = "claude"\n');
    expect(expectOk(ca(["config", "get", "harness.model"])).stdout).toBe("claude-sonnet-5\n");
    expect(expectOk(ca(["config", "get", "harness.default", "--json"])).json()).toEqual({ key: "harness.default", value: "claude" });
  });

  test("an unknown key is a syntax error naming it and the valid keys", () => {
    const { ca } = fresh();
    for (const args of [["get", "nope"], ["set", "telemetry.enabled", "false"], ["unset", "automation.update.every"]]) {
      const screen = expectSyntaxScreen(ca(["config", ...args]), "Invalid value");
      expect(screen).toContain(`unknown config key "${args[1]}"; valid keys: ${KEYS}\n`);
    }
  });

  test("a missing argument exits 2", () => {
    const { ca } = fresh();
    expectSyntaxScreen(ca(["config", "get"]), "Missing argument");
    expectSyntaxScreen(ca(["config", "set", "runs.timeout"]), "Missing argument");
  });

  test("an invalid file: one line naming the file and the key", () => {
    const { ca, file } = fresh();
    writeFileSync(file, "[harness]\nflavour = 1\n");
    expectFailure(ca(["config", "list"]), `invalid config ${file}: unknown key "harness.flavour"`);
    writeFileSync(file, "auto_commit = \n");
    expectFailure(ca(["config", "get", "auto_commit"]), new RegExp(`^codealmanac: invalid config TOML in ${escape(file)}, line 1: \\S`));
  });

  test("a hand-edited duration out of its range: reads still work; lifecycle commands and config refuse, naming the key, the value and the range; unset repairs it", () => {
    const { box, ca, file } = fresh();
    const repo = writeWiki(join(box.dir, "repo"), { "a.md": page({ title: "Alpha", topics: ["concepts"], sources: [], body: "alpha" }) });
    writeFileSync(file, '[runs]\ntimeout = "25d"\n');
    const problem = `invalid config ${file}: runs.timeout: must be between 1m and 7d (got "25d")`;
    expect(expectOk(box.run(["search", "alpha", "--slugs"], { cwd: repo })).stdout).toBe("a\n");
    expectFailure(box.run(["garden", "--using", "claude"], { cwd: repo }), problem);
    expectFailure(ca(["config", "list"]), problem);
    expectFailure(ca(["config", "set", "runs.timeout", "2h"]), `cannot set runs.timeout: ${problem}; fix it by hand or run \`codealmanac config unset runs.timeout\``);
    expect(expectOk(ca(["config", "unset", "runs.timeout"])).stdout).toBe("config: runs.timeout unset (default 90m)\n");
    writeFileSync(file, '[automation.sync]\nevery = "1ms"\n');
    expectFailure(ca(["config", "apply"]), `invalid config ${file}: automation.sync.every: must be between 1m and 365d (got "1ms")`);
  });

  test("read-only wiki commands never load config.toml", () => {
    const { box, file } = fresh();
    const repo = writeWiki(join(box.dir, "repo"), { "a.md": page({ title: "Alpha", topics: ["concepts"], sources: [], body: "alpha" }) });
    writeFileSync(file, "this is not toml\n");
    expect(expectOk(box.run(["search", "alpha", "--slugs"], { cwd: repo })).stdout).toBe("a\n");
  });
});

describe("config set and unset", () => {
  test("prints the normalised value and writes it; the state directory is created", () => {
    const { ca, file } = fresh();
    expect(expectOk(ca(["config", "set", "runs.timeout", "1.5h"])).stdout).toBe("config: runs.timeout = 90m\n");
    expect(expectOk(ca(["config", "set", "auto_commit", "FALSE"])).stdout).toBe("config: auto_commit = false\n");
    expect(readFileSync(file, "utf8")).toBe('auto_commit = false\n\n[runs]\ntimeout = "90m"\n');
  });

  test("--json: {path, key, value, automation: null} for keys without a schedule", () => {
    const { ca, file } = fresh();
    expect(expectOk(ca(["config", "set", "harness.default", "Claude", "--json"])).json()).toEqual({
      path: file,
      key: "harness.default",
      value: "claude",
      written: true,
      cleared: [],
      warnings: [],
      automation: null,
    });
  });

  test("a new harness drops a model it does not have, and says so", () => {
    const { ca, file } = fresh();
    writeFileSync(file, '[harness]\ndefault = "claude"\nmodel = "claude-opus-4-7"\n');
    expect(expectOk(ca(["config", "set", "harness.default", "codex"])).stdout).toBe(
      "config: harness.default = codex\nconfig: harness.model unset (claude-opus-4-7 does not belong to the new harness; now gpt-5.5)\n",
    );
    expect(readFileSync(file, "utf8")).toBe('[harness]\ndefault = "codex"\n');
  });

  test("a bad value: one line naming the key and what it accepts, nothing written", () => {
    const { ca, file } = fresh();
    expectFailure(ca(["config", "set", "auto_commit", "yes"]), 'auto_commit must be true or false (got "yes")');
    expectFailure(ca(["config", "set", "automation.sync.every", "often"]), 'automation.sync.every must be a duration such as 90s, 30m, 5h or 1d (got "often")');
    expectFailure(ca(["config", "set", "harness.default", "gemini"]), 'harness.default must be one of: claude, codex (got "gemini")');
    expectFailure(ca(["config", "set", "automation.garden.every", "1ms"]), 'automation.garden.every must be between 1m and 365d (got "1ms")');
    const json = ca(["config", "set", "runs.timeout", "25d", "--json"]);
    expect(json.code).toBe(1);
    expect(json.stdout).toBe("");
    expect(JSON.parse(json.stderr)).toEqual({ error: { code: "validation_failed", message: 'runs.timeout must be between 1m and 7d (got "25d")' } });
    expect(existsSync(file)).toBe(false);
  });

  test("comments and unrelated lines survive set and unset byte for byte", () => {
    const { ca, file } = fresh();
    const original = '# my settings\nauto_commit = false # careful\n\n# agents\n[harness]\n  default = "codex"   # fast\n\n# runs\n[runs]\ntimeout = "2h"\n';
    writeFileSync(file, original);
    expectOk(ca(["config", "set", "runs.idle_timeout", "5m"]));
    expectOk(ca(["config", "set", "harness.default", "claude"]));
    expect(readFileSync(file, "utf8")).toBe(
      '# my settings\nauto_commit = false # careful\n\n# agents\n[harness]\n  default = "claude"   # fast\n\n# runs\n[runs]\ntimeout = "2h"\nidle_timeout = "5m"\n',
    );
    expect(expectOk(ca(["config", "unset", "runs.idle_timeout"])).stdout).toBe("config: runs.idle_timeout unset (default 5m)\n");
    expect(expectOk(ca(["config", "unset", "harness.default"])).stdout).toBe("config: harness.default unset (default auto)\n");
    expect(readFileSync(file, "utf8")).toBe('# my settings\nauto_commit = false # careful\n\n# agents\n\n# runs\n[runs]\ntimeout = "2h"\n');
    expect(expectOk(ca(["config", "unset", "runs.idle_timeout"])).stdout).toBe("config: runs.idle_timeout was not set (default 5m)\n");
  });

  test("an invalid file is refused before any edit and left untouched; unsetting the culprit repairs it", () => {
    const { ca, file } = fresh();
    const broken = '# mine\n[harness]\ndefault = "claude"\nmodel = "gpt-5.5" # wrong\n';
    writeFileSync(file, broken);
    expectFailure(
      ca(["config", "set", "runs.timeout", "2h"]),
      `cannot set runs.timeout: invalid config ${file}: harness.model for claude must be one of: claude-sonnet-5, claude-opus-4-7, claude-haiku-4-5; fix it by hand or run \`codealmanac config unset harness.model\``,
    );
    expect(readFileSync(file, "utf8")).toBe(broken);
    expectOk(ca(["config", "unset", "harness.model"]));
    expect(readFileSync(file, "utf8")).toBe('# mine\n[harness]\ndefault = "claude"\n');
  });

  test("a key written as a dotted key is refused rather than duplicated", () => {
    const { ca, file } = fresh();
    writeFileSync(file, 'harness.default = "claude"\n');
    expectFailure(
      ca(["config", "set", "harness.default", "codex"]),
      `cannot set harness.default: ${file} writes it in a form this editor does not change (a dotted key or an inline table); edit the file by hand`,
    );
    expect(readFileSync(file, "utf8")).toBe('harness.default = "claude"\n');
  });
  test("two sets at once both land: the second waits for the first's write instead of overwriting it", async () => {
    const { box, file, ca } = fresh();
    const atLock = join(box.dir, "second.at-lock");
    const done = join(box.dir, "second.code");
    // The first set, between reading config.toml and replacing it, starts a second one and
    // waits until that one has reached the lock. Unlocked, the second would then read, write
    // and exit within milliseconds, and the first write would drop its key; so the first
    // gives it SECOND_SET_WINDOW_S to do that before writing. Locked, it waits instead.
    const secondHooks = JSON.stringify({ configBeforeLock: `touch ${atLock}` });
    const second = `CODEALMANAC_TEST_HOOKS='${secondHooks}' ${process.execPath} ${BIN} config set harness.default codex`;
    const hook = [
      `(${second} >/dev/null 2>&1; echo $? > ${done}) &`,
      `while [ ! -e ${atLock} ]; do sleep 0.02; done;`,
      `timeout ${SECOND_SET_WINDOW_S} tail --pid=$! -f /dev/null; true`,
    ].join(" ");
    const first = ca(["config", "set", "runs.timeout", "45m"], { CODEALMANAC_TEST_HOOKS: JSON.stringify({ configBeforeWrite: hook }) });
    expectOk(first);
    expect(existsSync(atLock)).toBe(true);
    await waitFor(() => existsSync(done) && readFileSync(done, "utf8").trim() !== "", "the second set to end");
    expect(readFileSync(done, "utf8").trim()).toBe("0");
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^timeout = "45m"$/m);
    expect(text).toMatch(/^default = "codex"$/m);
  });
});

describe("automation keys reconcile the schedule", () => {
  test("set installs, changes and removes a task's schedule", () => {
    const { ca, crontab, file } = fresh();
    expect(expectOk(ca(["config", "set", "automation.sync.every", "2h"])).stdout).toBe(
      "config: automation.sync.every = 2h\nsync: installed (crontab, every 2h)\n",
    );
    expect(readFileSync(crontab, "utf8")).toMatch(/\bsync\b/);
    expect(readFileSync(crontab, "utf8")).not.toMatch(/\bgarden\b/);
    expect(expectOk(ca(["config", "set", "automation.sync.enabled", "false", "--json"])).json()).toEqual({
      path: file,
      key: "automation.sync.enabled",
      value: "false",
      written: true,
      cleared: [],
      warnings: [],
      automation: { task: "sync", enabled: false, interval: "PT2H", scheduler: "cron", location: "crontab", changed: true, error: null },
    });
    expect(existsSync(crontab) ? readFileSync(crontab, "utf8") : "").not.toMatch(/\bsync\b/);
    expect(expectOk(ca(["config", "unset", "automation.sync.enabled"])).stdout).toBe(
      "config: automation.sync.enabled unset (default true)\nsync: installed (crontab, every 2h)\n",
    );
  });

  test("a scheduler failure keeps the saved value and says both, exit 1", () => {
    const { ca, file } = fresh();
    const env = { FAKE_CRONTAB_FAIL: "crontab: permission denied" };
    const result = ca(["config", "set", "automation.garden.every", "12h"], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("config: automation.garden.every = 12h\n");
    const lines = result.stderr.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^codealmanac: garden: schedule not updated: .*permission denied/);
    expect(lines[1]).toBe("  fix: config.toml is saved; once the scheduler works, run `codealmanac config apply` to install the schedules");

    // apply says the file is valid, not "applied", with the same failure lines and exit code.
    const apply = ca(["config", "apply"], env);
    expect(apply.code).toBe(1);
    expect(apply.stdout).toBe(`config: ${file} is valid\n`);
    expect(apply.stderr.split("\n").filter((l) => l !== "")).toEqual([
      expect.stringMatching(/^codealmanac: sync: schedule not updated: .*permission denied/),
      expect.stringMatching(/^codealmanac: garden: schedule not updated: .*permission denied/),
      lines[1],
    ]);
    expect(readFileSync(file, "utf8")).toBe('[automation.garden]\nevery = "12h"\n');

    const json = ca(["config", "set", "automation.garden.every", "6h", "--json"], env);
    expect(json.code).toBe(1);
    expect(json.json<{ automation: { error: string; scheduler: null } }>().automation).toMatchObject({ scheduler: null, error: expect.stringMatching(/permission denied/) });
    expect(JSON.parse(json.stderr).error.code).toBe("execution_failed");
  });

  test("an idle timeout longer than the run timeout is saved with a warning that it never fires", () => {
    const { ca } = fresh();
    const set = ca(["config", "set", "runs.idle_timeout", "1d"]);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe("config: runs.idle_timeout = 24h\n");
    expect(set.stderr).toBe("codealmanac: warning: runs.idle_timeout (24h) is longer than runs.timeout (90m), so it never fires: a silent agent is stopped by the run timeout first\n");
    expect(ca(["config", "set", "runs.timeout", "2d", "--json"]).json()).toMatchObject({ warnings: [] });
    expect(ca(["config", "apply", "--json"]).json()).toMatchObject({ warnings: [] });
  });

  test("apply validates the hand-edited file and reconciles every task", () => {
    const { ca, crontab, file } = fresh();
    expect(expectOk(ca(["config", "apply"])).stdout).toBe(
      "config applied\n  sync: installed (crontab, every 5h)\n  garden: installed (crontab, every 24h)\n",
    );
    writeFileSync(file, "# no gardening here\n[automation.garden]\nenabled = false\n");
    expect(expectOk(ca(["config", "apply", "--json"])).json()).toEqual({
      path: file,
      automation: [
        { task: "sync", enabled: true, interval: "PT5H", scheduler: "cron", location: "crontab", changed: false, error: null },
        { task: "garden", enabled: false, interval: "PT24H", scheduler: "cron", location: "crontab", changed: true, error: null },
      ],
      warnings: [],
    });
    expect(readFileSync(crontab, "utf8")).toMatch(/\bsync\b/);
    expect(readFileSync(crontab, "utf8")).not.toMatch(/\bgarden\b/);
  });

  test("apply refuses an invalid file in one line and schedules nothing", () => {
    const { ca, crontab, file } = fresh();
    writeFileSync(file, "[automation.sync]\nevery = 5\n");
    expectFailure(ca(["config", "apply"]), `invalid config ${file}: automation.sync.every: must be a duration such as "30m" or "5h"`);
    writeFileSync(file, "[automation.sync\n");
    expectFailure(ca(["config", "apply"]), new RegExp(`^codealmanac: invalid config TOML in ${escape(file)}, line 1: \\S`));
    expect(existsSync(crontab)).toBe(false);
  });
});
