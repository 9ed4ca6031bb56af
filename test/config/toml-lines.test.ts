import { describe, expect, test } from "vitest";
import { removeKey, setKey } from "../../src/config/toml-lines.js";

const COMMENTED = [
  "# codealmanac settings, kept by hand",
  "auto_commit = true  # agents may commit",
  "",
  "# which agent runs",
  "[harness]",
  'default = "claude" # chosen 2024',
  "",
  "# schedules",
  "[automation.sync]",
  "enabled = true",
  "",
].join("\n");

describe("setKey", () => {
  test("replaces a line in place, keeping indentation, key spelling and its trailing comment", () => {
    expect(setKey(COMMENTED, "harness", "default", "codex")).toBe(COMMENTED.replace('default = "claude" # chosen 2024', 'default = "codex" # chosen 2024'));
    expect(setKey(COMMENTED, null, "auto_commit", false)).toBe(COMMENTED.replace("auto_commit = true  # agents", "auto_commit = false  # agents"));
    expect(setKey('[runs]\n  "timeout"="2h"#long\n', "runs", "timeout", "3h")).toBe('[runs]\n  "timeout" = "3h"#long\n');
    expect(setKey('[runs]\ntimeout = "a#b" # c\n', "runs", "timeout", "3h")).toBe('[runs]\ntimeout = "3h" # c\n');
  });

  test("appends to an existing table after its last line, leaving the next table's comment where it is", () => {
    expect(setKey(COMMENTED, "harness", "model", "claude-opus-4-7")).toBe(
      COMMENTED.replace('# chosen 2024\n', '# chosen 2024\nmodel = "claude-opus-4-7"\n'),
    );
  });

  test("a missing table is appended at the end, after one blank line", () => {
    expect(setKey(COMMENTED, "runs", "timeout", "2h")).toBe(`${COMMENTED}\n[runs]\ntimeout = "2h"\n`);
    expect(setKey("a = 1", "runs", "timeout", "2h")).toBe('a = 1\n\n[runs]\ntimeout = "2h"\n');
    expect(setKey("", "runs", "timeout", "2h")).toBe('[runs]\ntimeout = "2h"\n');
  });

  test("a top-level key goes before the first table and the comments attached to it", () => {
    expect(setKey("# header\n\n# about harness\n[harness]\ndefault = \"codex\"\n", null, "auto_commit", false)).toBe(
      "# header\nauto_commit = false\n\n# about harness\n[harness]\ndefault = \"codex\"\n",
    );
    expect(setKey("[harness]\n", null, "auto_commit", false)).toBe("auto_commit = false\n\n[harness]\n");
    expect(setKey("", null, "auto_commit", false)).toBe("auto_commit = false\n");
  });

  test("table headers are matched by name, however they are spelled", () => {
    expect(setKey('[ automation . "sync" ] # tasks\nenabled = true\n', "automation.sync", "every", "5h")).toBe(
      '[ automation . "sync" ] # tasks\nenabled = true\nevery = "5h"\n',
    );
  });

  test("CRLF files stay CRLF", () => {
    expect(setKey("# c\r\n[runs]\r\ntimeout = \"2h\"\r\n", "runs", "idle_timeout", "5m")).toBe(
      '# c\r\n[runs]\r\ntimeout = "2h"\r\nidle_timeout = "5m"\r\n',
    );
  });
});

describe("removeKey", () => {
  test("removes only the key's line", () => {
    expect(removeKey(COMMENTED, null, "auto_commit")).toBe(COMMENTED.replace("auto_commit = true  # agents may commit\n", ""));
  });

  test("a top-level key set and then removed leaves no blank first line", () => {
    const tables = '[runs]\ntimeout = "2h"\n';
    const set = setKey(tables, null, "auto_commit", false);
    expect(set).toBe(`auto_commit = false\n\n${tables}`);
    expect(removeKey(set, null, "auto_commit")).toBe(tables);
    expect(removeKey("# mine\nauto_commit = false\n\n[runs]\n", null, "auto_commit")).toBe("# mine\n\n[runs]\n");
  });

  test("an emptied table loses its header; its neighbours' comments stay", () => {
    expect(removeKey(COMMENTED, "automation.sync", "enabled")).toBe(
      ["# codealmanac settings, kept by hand", "auto_commit = true  # agents may commit", "", "# which agent runs", "[harness]", 'default = "claude" # chosen 2024', "", "# schedules", ""].join("\n"),
    );
    expect(removeKey('[runs]\ntimeout = "2h"\n\n[harness]\ndefault = "codex"\n', "runs", "timeout")).toBe('[harness]\ndefault = "codex"\n');
    expect(removeKey('[runs]\ntimeout = "2h"\n', "runs", "timeout")).toBe("");
    expect(removeKey('# agents\n[harness]\ndefault = "x"\n\n# runs\n[runs]\nt = 1\n', "harness", "default")).toBe('# agents\n\n# runs\n[runs]\nt = 1\n');
  });

  test("a table that still holds a comment or another key keeps its header", () => {
    expect(removeKey('[runs]\n# slow machine\ntimeout = "2h"\n', "runs", "timeout")).toBe("[runs]\n# slow machine\n");
    expect(removeKey('[runs]\ntimeout = "2h"\nidle_timeout = "5m"\n', "runs", "timeout")).toBe('[runs]\nidle_timeout = "5m"\n');
  });

  test("a key that is not there leaves the text untouched", () => {
    expect(removeKey(COMMENTED, "runs", "timeout")).toBe(COMMENTED);
    expect(removeKey(COMMENTED, "harness", "model")).toBe(COMMENTED);
  });
});
