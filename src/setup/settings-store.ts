/**
 * Writes the settings `setup` chose into config.toml in one write, with the config
 * module's line edits, so comments and other keys stay as the user wrote them. Unlike
 * `config set`, it reconciles no schedule: setup does that itself, once, afterwards.
 */
import { AUTOMATION_TASKS } from "../automation/model.js";
import { invalid } from "../core/errors.js";
import { readConfigText } from "../config/config.js";
import { formatDuration } from "../config/duration.js";
import { writeConfigAtomically } from "../config/file.js";
import { modelFits } from "../config/keys.js";
import { checkConfigText, describeProblem, type ConfigFileData } from "../config/schema.js";
import { removeKey, setKey, type TomlScalar } from "../config/toml-lines.js";
import type { SettingsStore, SetupSettings } from "./model.js";

interface Assignment {
  table: string | null;
  name: string;
  value: TomlScalar;
}

export function configSettingsStore(path: string, onWrite: () => void): SettingsStore {
  return {
    path,
    async saveSettings(settings) {
      const before = readConfigText(path) ?? "";
      const current = checkConfigText(before);
      if (!current.ok) {
        throw invalid(`cannot save the setup settings: ${describeProblem(path, current.problem)}; fix it by hand, then run setup again`);
      }
      let text = assignments(settings).reduce((t, a) => setKey(t, a.table, a.name, a.value), before);
      if (before === "" && !text.endsWith("\n")) text += "\n";
      // A model chosen for another harness would make the file invalid: it goes with the switch.
      const model = current.data.harness?.model;
      if (settings.harnessDefault && model !== undefined && !modelFits(model, settings.harnessDefault)) {
        text = removeKey(text, "harness", "model");
      }
      const after = checkConfigText(text);
      if (!after.ok || !matches(after.data, settings)) {
        throw invalid(
          `cannot save the setup settings: ${path} spells these keys in a form setup does not edit (a dotted key or an inline table); edit the file by hand`,
        );
      }
      if (text === before) return;
      writeConfigAtomically(path, text);
      onWrite();
    },
  };
}

function assignments(settings: SetupSettings): Assignment[] {
  const list: Assignment[] = [{ table: null, name: "auto_commit", value: settings.autoCommit }];
  if (settings.harnessDefault) list.push({ table: "harness", name: "default", value: settings.harnessDefault });
  for (const task of AUTOMATION_TASKS) {
    list.push({ table: `automation.${task}`, name: "enabled", value: settings[task].enabled });
    list.push({ table: `automation.${task}`, name: "every", value: formatDuration(settings[task].everyMs) });
  }
  return list;
}

/** The written file says what was asked (the line edits understand only plain `key = value` lines). */
function matches(data: ConfigFileData, settings: SetupSettings): boolean {
  if (data.auto_commit !== settings.autoCommit) return false;
  if (settings.harnessDefault && data.harness?.default !== settings.harnessDefault) return false;
  return AUTOMATION_TASKS.every((task) => {
    const written = data.automation?.[task];
    return written?.enabled === settings[task].enabled && written.every === formatDuration(settings[task].everyMs);
  });
}
