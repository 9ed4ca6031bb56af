import { parse as parseToml } from "smol-toml";
import * as z from "zod/mini";
import { invalid, type ProductError } from "../core/errors.js";
import { HARNESS_KINDS, HARNESSES, PREFERRED_HARNESS } from "../harnesses/catalog.js";
import { userPatternProblem } from "../privacy/user-patterns.js";
import { parseDuration } from "./duration.js";
import { folderProblem } from "./folders.js";
import { durationProblem, type DurationKey } from "./ranges.js";

const TABLE = { error: "must be a table" };
const durationText = () => z.string({ error: 'must be a duration such as "30m" or "5h"' });
/** A key's duration, in its range: an out-of-range value would otherwise be accepted and misbehave later (a 25-day timer fires at once). */
const duration = (key: DurationKey) =>
  z.optional(durationText().check(z.refine((v) => durationProblem(key, v) === null, { error: (issue) => `${durationProblem(key, String(issue.input))} (got ${JSON.stringify(issue.input)})` })));
/** `automation.update.every`, no longer read: any positive duration, as older versions wrote it. */
const legacyDuration = z.optional(durationText().check(z.refine((v) => (parseDuration(v) ?? 0) > 0, "must be a positive duration such as 30m or 5h")));
const flag = z.optional(z.boolean({ error: "must be true or false" }));
/** A list of strings each `problem` accepts (null), as `privacy.redact` and `privacy.exclude` hold them. */
const stringList = (what: string, problem: (entry: string) => string | null) =>
  z.optional(
    z.array(
      z.string({ error: `must be a list of ${what}` }).check(z.refine((v) => problem(v) === null, { error: (issue) => `${JSON.stringify(issue.input)} ${problem(String(issue.input))}` })),
      { error: `must be a list of ${what}, such as ["one", "two"]` },
    ),
  );
const task = (every: ReturnType<typeof duration>) => z.optional(z.strictObject({ enabled: flag, every }, TABLE));

/**
 * Everything config.toml may hold. `telemetry` and `automation.update` are no longer
 * settable but stay accepted, so files written by older versions still load.
 */
const ConfigFile = z.strictObject({
  auto_commit: flag,
  harness: z.optional(
    z.strictObject(
      {
        default: z.optional(z.enum(HARNESS_KINDS, { error: `must be one of: ${HARNESS_KINDS.join(", ")}` })),
        model: z.optional(z.string({ error: "must be a model name" })),
      },
      TABLE,
    ),
  ),
  telemetry: z.optional(z.strictObject({ enabled: flag }, TABLE)),
  automation: z.optional(
    z.strictObject(
      { sync: task(duration("automation.sync.every")), garden: task(duration("automation.garden.every")), update: task(legacyDuration) },
      TABLE,
    ),
  ),
  runs: z.optional(z.strictObject({ timeout: duration("runs.timeout"), idle_timeout: duration("runs.idle_timeout") }, TABLE)),
  privacy: z.optional(
    z.strictObject({ redact: stringList("regular expressions", userPatternProblem), exclude: stringList("folders", folderProblem) }, TABLE),
  ),
});

export type ConfigFileData = z.infer<typeof ConfigFile>;

/** What is wrong with a config text, with the key at fault when there is one. */
export interface ConfigProblem {
  /** `syntax`: not valid TOML; `schema`: valid TOML with an unknown key or a bad value. */
  kind: "syntax" | "schema";
  /** Dotted key at fault (`runs.timeout`), when the problem has one. */
  key: string | null;
  /** 1-based line of a syntax error. */
  line: number | null;
  /** One line, without the file name. */
  detail: string;
}

/** The parsed TOML document, before validation. */
export type TomlTree = Record<string, unknown>;

/** `tree` is the parsed document whenever the text is TOML, valid config or not. */
export type ConfigCheck =
  | { ok: true; data: ConfigFileData; tree: TomlTree }
  | { ok: false; problem: ConfigProblem; tree: TomlTree | null };

/** Parses and validates a whole config text; the single judge of what a valid file is. */
export function checkConfigText(text: string): ConfigCheck {
  let tree: TomlTree;
  try {
    tree = parseToml(text);
  } catch (error) {
    return { ok: false, problem: syntaxProblem(error), tree: null };
  }
  const parsed = ConfigFile.safeParse(tree);
  if (!parsed.success) return { ok: false, problem: schemaProblem(parsed.error.issues[0]!), tree };
  const modelProblem = checkModel(parsed.data);
  return modelProblem ? { ok: false, problem: modelProblem, tree } : { ok: true, data: parsed.data, tree };
}

/** The one-line message for a problem in the file at `path`. */
export function describeProblem(path: string, problem: ConfigProblem): string {
  if (problem.kind === "syntax") {
    return `invalid config TOML in ${path}${problem.line !== null ? `, line ${problem.line}` : ""}: ${problem.detail}`;
  }
  return `invalid config ${path}: ${problem.detail}`;
}

export function configError(path: string, problem: ConfigProblem): ProductError {
  return invalid(describeProblem(path, problem));
}

function syntaxProblem(error: unknown): ConfigProblem {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split("\n")[0]!.replace(/^Invalid TOML document:\s*/, "").trim();
  const line = (error as { line?: unknown }).line;
  return { kind: "syntax", key: null, line: typeof line === "number" ? line : null, detail: first || "not valid TOML" };
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

function schemaProblem(issue: Issue): ConfigProblem {
  const path = issue.path.filter((part) => typeof part !== "number").map(String);
  if (issue.code === "unrecognized_keys" && issue.keys?.length) {
    const key = [...path, issue.keys[0]!].join(".");
    return { kind: "schema", key, line: null, detail: `unknown key "${key}"` };
  }
  const key = path.join(".");
  // A list's entry is named by its place: `privacy.redact[1]`.
  const label = issue.path.map((part, i) => (typeof part === "number" ? `[${part}]` : `${i > 0 ? "." : ""}${String(part)}`)).join("");
  return { kind: "schema", key: key || null, line: null, detail: `${label || "(top level)"}: ${issue.message}` };
}

/** `harness.model` belongs to `harness.default`, or to the preferred harness when that is unset. */
function checkModel(data: ConfigFileData): ConfigProblem | null {
  const model = data.harness?.model;
  if (model === undefined) return null;
  const kind = data.harness?.default ?? PREFERRED_HARNESS;
  const catalog: readonly string[] = HARNESSES[kind].models;
  if (catalog.includes(model)) return null;
  return { kind: "schema", key: "harness.model", line: null, detail: `harness.model for ${kind} must be one of: ${catalog.join(", ")}` };
}
