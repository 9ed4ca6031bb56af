import { invalid } from "../core/errors.js";
import { AUTOMATION_TASKS, type Automation } from "../automation/model.js";
import type { HarnessKind } from "../harnesses/catalog.js";
import { configFromFile, configWarnings, readConfigText, type Config } from "./config.js";
import { writeConfigAtomically } from "./file.js";
import {
  automationTaskOf,
  CONFIG_KEYS,
  displayValue,
  isConfigKey,
  keySpec,
  modelFits,
  normalizeValue,
  parseConfigKey,
  storedValue,
  type ConfigKey,
  type KeySpec,
} from "./keys.js";
import { reconcileTask, type ScheduleOutcome } from "./schedules.js";
import { checkConfigText, configError, describeProblem, type ConfigFileData, type ConfigProblem, type TomlTree } from "./schema.js";
import { removeKey, setKey } from "./toml-lines.js";
import { sameTree, stringAt, withoutKey, withValue } from "./tree.js";

export interface ConfigEditorDeps {
  path: string;
  /** The scheduler facade; loaded only when an automation key changes or on `apply`. */
  automation: () => Promise<Automation>;
  /** Called after config.toml was replaced, so cached copies are dropped. */
  onWrite?: () => void;
  /**
   * Runs one read-edit-write of config.toml while no other process runs one, so two
   * `config set` at once both land instead of the later write dropping the earlier key.
   */
  exclusive?: <T>(edit: () => T) => T;
  /** A test seam between reading the file and replacing it. */
  beforeWrite?: () => void;
}

/** What an edit wrote, before the schedule it may concern is reconciled. */
interface Written {
  data: ConfigFileData;
  written: boolean;
  cleared: ClearedKey[];
}

export interface ConfigEntry {
  key: ConfigKey;
  /** As `config list` prints it: the file's value, canonicalised, or the default. */
  value: string;
  /** True when the file does not set the key. */
  isDefault: boolean;
  /** A list key's entries (`privacy.redact`); absent for the other keys. */
  items?: string[];
}

/** A key another change made stale and removed (the model of a harness no longer configured). */
export interface ClearedKey {
  key: ConfigKey;
  previous: string;
  value: string;
}

export interface ConfigChange {
  path: string;
  key: ConfigKey;
  /** The key's value after the change (the default, after `unset`). */
  value: string;
  /** False when the file already said this, so nothing was written. */
  written: boolean;
  cleared: ClearedKey[];
  /** Set for `automation.<task>.*` keys: the schedule reconciled with the new settings. */
  automation: ScheduleOutcome | null;
  /** What is odd about the resulting settings as a whole (see `configWarnings`). */
  warnings: string[];
}

export interface ApplyReport {
  path: string;
  config: Config;
  automation: ScheduleOutcome[];
  warnings: string[];
}

interface Snapshot {
  text: string;
  tree: TomlTree;
  data: ConfigFileData;
}

/** A text edit together with the document it must parse to. */
interface Edit {
  text: string;
  tree: TomlTree;
  cleared: ClearedKey[];
}

/**
 * The `config` verbs over config.toml. Edits are line-based so comments and unrelated
 * lines survive; the whole resulting file is validated before anything is written.
 */
export class ConfigEditor {
  readonly path: string;

  constructor(private readonly deps: ConfigEditorDeps) {
    this.path = deps.path;
  }

  list(): ConfigEntry[] {
    const { data } = this.snapshot();
    return CONFIG_KEYS.map((key) => entry(data, key));
  }

  get(key: string): ConfigEntry {
    const known = parseConfigKey(key);
    return entry(this.snapshot().data, known);
  }

  /** The file as edited by hand, validated; defaults when there is no file. */
  validateFile(): Config {
    return configFromFile(this.snapshot().data);
  }

  /** `input` is one value, or for a list key (`privacy.redact`) its entries, which replace the list. */
  async set(key: string, input: string | readonly string[]): Promise<ConfigChange> {
    const known = parseConfigKey(key);
    const spec = keySpec(known);
    return this.change(known, "set", () => {
      const before = this.snapshot(`cannot set ${known}`);
      const value = normalizeValue(spec, typeof input === "string" ? [input] : input, before.data);
      let edit: Edit = { text: setKey(before.text, spec.table, spec.name, value), tree: withValue(before.tree, spec, value), cleared: [] };
      if (known === "harness.default") edit = dropStaleModel(edit, before.tree, value as HarnessKind);
      return { before, edit };
    });
  }

  async unset(key: string): Promise<ConfigChange> {
    const known = parseConfigKey(key);
    const spec = keySpec(known);
    return this.change(known, "unset", () => {
      // A file that breaks the schema may be repaired by removing the key at fault; one that is not TOML may not.
      const before = this.snapshot(`cannot unset ${known}`, { allowSchemaProblems: true });
      let edit: Edit = { text: removeKey(before.text, spec.table, spec.name), tree: withoutKey(before.tree, spec), cleared: [] };
      if (known === "harness.default") edit = dropStaleModel(edit, before.tree, undefined);
      return { before, edit };
    });
  }

  /** Validates the file as edited by hand, then makes every task's schedule match it. */
  async apply(): Promise<ApplyReport> {
    const config = this.validateFile();
    const automation: ScheduleOutcome[] = [];
    // One after another: schedulers such as crontab are read, changed and written back whole.
    for (const task of AUTOMATION_TASKS) automation.push(await reconcileTask(this.deps.automation, task, config.automation[task]));
    return { path: this.path, config, automation, warnings: configWarnings(config) };
  }

  /** Reads, edits and writes under `exclusive`; the schedule is reconciled after the lock is let go. */
  private async change(
    key: ConfigKey,
    verb: "set" | "unset",
    plan: () => { before: Snapshot; edit: Edit },
  ): Promise<ConfigChange> {
    const exclusive = this.deps.exclusive ?? ((edit) => edit());
    const result = exclusive(() => {
      const { before, edit } = plan();
      return this.write(key, verb, before, edit);
    });
    const task = automationTaskOf(key);
    const config = configFromFile(result.data);
    const automation = task ? await reconcileTask(this.deps.automation, task, config.automation[task]) : null;
    const value = displayValue(result.data, keySpec(key));
    return { path: this.path, key, value, written: result.written, cleared: result.cleared, automation, warnings: configWarnings(config) };
  }

  private write(key: ConfigKey, verb: "set" | "unset", before: Snapshot, edit: Edit): Written {
    const checked = checkConfigText(edit.text);
    // The file parsed before the edit, so a result that does not (or parses to something else) is the line editor's limit.
    if (!checked.ok && checked.problem.kind === "syntax") throw this.unsupportedForm(verb, key);
    if (!checked.ok) throw invalid(`cannot ${verb} ${key}: ${describeProblem(this.path, checked.problem)} (nothing written)`);
    if (!sameTree(checked.tree, edit.tree)) throw this.unsupportedForm(verb, key);
    const written = edit.text !== before.text;
    if (written) {
      this.deps.beforeWrite?.();
      writeConfigAtomically(this.path, edit.text);
      this.deps.onWrite?.();
    }
    return { data: checked.data, written, cleared: edit.cleared };
  }

  private unsupportedForm(verb: string, key: ConfigKey) {
    return invalid(
      `cannot ${verb} ${key}: ${this.path} writes it in a form this editor does not change (a dotted key or an inline table); edit the file by hand`,
    );
  }

  /**
   * The current file. Without `refusal` any problem is the plain config error; with it,
   * the message says what was refused and how to repair the file.
   */
  private snapshot(refusal?: string, options: { allowSchemaProblems?: boolean } = {}): Snapshot {
    const text = readConfigText(this.path) ?? "";
    const checked = checkConfigText(text);
    if (checked.ok) return { text, tree: checked.tree, data: checked.data };
    // Only `unset` allows this, and it edits by text and tree alone: no validated data exists.
    if (options.allowSchemaProblems && checked.tree) return { text, tree: checked.tree, data: {} };
    if (refusal === undefined) throw configError(this.path, checked.problem);
    throw invalid(`${refusal}: ${describeProblem(this.path, checked.problem)}; ${repairHint(checked.problem)}`);
  }
}

function entry(data: ConfigFileData, key: ConfigKey): ConfigEntry {
  const spec = keySpec(key);
  const stored = storedValue(data, spec);
  const base = { key, value: displayValue(data, spec), isDefault: stored === undefined };
  return spec.kind === "list" ? { ...base, items: Array.isArray(stored) ? stored : [] } : base;
}

function repairHint(problem: ConfigProblem): string {
  if (problem.kind === "schema" && problem.key !== null && isConfigKey(problem.key)) {
    return `fix it by hand or run \`codealmanac config unset ${problem.key}\``;
  }
  return "fix it by hand";
}

/** A model stays only while it belongs to the harness that owns it after the change. */
function dropStaleModel(edit: Edit, before: TomlTree, harness: HarnessKind | undefined): Edit {
  const model = stringAt(before, ["harness", "model"]);
  if (model === undefined || modelFits(model, harness)) return edit;
  const spec: KeySpec = keySpec("harness.model");
  const tree = withoutKey(edit.tree, spec);
  const after = harness ? { harness: { default: harness } } : {};
  return {
    text: removeKey(edit.text, spec.table, spec.name),
    tree,
    cleared: [...edit.cleared, { key: "harness.model", previous: model, value: displayValue(after, spec) }],
  };
}
