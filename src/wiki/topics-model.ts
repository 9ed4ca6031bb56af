/**
 * How `topics.yaml` is understood, shared by the lenient read path and the
 * strict mutation path so both agree on what a valid entry is.
 */

import { isNode } from "yaml";
import { kebab } from "../core/kebab.js";
import type { TopicDef } from "./types.js";
import { isPlainMapping, parseYamlSource, yamlValue } from "./yaml-source.js";
import type { ParsedYaml } from "./yaml-source.js";

export type ProblemKind = "syntax" | "not_mapping" | "not_list" | "entry";
export type TopicsProblem = { kind: ProblemKind; message: string; detail: string; line: number | null };
export type Interpretation = { topics: TopicDef[]; problems: TopicsProblem[] };

export function interpretSource(text: string): Interpretation & { parsed: ParsedYaml | null } {
  if (text.trim() === "") return { topics: [], problems: [], parsed: null };
  const parsed = parseYamlSource(text);
  if (parsed.error) {
    const { line, column, reason } = parsed.error;
    const detail = `line ${line}, column ${column}: ${reason}`;
    const message = `topics.yaml is not valid YAML (line ${line}, column ${column}): ${reason}`;
    return { topics: [], problems: [{ kind: "syntax", message, detail, line }], parsed };
  }
  const js = yamlValue(parsed);
  if ("error" in js) {
    const message = `topics.yaml is not valid YAML: ${js.error}`;
    return { topics: [], problems: [{ kind: "syntax", message, detail: js.error, line: null }], parsed };
  }
  return { ...interpretValue(js.value, (path) => lineOf(parsed, path)), parsed };
}

function lineOf(parsed: ParsedYaml, path: readonly (string | number)[]): number | null {
  const node: unknown = path.length === 0 ? parsed.doc.contents : parsed.doc.getIn(path, true);
  const offset = isNode(node) ? node.range?.[0] : undefined;
  return offset === undefined ? null : parsed.lineAt(offset);
}

type Locate = (path: readonly (string | number)[]) => number | null;

export function interpretValue(value: unknown, locate: Locate): Interpretation {
  const problems: TopicsProblem[] = [];
  const report = (kind: ProblemKind, message: string, line: number | null) =>
    problems.push({ kind, message, detail: message, line });
  if (value === null || value === undefined) return { topics: [], problems };
  if (!isPlainMapping(value)) {
    report("not_mapping", "topics.yaml must be a YAML mapping", locate([]));
    return { topics: [], problems };
  }
  const entries = value.topics;
  if (entries === null || entries === undefined) return { topics: [], problems };
  if (!Array.isArray(entries)) {
    report("not_list", "topics must be a list", locate(["topics"]));
    return { topics: [], problems };
  }

  const bySlug = new Map<string, TopicDef>();
  entries.forEach((entry: unknown, index) => {
    const line = locate(["topics", index]);
    const label = `topic #${index + 1}`;
    if (!isPlainMapping(entry)) return report("entry", `${label} must be a mapping`, line);
    const rawSlug = scalarText(entry.slug);
    if (rawSlug === null) return report("entry", `${label} is missing a slug`, line);
    const slug = kebab(rawSlug);
    if (slug === "") return report("entry", `${label} slug "${rawSlug}" has no letters or digits`, line);
    if (entry.parents !== null && entry.parents !== undefined && !Array.isArray(entry.parents)) {
      report("entry", `topic ${slug}: parents must be a list`, locate(["topics", index, "parents"]) ?? line);
    }
    merge(bySlug, {
      slug,
      title: nonEmptyString(entry.title),
      description: nonEmptyString(entry.description),
      parents: parentSlugs(entry.parents),
    });
  });
  return { topics: [...bySlug.values()], problems };
}

/** Duplicate slugs are one topic: later titles and descriptions win, parents are unioned. */
function merge(bySlug: Map<string, TopicDef>, next: TopicDef): void {
  const earlier = bySlug.get(next.slug);
  if (!earlier) {
    bySlug.set(next.slug, next);
    return;
  }
  earlier.title = next.title ?? earlier.title;
  earlier.description = next.description ?? earlier.description;
  for (const parent of next.parents) if (!earlier.parents.includes(parent)) earlier.parents.push(parent);
}

function parentSlugs(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const parents: string[] = [];
  for (const item of value) {
    const text = scalarText(item);
    const slug = text === null ? "" : kebab(text);
    if (slug !== "" && !parents.includes(slug)) parents.push(slug);
  }
  return parents;
}

export function scalarText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

export function nonEmptyString(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

