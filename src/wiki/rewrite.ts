import { isMap, isScalar, isSeq, parseDocument, stringify } from "yaml";
import type { Document, Pair, YAMLMap } from "yaml";
import { invalid } from "../core/errors.js";
import { kebab } from "../core/kebab.js";
import { splitFrontmatter } from "./frontmatter.js";
import type { FrontmatterSplit } from "./frontmatter.js";
import { normalizeTopicList } from "./topic-list.js";
import { isPlainMapping, parseYamlSource, yamlValue } from "./yaml-source.js";
import type { ParsedYaml } from "./yaml-source.js";

/** The page's current topics as it means them (kebab-cased, distinct, in order). */
export function readTopicsForRewrite(text: string, path: string): string[] {
  return normalizeTopicList(loadFrontmatter(text, path).value.topics);
}

/** A topic renamed in place: the item keeps its position and trailing comment. */
export type TopicRename = { from: string; to: string };

/**
 * Rewrites only the `topics` key of a page's front matter. Kept items keep their
 * position and spelling, dropped ones go, new ones are appended; an item matching
 * `rename.from` is respelled `rename.to` where it stands. Every other byte of the
 * file stays as it was. Returns `text` itself when the topic list would not change,
 * so callers can skip the write.
 */
export function rewritePageTopics(text: string, topics: readonly string[], path: string, rename?: TopicRename): string {
  const loaded = loadFrontmatter(text, path);
  const plan = planTopics(loaded.value.topics, normalizeTopicList([...topics]), rename);
  if (sameList(plan.result, normalizeTopicList(loaded.value.topics))) return text;

  const { split } = loaded;
  if (split.yaml === null || loaded.parsed === null) {
    const block = `---${split.eol}topics:${blockList(plan.added, "  ", split.eol)}${split.eol}---${split.eol}`;
    return split.prefix + block + split.body;
  }
  const yamlStart = split.prefix.indexOf("\n") + 1;
  const opener = split.prefix.slice(0, yamlStart);
  const closer = split.prefix.slice(yamlStart + split.yaml.length);
  const yaml = editTopicsYaml(split.yaml, loaded.parsed, loaded.value, plan, split.eol);
  return opener + yaml + closer + split.body;
}

/** A page's front matter, split and parsed; shared by the rewriters (topics here, the evidence stamp). */
export type Loaded = { split: FrontmatterSplit; parsed: ParsedYaml | null; value: Record<string, unknown> };

export function loadFrontmatter(text: string, path: string): Loaded {
  const split = splitFrontmatter(text);
  if (split.yaml === null) return { split, parsed: null, value: {} };
  const parsed = parseYamlSource(split.yaml);
  const js = parsed.error ? null : yamlValue(parsed);
  if (js === null || "error" in js) throw invalid(`invalid frontmatter: ${path}`);
  if (js.value === null || js.value === undefined) return { split, parsed, value: {} };
  if (!isPlainMapping(js.value)) throw invalid(`frontmatter must be a YAML mapping: ${path}`);
  return { split, parsed, value: js.value };
}

type Plan = {
  /** Indexes of existing list items that stay. */
  keep: number[];
  /** Kept items respelled by a rename, by index. */
  respell: Map<number, string>;
  added: string[];
  result: string[];
};

function planTopics(existing: unknown, wanted: readonly string[], rename?: TopicRename): Plan {
  const items: unknown[] = Array.isArray(existing) ? existing : [];
  const keep: number[] = [];
  const respell = new Map<number, string>();
  const kept: string[] = [];
  items.forEach((item, index) => {
    if (typeof item !== "string") return;
    const renamed = rename !== undefined && kebab(item) === rename.from;
    const slug = renamed ? rename.to : kebab(item);
    if (wanted.includes(slug) && !kept.includes(slug)) {
      keep.push(index);
      kept.push(slug);
      if (renamed) respell.set(index, slug);
    }
  });
  const added = wanted.filter((slug) => !kept.includes(slug));
  return { keep, respell, added, result: [...kept, ...added] };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * Splices new topics text into the YAML source, then proves the splice by
 * re-parsing; layouts the splice cannot handle go through the document model.
 */
function editTopicsYaml(yaml: string, parsed: ParsedYaml, value: Record<string, unknown>, plan: Plan, eol: string): string {
  const items: unknown[] = Array.isArray(value.topics) ? value.topics : [];
  const expected = JSON.stringify({ ...value, topics: [...plan.keep.map((i) => plan.respell.get(i) ?? items[i]), ...plan.added] });
  const spliced = spliceTopics(yaml, parsed, plan, eol);
  if (spliced !== null && valueOf(spliced) === expected) return spliced;
  return rebuildTopics(yaml, plan, eol);
}

function valueOf(yaml: string): string | null {
  const parsed = parseYamlSource(yaml);
  if (parsed.error) return null;
  const js = yamlValue(parsed);
  return "error" in js ? null : JSON.stringify(js.value ?? {});
}

function spliceTopics(yaml: string, parsed: ParsedYaml, plan: Plan, eol: string): string | null {
  const root = parsed.doc.contents;
  if (root === null) return appendTopics(yaml, plan.added, eol);
  if (!isMap(root) || root.flow) return null;
  const pair = topicsPair(root);
  if (!pair) return appendTopics(yaml, plan.added, eol);
  const keyEnd = isScalar(pair.key) ? pair.key.range?.[1] : undefined;
  if (keyEnd === undefined) return null;
  const list = pair.value;
  if (isSeq(list) && list.flow) return spliceFlowList(yaml, list, plan);
  if (isSeq(list) && list.items.length > 0) return spliceBlockList(yaml, list, plan, keyEnd, eol);
  return replaceValue(yaml, pair, keyEnd, plan.added, eol);
}

function topicsPair(root: YAMLMap): Pair | undefined {
  return root.items.find((pair) => isScalar(pair.key) && pair.key.value === "topics");
}

function appendTopics(yaml: string, topics: readonly string[], eol: string): string {
  const separator = yaml === "" || yaml.endsWith("\n") ? "" : eol;
  const list = topics.length === 0 ? " []" : blockList(topics, "  ", eol);
  return `${yaml}${separator}topics:${list}${eol}`;
}

type Ranged = { range?: [number, number, number] | null };

function spliceFlowList(yaml: string, list: Ranged & { items: unknown[] }, plan: Plan): string | null {
  const range = list.range;
  if (!range) return null;
  const parts: string[] = [];
  for (const index of plan.keep) {
    const itemRange = (list.items[index] as Ranged | undefined)?.range;
    if (!itemRange) return null;
    const respelled = plan.respell.get(index);
    parts.push(respelled !== undefined ? scalarText(respelled) : yaml.slice(itemRange[0], itemRange[1]));
  }
  parts.push(...plan.added.map(scalarText));
  return yaml.slice(0, range[0]) + `[${parts.join(", ")}]` + yaml.slice(range[1]);
}

/** Deletes the lines of dropped items and adds new item lines after the last item, leaving comments alone. */
function spliceBlockList(yaml: string, list: { items: unknown[] }, plan: Plan, keyEnd: number, eol: string): string | null {
  const lines = yaml.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const lineStarts: number[] = [];
  lines.reduce((offset, line) => (lineStarts.push(offset), offset + line.length), 0);
  const lineOf = (offset: number) => {
    let line = 0;
    while ((lineStarts[line + 1] ?? Infinity) <= offset) line++;
    return line;
  };

  const spans: { first: number; last: number }[] = [];
  let indent = "";
  for (const [index, item] of list.items.entries()) {
    const range = (item as Ranged).range;
    if (!range) return null;
    const first = lineOf(range[0]);
    const lead = /^([ \t]*)-[ \t]+$/.exec(yaml.slice(lineStarts[first] ?? 0, range[0]));
    if (!lead) return null;
    if (spans.length === 0) indent = lead[1] ?? "";
    const last = lineOf(Math.max(range[0], range[1] - 1));
    const respelled = plan.respell.get(index);
    if (respelled !== undefined) {
      // Respell the item's own text only, so a trailing comment stays on its line.
      if (last !== first) return null;
      const start = lineStarts[first] ?? 0;
      const line = lines[first] ?? "";
      lines[first] = line.slice(0, range[0] - start) + scalarText(respelled) + line.slice(range[1] - start);
    }
    spans.push({ first, last });
  }
  const lastLine = spans[spans.length - 1]?.last;
  if (lastLine === undefined) return null;

  if (plan.result.length === 0) {
    const after = lineStarts[lastLine + 1] ?? yaml.length;
    const terminator = /\r?\n$/.exec(lines[lastLine] ?? "")?.[0] ?? "";
    return yaml.slice(0, keyEnd) + ": []" + terminator + yaml.slice(after);
  }
  const dropped = new Set<number>();
  spans.forEach((span, index) => {
    if (plan.keep.includes(index)) return;
    for (let line = span.first; line <= span.last; line++) dropped.add(line);
  });
  const additions = plan.added.map((topic) => `${indent}- ${scalarText(topic)}${eol}`).join("");
  let out = "";
  lines.forEach((line, index) => {
    if (!dropped.has(index)) out += line;
    if (index !== lastLine || additions === "") return;
    if (out !== "" && !out.endsWith("\n")) out += eol;
    out += additions;
  });
  return out;
}

/** Replaces a non-list (or empty) `topics` value with a list. */
function replaceValue(yaml: string, pair: Pair, keyEnd: number, topics: readonly string[], eol: string): string | null {
  const colon = yaml.indexOf(":", keyEnd);
  if (colon < 0) return null;
  const valueRange = (pair.value as Ranged | null)?.range;
  const isEmpty = !valueRange || valueRange[0] === valueRange[1];
  const end = isEmpty ? colon + 1 : valueRange[1];
  const replaced = yaml.slice(keyEnd, end);
  const list = topics.length === 0 ? " []" : blockList(topics, "  ", eol);
  const terminator = replaced.endsWith("\n") ? eol : "";
  return yaml.slice(0, keyEnd) + ":" + list + terminator + yaml.slice(end);
}

function blockList(topics: readonly string[], indent: string, eol: string): string {
  return topics.map((topic) => `${eol}${indent}- ${scalarText(topic)}`).join("");
}

/** YAML text for one topic, quoted only when plain text would read as something else (`true`, `123`). */
function scalarText(topic: string): string {
  return stringify(topic, { lineWidth: 0 }).trimEnd();
}

/** Fallback through the document model: comments and key order survive, layout may be normalized. */
function rebuildTopics(yaml: string, plan: Plan, eol: string): string {
  const doc: Document = parseDocument(yaml);
  const root = doc.contents;
  const current = isMap(root) ? root.get("topics", true) : undefined;
  if (isSeq(current)) {
    const kept: unknown[] = plan.keep.map((index) => {
      const respelled = plan.respell.get(index);
      return respelled !== undefined ? doc.createNode(respelled) : current.items[index];
    });
    current.items = [...kept, ...plan.added.map((topic) => doc.createNode(topic))];
  } else if (isMap(root)) root.set("topics", doc.createNode(plan.added));
  else doc.contents = doc.createNode({ topics: plan.added });
  const text = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  return eol === "\r\n" ? text.replace(/\r?\n/g, "\r\n") : text;
}
