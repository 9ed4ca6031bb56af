/**
 * Line-based edits of a TOML text that leave every other line, comments included, exactly
 * as the user wrote them. They understand `key = value` lines under `[table]` headers only;
 * the caller checks the parsed result, so a form they do not understand (a dotted key, an
 * inline table) is refused rather than mangled.
 */
export type TomlScalar = boolean | string | readonly string[];

interface Section {
  /** Normalised table name, or null for the lines before the first header. */
  name: string | null;
  /** Index of the header line; -1 for the top level. */
  header: number;
  /** Body lines are [start, end). */
  start: number;
  end: number;
}

const HEADER = /^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(?:#.*)?$/;

/** Sets `name = value` in `table` (null: the top level), replacing the line or adding one. */
export function setKey(text: string, table: string | null, name: string, value: TomlScalar): string {
  const doc = splitLines(text);
  const line = `${name} = ${tomlScalar(value)}`;
  const section = sections(doc.lines).find((s) => s.name === table);
  if (!section) return doc.join(appendTable(doc.lines, table!, line));
  const at = findKey(doc.lines, section, name);
  const lines = [...doc.lines];
  if (at >= 0) {
    lines[at] = replaceValue(lines[at]!, value);
    return doc.join(lines);
  }
  const pos = insertionPoint(lines, section);
  const spacer = section.header < 0 && pos === 0 && section.end < lines.length ? [""] : [];
  lines.splice(pos, 0, line, ...spacer);
  return doc.join(lines);
}

/** Removes `name` from `table`, and the table's header when nothing else (not even a comment) is left in it. */
export function removeKey(text: string, table: string | null, name: string): string {
  const doc = splitLines(text);
  const section = sections(doc.lines).find((s) => s.name === table);
  if (!section) return text;
  const at = findKey(doc.lines, section, name);
  if (at < 0) return text;
  const lines = [...doc.lines];
  lines.splice(at, 1);
  const shrunk = { ...section, end: section.end - 1 };
  let end = ownEnd(lines, shrunk);
  if (section.header < 0) return doc.join(withoutLeadingBlanks(lines, shrunk));
  if (!lines.slice(section.start, end).every(isBlank)) return doc.join(lines);
  // A comment left standing above the removed header keeps its blank line to what follows.
  const commentAbove = section.header > 0 && !isBlank(lines[section.header - 1]!);
  if (commentAbove && end > section.start && isBlank(lines[end - 1]!)) end--;
  lines.splice(section.header, end - section.header);
  return doc.join(lines);
}

/** A JSON string is a TOML basic string; a list of them is written on one line. */
/**
 * When the top level holds nothing but blank lines before the first table, those lines go:
 * they were the spacer `setKey` put after the key just removed.
 */
function withoutLeadingBlanks(lines: string[], top: Section): string[] {
  if (top.end >= lines.length || !lines.slice(0, top.end).every(isBlank)) return lines;
  return lines.slice(top.end);
}

export function tomlScalar(value: TomlScalar): string {
  if (typeof value === "boolean") return String(value);
  return typeof value === "string" ? JSON.stringify(value) : `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
}

interface Doc {
  lines: string[];
  join(lines: string[]): string;
}

/** Splits on "\n", keeping any "\r", so untouched lines come back byte for byte. */
function splitLines(text: string): Doc {
  const crlf = text.includes("\r\n");
  return {
    lines: text.split("\n"),
    join(lines) {
      const fixed = crlf ? lines.map((l, i) => (i < lines.length - 1 && !l.endsWith("\r") ? `${l}\r` : l)) : lines;
      const out = fixed.join("\n");
      return out === "" || out.endsWith("\n") ? out : out + (crlf ? "\r\n" : "\n");
    },
  };
}

function sections(lines: string[]): Section[] {
  const out: Section[] = [{ name: null, header: -1, start: 0, end: lines.length }];
  lines.forEach((line, i) => {
    const match = HEADER.exec(line.replace(/\r$/, ""));
    if (!match) return;
    out[out.length - 1]!.end = i;
    out.push({ name: tableName(match[1]!), header: i, start: i + 1, end: lines.length });
  });
  return out;
}

/** `automation . "sync"` and `automation.sync` name the same table. */
function tableName(raw: string): string {
  return raw
    .split(".")
    .map((part) => part.trim().replace(/^"(.*)"$|^'(.*)'$/, "$1$2"))
    .join(".");
}

function findKey(lines: string[], section: Section, name: string): number {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`^\\s*(?:${escaped}|"${escaped}"|'${escaped}')\\s*=`);
  for (let i = section.start; i < section.end; i++) if (pattern.test(lines[i]!)) return i;
  return -1;
}

/** Keeps the line's indentation, key spelling and trailing comment; swaps the value. */
function replaceValue(line: string, value: TomlScalar): string {
  const cr = line.endsWith("\r") ? "\r" : "";
  const body = cr ? line.slice(0, -1) : line;
  const eq = body.indexOf("=");
  const afterEq = body.slice(eq + 1);
  const valueStart = afterEq.length - afterEq.trimStart().length;
  const rest = afterEq.slice(valueStart + valueLength(afterEq.slice(valueStart)));
  const comment = /^\s*#/.test(rest) ? rest : "";
  return `${body.slice(0, eq).trimEnd()} = ${tomlScalar(value)}${comment}${cr}`;
}

/** Length of a single-line TOML value at the start of `text`; an array may hold strings with `]` or `#` in them. */
function valueLength(text: string): number {
  const quote = text[0];
  if (quote === '"' || quote === "'") return stringLength(text, 0);
  if (quote === "[") {
    for (let i = 1; i < text.length; i++) {
      if (text[i] === '"' || text[i] === "'") i += stringLength(text, i) - 1;
      else if (text[i] === "]") return i + 1;
    }
    return text.length;
  }
  const hash = text.indexOf("#");
  return (hash < 0 ? text : text.slice(0, hash)).trimEnd().length;
}

/** Length of the quoted string starting at `at`, quotes included. */
function stringLength(text: string, at: number): number {
  const quote = text[at];
  for (let i = at + 1; i < text.length; i++) {
    if (quote === '"' && text[i] === "\\") i++;
    else if (text[i] === quote) return i - at + 1;
  }
  return text.length - at;
}

/** Where the section's own lines end: a comment block sitting directly on the next header belongs to that header. */
function ownEnd(lines: string[], section: Section): number {
  let pos = section.end;
  if (section.end < lines.length) while (pos > section.start && isComment(lines[pos - 1]!)) pos--;
  return pos;
}

/** After the section's last own line that is not blank. */
function insertionPoint(lines: string[], section: Section): number {
  let pos = ownEnd(lines, section);
  while (pos > section.start && isBlank(lines[pos - 1]!)) pos--;
  return pos;
}

function appendTable(lines: string[], table: string, line: string): string[] {
  let pos = lines.length;
  while (pos > 0 && isBlank(lines[pos - 1]!)) pos--;
  const separator = pos > 0 ? [""] : [];
  return [...lines.slice(0, pos), ...separator, `[${table}]`, line, ...(pos < lines.length ? lines.slice(pos) : [""])];
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

function isComment(line: string): boolean {
  return line.trim().startsWith("#");
}
