import { afterEach, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configSettingsStore } from "../../src/setup/settings-store.js";
import type { SetupSettings } from "../../src/setup/model.js";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SETTINGS: SetupSettings = {
  autoCommit: true,
  harnessDefault: null,
  sync: { enabled: true, everyMs: 5 * 3600_000 },
  garden: { enabled: false, everyMs: 24 * 3600_000 },
};

function store(initial?: string) {
  dir = mkdtempSync(join(tmpdir(), "ca-settings-"));
  const path = join(dir, "config.toml");
  if (initial !== undefined) writeFileSync(path, initial);
  let writes = 0;
  return { path, writes: () => writes, store: configSettingsStore(path, () => writes++) };
}

describe("saving setup's settings", () => {
  test("a new file gets every key in one write, ending in a newline; saving the same again writes nothing", async () => {
    const { path, writes, store: settings } = store();
    await settings.saveSettings(SETTINGS);
    expect(readFileSync(path, "utf8")).toBe(
      'auto_commit = true\n\n[automation.sync]\nenabled = true\nevery = "5h"\n\n[automation.garden]\nenabled = false\nevery = "24h"\n',
    );
    expect(writes()).toBe(1);
    await settings.saveSettings(SETTINGS);
    expect(writes()).toBe(1);
  });

  test("switching the harness drops a model that belongs to the other one", async () => {
    const { path, store: settings } = store('[harness]\ndefault = "codex"\nmodel = "gpt-5.4"\n');
    await settings.saveSettings({ ...SETTINGS, harnessDefault: "claude" });
    const text = readFileSync(path, "utf8");
    expect(text).toContain('[harness]\ndefault = "claude"\n');
    expect(text).not.toContain("model");
  });

  test("a file that spells the keys as dotted keys is refused and left as it was", async () => {
    const original = "automation.sync.enabled = false\n";
    const { path, store: settings } = store(original);
    await expect(settings.saveSettings(SETTINGS)).rejects.toThrow(/cannot save the setup settings: /);
    expect(readFileSync(path, "utf8")).toBe(original);
  });

  test("an invalid file is refused with its problem and left as it was", async () => {
    const original = 'auto_commit = "yes"\n';
    const { path, store: settings } = store(original);
    await expect(settings.saveSettings(SETTINGS)).rejects.toThrow(/^cannot save the setup settings: invalid config .*auto_commit.*; fix it by hand/);
    expect(readFileSync(path, "utf8")).toBe(original);
  });
});
