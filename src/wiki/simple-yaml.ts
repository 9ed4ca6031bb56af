/**
 * A reader for the front matter nearly every page has: flat `key: value` lines, scalar
 * strings, one-line `[a, b]` lists and block lists of scalars or of flat mappings
 * (`sources`). It gives exactly what the yaml library's `toJS` gives for that shape, or
 * null for anything it does not fully understand (quotes with escapes, multi-line or
 * block scalars, anchors, tags, nested mappings, numbers other than small decimals,
 * booleans, nulls written out, tabs, duplicate keys, comments inside lists), and the
 * caller then parses with the library. It exists because the library costs about a third
 * of a page's parse (almanac/architecture/index.md, "Parsing");
 * test/wiki/simple-yaml.test.ts holds it to the library on generated and tricky inputs.
 */

export type SimpleYaml = {
  value: Record<string, unknown>;
  /** 1-based line (of the YAML text) where a top-level key's value starts. */
  valueLine: Map<string, number>;
  /** 1-based line of each item of a top-level key's list. */
  itemLines: Map<string, number[]>;
};

type Line = { no: number; indent: number; text: string };

/** Thrown inside the reader when the text leaves the simple shape; caught at the top. */
class NotSimple extends Error {}

export function readSimpleYaml(yaml: string): SimpleYaml | null {
  // Control characters, tabs, odd line breaks and other Unicode spaces are the library's to judge
  // (what is left, JavaScript's trims and YAML's agree on).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/.test(yaml)) return null;
  const lines = meaningfulLines(yaml);
  if (lines === null || lines.length === 0) return null;
  try {
    return readTop(lines);
  } catch (error) {
    if (error instanceof NotSimple) return null;
    throw error;
  }
}

/** Non-blank lines that are not whole-line comments; null when a line is not plain text. */
function meaningfulLines(yaml: string): Line[] | null {
  const raw = yaml.split("\n");
  if (raw[raw.length - 1] === "") raw.pop();
  const lines: Line[] = [];
  for (let i = 0; i < raw.length; i++) {
    let text = raw[i]!;
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.includes("\r")) return null;
    const body = text.trimStart();
    if (body === "" || body.startsWith("#")) continue;
    const indent = text.length - body.length;
    // Directives and document markers belong to the library.
    if (indent === 0 && (body.startsWith("%") || body.startsWith("---") || body.startsWith("..."))) return null;
    lines.push({ no: i + 1, indent, text: body.trimEnd() });
  }
  return lines;
}

const KEY = /^([A-Za-z_][A-Za-z0-9_-]{0,63}):(?: (.*))?$/;
/** Keys the core schema reads as something other than a string. */
const SPECIAL_KEY = /^(?:[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|__proto__)$/;

function splitKey(text: string): { key: string; rest: string } {
  const match = KEY.exec(text);
  if (!match || SPECIAL_KEY.test(match[1]!)) throw new NotSimple();
  return { key: match[1]!, rest: (match[2] ?? "").trim() };
}

function readTop(lines: Line[]): SimpleYaml {
  const value: Record<string, unknown> = {};
  const valueLine = new Map<string, number>();
  const itemLines = new Map<string, number[]>();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.indent !== 0) throw new NotSimple();
    const { key, rest } = splitKey(line.text);
    if (Object.hasOwn(value, key)) throw new NotSimple();
    i++;
    if (!isEmptyValue(rest)) {
      const inline = inlineValue(rest);
      value[key] = inline;
      valueLine.set(key, line.no);
      if (Array.isArray(inline)) itemLines.set(key, inline.map(() => line.no));
      continue;
    }
    const next = lines[i];
    if (next && isItem(next.text)) {
      const list = readList(lines, i, next.indent);
      value[key] = list.items;
      valueLine.set(key, next.no);
      itemLines.set(key, list.lines);
      i = list.end;
    } else if (next && next.indent > 0) {
      throw new NotSimple();
    } else {
      value[key] = null;
    }
  }
  return { value, valueLine, itemLines };
}

function isItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

function isEmptyValue(rest: string): boolean {
  return rest === "" || rest.startsWith("#");
}

/** A block list whose dashes stand at `indent`: scalar items or flat mappings. */
function readList(lines: Line[], start: number, indent: number): { items: unknown[]; lines: number[]; end: number } {
  const items: unknown[] = [];
  const itemLines: number[] = [];
  let i = start;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.indent < indent || (line.indent === 0 && !isItem(line.text))) break;
    if (line.indent !== indent || !line.text.startsWith("- ")) throw new NotSimple();
    const content = line.text.slice(2);
    const column = indent + 2 + (content.length - content.trimStart().length);
    const first = content.trimStart();
    itemLines.push(line.no);
    i++;
    if (!KEY.test(first)) {
      if (first.startsWith("[")) throw new NotSimple();
      items.push(scalar(first, false));
      continue;
    }
    const item = readItemMapping(lines, i, first, column);
    items.push(item.value);
    i = item.end;
  }
  return { items, lines: itemLines, end: i };
}

/** The flat mapping of one list item: its first pair on the dash's line, the rest at `column`. */
function readItemMapping(lines: Line[], start: number, first: string, column: number): { value: Record<string, unknown>; end: number } {
  const value: Record<string, unknown> = {};
  const addPair = (text: string) => {
    const { key, rest } = splitKey(text);
    if (Object.hasOwn(value, key)) throw new NotSimple();
    value[key] = isEmptyValue(rest) ? null : inlineValue(rest);
  };
  addPair(first);
  let i = start;
  while (i < lines.length && lines[i]!.indent === column) addPair(lines[i++]!.text);
  // What follows is the next item, the next key, or something nested (not simple).
  const next = lines[i];
  if (next && next.indent > column - 2 && next.indent !== column) throw new NotSimple();
  return { value, end: i };
}

/** The value written after `key: `: a one-line list or a scalar. */
function inlineValue(text: string): unknown {
  return text.startsWith("[") ? flowList(text) : scalar(text, false);
}

/** `[a, b, c]` of plain scalars, on one line, with nothing after it. */
function flowList(text: string): unknown[] {
  if (!text.endsWith("]")) throw new NotSimple();
  const inner = text.slice(1, -1);
  if (/["'[\]{}#:]/.test(inner)) throw new NotSimple();
  if (inner.trim() === "") return [];
  return inner.split(",").map((item) => scalar(item.trim(), true));
}

/** Characters that start something other than a plain scalar (or one the library reads its own way). */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

function scalar(text: string, inFlow: boolean): unknown {
  if (text === "") throw new NotSimple();
  if (text.startsWith('"')) return quoted(text, '"');
  if (text.startsWith("'")) return quoted(text, "'");
  if (INDICATOR.test(text)) throw new NotSimple();
  const comment = text.search(/ #/);
  const plain = (comment < 0 ? text : text.slice(0, comment)).trimEnd();
  if (/:( |$)/.test(plain) || (inFlow && /[,[\]{}]/.test(plain))) throw new NotSimple();
  return coreScalar(plain);
}

/**
 * The yaml library's core-schema tests (yaml/dist/schema/core, common/null.js): a plain
 * scalar matching one is no string.
 */
const NOT_A_STRING = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
];

/** A plain scalar as the core schema reads it: small decimal integers become numbers; other numbers, nulls and booleans go to the library. */
function coreScalar(plain: string): unknown {
  if (/^[0-9]{1,15}$/.test(plain)) return parseInt(plain, 10);
  if (NOT_A_STRING.some((test) => test.test(plain))) throw new NotSimple();
  return plain;
}

/** A one-line quoted scalar followed by nothing or a comment; double quotes without escapes only. */
function quoted(text: string, quote: '"' | "'"): string {
  let value = "";
  let i = 1;
  for (;;) {
    const close = text.indexOf(quote, i);
    if (close < 0) throw new NotSimple();
    value += text.slice(i, close);
    if (quote === "'" && text[close + 1] === "'") {
      value += "'";
      i = close + 2;
      continue;
    }
    i = close + 1;
    break;
  }
  if (quote === '"' && value.includes("\\")) throw new NotSimple();
  const rest = text.slice(i);
  if (rest !== "" && !/^ +(?:#.*)?$/.test(rest)) throw new NotSimple();
  return value;
}
