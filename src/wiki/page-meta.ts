import { isMap, isNode, isSeq } from "yaml";
import { SOURCE_TYPES } from "./types.js";
import type { PageProblem, PageSource, SourceType } from "./types.js";
import type { FrontmatterSplit } from "./frontmatter.js";
import { normalizeTopicList } from "./topic-list.js";
import { formatLineRange, parseLineRange } from "./evidence.js";
import { normalizeRefPath } from "./file-refs.js";
import { isPlainMapping, parseYamlSource, yamlValue } from "./yaml-source.js";
import { readSimpleYaml } from "./simple-yaml.js";
import { fastParse } from "./fast-parse.js";

export type PageMeta = {
  title: string | null;
  summary: string | null;
  topics: string[];
  sources: PageSource[];
};

/** Front-matter YAML starts on the line after the opening `---`. */
const YAML_FIRST_FILE_LINE = 2;

/**
 * Reads the recognized front-matter keys. Every reason metadata is ignored or an
 * entry dropped is reported in `problems`; nothing is dropped silently.
 */
export function readPageMeta(split: FrontmatterSplit, problems: PageProblem[]): PageMeta {
  const meta: PageMeta = { title: null, summary: null, topics: [], sources: [] };
  const mapping = frontmatterMapping(split, problems);
  if (!mapping) return meta;
  const { value } = mapping;
  meta.title = nonEmptyString(value.title);
  meta.summary = nonEmptyString(value.summary);
  meta.topics = normalizeTopicList(value.topics);
  meta.sources = readSources(value.sources, mapping, problems);
  return meta;
}

/** The front matter as plain values, and where (1-based lines of the YAML text) the sources list and its items start. */
type Mapping = {
  value: Record<string, unknown>;
  sourcesLine(): number | undefined;
  sourceItemLine(index: number): number | undefined;
};

function frontmatterMapping(split: FrontmatterSplit, problems: PageProblem[]): Mapping | null {
  if (split.yaml === null) return null;
  const simple = fastParse() ? readSimpleYaml(split.yaml) : null;
  if (simple) {
    return {
      value: simple.value,
      sourcesLine: () => simple.valueLine.get("sources"),
      sourceItemLine: (index) => simple.itemLines.get("sources")?.[index],
    };
  }
  return libraryMapping(split.yaml, problems);
}

function libraryMapping(yaml: string, problems: PageProblem[]): Mapping | null {
  const parsed = parseYamlSource(yaml);
  const fileLine = (line: number) => line + YAML_FIRST_FILE_LINE - 1;
  if (parsed.error) {
    const { line, column, reason } = parsed.error;
    const at = fileLine(line);
    problems.push(frontmatterProblem(`front matter is not valid YAML (line ${at}, column ${column}): ${reason}`, at));
    return null;
  }
  const js = yamlValue(parsed);
  if ("error" in js) {
    const at = js.line === undefined ? null : fileLine(js.line);
    problems.push(frontmatterProblem(`front matter is not valid YAML${at === null ? "" : ` (line ${at})`}: ${js.error}`, at));
    return null;
  }
  // An empty block (or one holding only comments) simply carries no metadata.
  if (js.value === null || js.value === undefined) return null;
  if (!isPlainMapping(js.value)) {
    const start = parsed.doc.contents?.range[0] ?? 0;
    problems.push(frontmatterProblem("front matter must be a YAML mapping", fileLine(parsed.lineAt(start))));
    return null;
  }
  const node = isMap(parsed.doc.contents) ? parsed.doc.contents.get("sources", true) : undefined;
  const lineOf = (offset: number | undefined) => (offset === undefined ? undefined : parsed.lineAt(offset));
  return {
    value: js.value,
    sourcesLine: () => lineOf(isNode(node) ? node.range?.[0] : undefined),
    sourceItemLine: (index) => {
      const item: unknown = isSeq(node) ? node.items[index] : undefined;
      return lineOf(isNode(item) ? item.range?.[0] : undefined);
    },
  };
}

function frontmatterProblem(message: string, line: number | null): PageProblem {
  return { category: "frontmatter_invalid", message, line };
}

const TARGET_FIELDS: Record<SourceType, readonly string[]> = {
  file: ["path"],
  web: ["url"],
  commit: ["commit", "sha", "ref"],
  pr: ["pr", "number", "url"],
  issue: ["issue", "number", "url"],
  conversation: ["path", "run_id", "session_id"],
  wiki: ["page", "slug", "path"],
  manual: ["path", "page", "title"],
};

function readSources(value: unknown, mapping: Mapping, problems: PageProblem[]): PageSource[] {
  if (value === undefined || value === null) return [];
  const fileLine = (line: number | undefined) => (line === undefined ? null : line + YAML_FIRST_FILE_LINE - 1);
  const problem = (message: string, line: number | undefined) =>
    problems.push({ category: "source_invalid", message, line: fileLine(line) });

  if (!Array.isArray(value)) {
    problem("sources must be a list", mapping.sourcesLine());
    return [];
  }
  const sources: PageSource[] = [];
  value.forEach((entry: unknown, index) => {
    const line = mapping.sourceItemLine(index);
    const source = readSource(entry, (message) => problem(message, line));
    if (!source) {
      problem(`source #${index + 1} must include id, supported type, and target`, line);
      return;
    }
    if (source.target === null) problem(`source ${source.source_id} [${source.source_type}] is missing a target`, line);
    sources.push(source);
  });
  return sources;
}

function readSource(entry: unknown, problem: (message: string) => void): PageSource | null {
  if (!isPlainMapping(entry)) return null;
  const id = nonEmptyString(entry.id);
  const type = entry.type;
  if (id === null || !isSourceType(type)) return null;
  const targetFields = [...TARGET_FIELDS[type], "target"];
  const target = targetFields.map((field) => targetText(entry[field])).find((text) => text !== null) ?? null;
  return {
    source_id: id,
    source_type: type,
    target,
    title: nonEmptyString(entry.title),
    retrieved_at: dateText(entry.retrieved_at),
    note: nonEmptyString(entry.note),
    ...readEvidence(entry, type, id, target, problem),
  };
}

type Evidence = Pick<PageSource, "lines" | "fingerprint" | "verified_at">;

/**
 * A file source's line range and stamp; a range that cannot be read, or that is given on a
 * folder (which has no lines), is reported and ignored.
 */
function readEvidence(entry: Record<string, unknown>, type: SourceType, id: string, target: string | null, problem: (message: string) => void): Evidence {
  const evidence: Evidence = { lines: null, fingerprint: null, verified_at: null };
  if (type !== "file") return evidence;
  if (entry.lines !== undefined && entry.lines !== null) {
    const parsed = parseLineRange(entry.lines);
    if ("error" in parsed) problem(`source ${id}: ${parsed.error}`);
    else if (target !== null && normalizeRefPath(target)?.isDir) problem(`source ${id}: lines ${formatLineRange(parsed.range)} cite a folder (${target}); cite a file, or drop lines`);
    else evidence.lines = formatLineRange(parsed.range);
  }
  evidence.fingerprint = nonEmptyString(entry.fingerprint);
  evidence.verified_at = nonEmptyString(entry.verified_at);
  return evidence;
}

function isSourceType(value: unknown): value is SourceType {
  return typeof value === "string" && (SOURCE_TYPES as readonly string[]).includes(value);
}

function nonEmptyString(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}

function targetText(value: unknown): string | null {
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return nonEmptyString(value);
}

const SPACED_DATETIME = /^(\d{4}-\d{1,2}-\d{1,2})(?:[Tt]|[ \t]+)(\d{1,2}:\d{2}:\d{2}(?:\.\d+)?)[ \t]*(Z|[+-]\d{1,2}(?::?\d{2})?)?$/;

/** YAML timestamps as ISO text; the core schema hands them over as the written string. */
function dateText(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  const text = nonEmptyString(value);
  if (text === null) return null;
  const match = SPACED_DATETIME.exec(text);
  return match ? `${match[1]}T${match[2]}${match[3] ?? ""}` : text;
}
