/**
 * The product's evidence stamp on a page's `type: file` sources: a fingerprint of what was
 * cited and the commit it was read at (`fingerprint`, `verified_at`), written next to the
 * source in the front matter. Like the topic rewrite (rewrite.ts), only those two keys of the
 * stamped entries change and every other byte of the file stays as it was; each splice is
 * proved by re-parsing, and a layout the splice cannot handle goes through the document model
 * for the `sources` value alone.
 */
import { isMap, isScalar, isSeq, parseDocument, stringify } from "yaml";
import type { Pair, YAMLMap } from "yaml";
import { invalid } from "../core/errors.js";
import { fileFingerprint, fileLines, parseLineRange, rangeFingerprint, type LineRange } from "./evidence.js";
import { loadFrontmatter } from "./rewrite.js";
import { isPlainMapping, parseYamlSource, yamlValue } from "./yaml-source.js";
import type { ParsedYaml } from "./yaml-source.js";

export type SourceStamp = {
  fingerprint: string;
  /** The commit the cited text was read at; null outside git (then the key is absent). */
  verified_at: string | null;
  /** Re-anchoring moved evidence (`ca drift --fix`): the new cited lines (null: the whole file); absent leaves `lines` alone. */
  lines?: string | null;
  /** Re-anchoring a renamed file: the new path, written where the entry names its path; absent leaves it alone. */
  path?: string;
};

/** A `type: file` entry of a page's `sources:` list, as the stamp sees it. */
export type FileSourceEntry = {
  /** Position in the `sources:` list (0-based): the key of a stamp. */
  index: number;
  id: string;
  /** The path as written. */
  path: string;
  /** The cited lines; null for the whole file. */
  range: LineRange | null;
  fingerprint: string | null;
  verified_at: string | null;
};

/**
 * The page's `type: file` sources that can carry a stamp: an id, a path, and no `lines`
 * value that fails to read (that one is reported by validation instead).
 */
export function fileSourceEntries(text: string, path: string): FileSourceEntry[] {
  const sources = loadFrontmatter(text, path).value.sources;
  if (!Array.isArray(sources)) return [];
  const entries: FileSourceEntry[] = [];
  sources.forEach((entry: unknown, index) => {
    if (!isPlainMapping(entry) || entry.type !== "file") return;
    const id = stringValue(entry.id);
    const target = stringValue(entry.path) ?? stringValue(entry.target);
    if (id === null || target === null) return;
    let range: LineRange | null = null;
    if (entry.lines !== undefined && entry.lines !== null) {
      const parsed = parseLineRange(entry.lines);
      if ("error" in parsed) return;
      range = parsed.range;
    }
    entries.push({ index, id, path: target, range, fingerprint: stringValue(entry.fingerprint), verified_at: stringValue(entry.verified_at) });
  });
  return entries;
}

/**
 * The fingerprint of what a source cites in a file with these bytes: the normalized text of
 * the range, or the whole file's blob; null when the range runs past the end. The bytes are
 * decoded as UTF-8, as `readFileSync(path, "utf8")` would.
 */
export function citedFingerprint(bytes: Uint8Array, range: LineRange | null): string | null {
  if (range === null) return fileFingerprint(bytes);
  return rangeFingerprint(fileLines(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")), range);
}

/**
 * Writes each stamp into the source entry at its index (see fileSourceEntries): `fingerprint`
 * and `verified_at` are replaced where they stand or appended to the entry, and `verified_at`
 * is taken out when the stamp has none. Returns `text` itself when every stamp is already there,
 * so callers can skip the write. Indexes that name no mapping entry are ignored.
 */
export function stampPageSources(text: string, stamps: ReadonlyMap<number, SourceStamp>, path: string): string {
  const loaded = loadFrontmatter(text, path);
  const { split, parsed, value } = loaded;
  if (split.yaml === null || parsed === null || !Array.isArray(value.sources)) return text;
  const sources: unknown[] = value.sources;
  const wanted = [...stamps].filter(([index, stamp]) => isPlainMapping(sources[index]) && !alreadyStamped(sources[index], stamp));
  if (wanted.length === 0) return text;

  const expected = JSON.stringify({
    ...value,
    sources: sources.map((entry, index) => {
      const stamp = stamps.get(index);
      return stamp && isPlainMapping(entry) ? stampedEntry(entry, stamp) : entry;
    }),
  });
  const yamlStart = split.prefix.indexOf("\n") + 1;
  const opener = split.prefix.slice(0, yamlStart);
  const closer = split.prefix.slice(yamlStart + split.yaml.length);
  const yaml = editSourcesYaml(split.yaml, parsed, new Map(wanted), expected, split.eol, path);
  return opener + yaml + closer + split.body;
}

function alreadyStamped(entry: Record<string, unknown>, stamp: SourceStamp): boolean {
  return JSON.stringify(stampedEntry(entry, stamp)) === JSON.stringify(entry);
}

/** The key an entry names its path with: `path`, else `target` when only that is written. */
function pathKey(entry: Record<string, unknown>): "path" | "target" {
  return !("path" in entry) && "target" in entry ? "target" : "path";
}

/** What each written key becomes: a value to set, or null to take the key out. */
function stampFields(entry: Record<string, unknown>, stamp: SourceStamp): [string, string | number | null][] {
  const fields: [string, string | number | null][] = [];
  if (stamp.path !== undefined) fields.push([pathKey(entry), stamp.path]);
  if (stamp.lines !== undefined) fields.push(["lines", stamp.lines === null ? null : /^\d+$/.test(stamp.lines) ? Number(stamp.lines) : stamp.lines]);
  fields.push(["fingerprint", stamp.fingerprint], ["verified_at", stamp.verified_at]);
  return fields;
}

/** The entry as it reads once stamped: existing keys keep their place, new ones come last. */
function stampedEntry(entry: Record<string, unknown>, stamp: SourceStamp): Record<string, unknown> {
  const next: Record<string, unknown> = { ...entry };
  for (const [key, value] of stampFields(entry, stamp)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

function editSourcesYaml(yaml: string, parsed: ParsedYaml, stamps: Map<number, SourceStamp>, expected: string, eol: string, path: string): string {
  const spliced = spliceStamps(yaml, parsed, stamps, eol);
  if (spliced !== null && valueOf(spliced) === expected) return spliced;
  const rebuilt = rebuildSources(yaml, stamps, eol);
  const local = spliceSourcesValue(yaml, parsed, rebuilt);
  if (local !== null && valueOf(local) === expected) return local;
  if (valueOf(rebuilt) === expected) return rebuilt;
  throw invalid(`cannot write the evidence stamp into the front matter of ${path}`);
}

function valueOf(yaml: string): string | null {
  const parsed = parseYamlSource(yaml);
  if (parsed.error) return null;
  const js = yamlValue(parsed);
  return "error" in js ? null : JSON.stringify(js.value ?? {});
}

type Ranged = { range?: [number, number, number] | null };
type Edit = { start: number; end: number; text: string };

/** Text edits for every stamped entry, applied from the end so offsets stay valid; null when a layout is not handled. */
function spliceStamps(yaml: string, parsed: ParsedYaml, stamps: Map<number, SourceStamp>, eol: string): string | null {
  const seq = sourcesNode(parsed.doc.contents);
  if (!isSeq(seq)) return null;
  const edits: Edit[] = [];
  for (const [index, stamp] of stamps) {
    const entry = seq.items[index];
    if (!isMap(entry)) return null;
    const entryEdits = stampEdits(yaml, entry, stampFields(entry.toJSON() as Record<string, unknown>, stamp), eol);
    if (entryEdits === null) return null;
    edits.push(...entryEdits);
  }
  edits.sort((a, b) => b.start - a.start || b.end - a.end);
  let out = yaml;
  let limit = Infinity;
  for (const edit of edits) {
    if (edit.end > limit) return null;
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    limit = edit.start;
  }
  return out;
}

function sourcesNode(root: unknown): unknown {
  if (!isMap(root)) return undefined;
  return sourcesPair(root)?.value;
}

function sourcesPair(root: YAMLMap): Pair | undefined {
  return root.items.find((pair) => isScalar(pair.key) && pair.key.value === "sources");
}

function stampEdits(yaml: string, entry: YAMLMap, fields: [string, string | number | null][], eol: string): Edit[] | null {
  const edits: Edit[] = [];
  const appended: [string, string | number][] = [];
  for (const [key, value] of fields) {
    const pair = entry.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (value === null) {
      if (!pair) continue;
      const removal = removePair(yaml, entry, pair);
      if (removal === null) return null;
      edits.push(removal);
      continue;
    }
    if (!pair) {
      appended.push([key, value]);
      continue;
    }
    const range = isScalar(pair.value) ? pair.value.range : null;
    if (!range || range[0] === range[1]) return null;
    edits.push({ start: range[0], end: range[1], text: scalarText(value) });
  }
  if (appended.length === 0) return edits;
  const last = entry.items[entry.items.length - 1];
  const lastEnd = (last?.value as Ranged | null | undefined)?.range?.[1];
  if (lastEnd === undefined) return null;
  if (entry.flow) {
    edits.push({ start: lastEnd, end: lastEnd, text: appended.map(([k, v]) => `, ${k}: ${scalarText(v)}`).join("") });
    return edits;
  }
  const added = blockLines(yaml, entry, lastEnd, appended, eol);
  if (added === null) return null;
  edits.push(added);
  return edits;
}

/**
 * Takes a pair out: in a flow entry from the end of the value before it, in a block entry
 * its whole line(s). A pair that opens its entry (the `- key:` line) is left to the document model.
 */
function removePair(yaml: string, entry: YAMLMap, pair: Pair): Edit | null {
  const index = entry.items.indexOf(pair);
  const end = (pair.value as Ranged | null)?.range?.[1];
  const keyStart = (pair.key as Ranged | null)?.range?.[0];
  if (index < 1 || end === undefined || keyStart === undefined) return null;
  if (entry.flow) {
    const before = (entry.items[index - 1]?.value as Ranged | null | undefined)?.range?.[1];
    return before === undefined ? null : { start: before, end, text: "" };
  }
  const lineStart = yaml.lastIndexOf("\n", keyStart - 1) + 1;
  if (!/^[ \t]*$/.test(yaml.slice(lineStart, keyStart))) return null;
  const newline = yaml.indexOf("\n", Math.max(end - 1, keyStart));
  return { start: lineStart, end: newline < 0 ? yaml.length : newline + 1, text: "" };
}

/** New `key: value` lines after the line where the entry's last value ends, at the entry's key column. */
function blockLines(yaml: string, entry: YAMLMap, lastEnd: number, pairs: [string, string | number][], eol: string): Edit | null {
  const firstKey = (entry.items[0]?.key as Ranged | null | undefined)?.range?.[0];
  if (firstKey === undefined) return null;
  const column = firstKey - (yaml.lastIndexOf("\n", firstKey - 1) + 1);
  const newline = yaml.indexOf("\n", Math.max(lastEnd - 1, 0));
  const at = newline < 0 ? yaml.length : newline + 1;
  const lead = newline < 0 ? eol : "";
  const lines = pairs.map(([k, v]) => `${" ".repeat(column)}${k}: ${scalarText(v)}${eol}`).join("");
  return { start: at, end: at, text: lead + lines };
}

/** YAML text for a value, quoted only when plain text would read as something else (a hex of digits only is a number). */
function scalarText(value: string | number): string {
  return stringify(value, { lineWidth: 0 }).trimEnd();
}

/** Fallback through the document model: comments and key order survive, layout may be normalized. */
function rebuildSources(yaml: string, stamps: Map<number, SourceStamp>, eol: string): string {
  const doc = parseDocument(yaml);
  const seq = sourcesNode(doc.contents);
  if (isSeq(seq)) {
    for (const [index, stamp] of stamps) {
      const entry = seq.items[index];
      if (!isMap(entry)) continue;
      for (const [key, value] of stampFields(entry.toJSON() as Record<string, unknown>, stamp)) {
        if (value === null) entry.delete(key);
        else entry.set(key, value);
      }
    }
  }
  const text = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  return eol === "\r\n" ? text.replace(/\r?\n/g, "\r\n") : text;
}

/**
 * The rebuilt document's `sources:` pair, put in place of the original's: everything
 * outside that pair keeps its bytes even when the splice above could not be used.
 */
function spliceSourcesValue(yaml: string, parsed: ParsedYaml, rebuilt: string): string | null {
  const from = pairSpan(yaml, parsed);
  const to = pairSpan(rebuilt, parseYamlSource(rebuilt));
  if (from === null || to === null) return null;
  return yaml.slice(0, from[0]) + rebuilt.slice(to[0], to[1]) + yaml.slice(from[1]);
}

/** From the `sources` key to the end of its value, and on through the line break when only blanks are left on that line. */
function pairSpan(yaml: string, parsed: ParsedYaml): [number, number] | null {
  if (parsed.error || !isMap(parsed.doc.contents)) return null;
  const pair = sourcesPair(parsed.doc.contents);
  const start = (pair?.key as Ranged | null | undefined)?.range?.[0];
  const end = (pair?.value as Ranged | null | undefined)?.range?.[1];
  if (start === undefined || end === undefined) return null;
  if (end > 0 && yaml[end - 1] === "\n") return [start, end];
  const newline = yaml.indexOf("\n", end);
  const lineEnd = newline < 0 ? yaml.length : newline + 1;
  return [start, /^[ \t\r]*\n?$/.test(yaml.slice(end, lineEnd)) ? lineEnd : end];
}

function stringValue(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed === "" ? null : trimmed;
}
