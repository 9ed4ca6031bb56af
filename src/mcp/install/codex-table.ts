/**
 * Line edits of Codex's config.toml for one `[mcp_servers.<name>]` table, leaving every
 * other line byte for byte as it was. Adding a table and removing it again gives back
 * the original text exactly, whatever its line endings and final newline. The caller
 * parses each result (src/config/codex-mcp-toml.ts), so a form these edits do not
 * understand (an inline table, dotted keys) is refused rather than mangled.
 */
import type { ServerCommand } from "./model.js";

const HEADER = /^\s*(\[\[?)\s*([^\]]*?)\s*\]\]?\s*(?:#.*)?$/;

export function serverTableName(name: string): string {
  return `mcp_servers.${name}`;
}

/** The table as it is appended, its lines joined with `eol` and no final line ending. */
export function serverTable(name: string, server: ServerCommand, eol = "\n"): string {
  return [`[${serverTableName(name)}]`, `command = ${tomlString(server.command)}`, `args = ${tomlArray(server.args)}`].join(eol);
}

/**
 * Appends the table at the end after one blank line. The file's own last line keeps its
 * ending, or its lack of one: the table then ends without one too, so removing it can
 * tell the two apart.
 */
export function appendServerTable(text: string, name: string, server: ServerCommand): string {
  const eol = lineEnding(text);
  const table = serverTable(name, server, eol);
  if (text === "") return table + eol;
  if (text.endsWith("\n")) return text + eol + table + eol;
  return text + eol + eol + table;
}

/** Points the existing table's `command` and `args` at `server`, keeping its other keys and comments. */
export function updateServerTable(text: string, name: string, server: ServerCommand): string {
  const lines = text.split("\n");
  const span = tableSpan(lines, serverTableName(name));
  if (!span) return text;
  const command = setValue(lines, span, "command", tomlString(server.command), span.header);
  setValue(lines, tableSpan(lines, serverTableName(name))!, "args", tomlArray(server.args), command);
  return lines.join("\n");
}

/**
 * Replaces the value of `key` in the table (a value may span lines), keeping the key's
 * spelling, its indentation and a trailing comment; a missing key is added after line
 * `after`. Returns the key's line.
 */
function setValue(lines: string[], span: TableSpan, key: string, literal: string, after: number): number {
  const at = findKeyLine(lines, span, key);
  if (at < 0) {
    const cr = lines[after]!.endsWith("\r") ? "\r" : "";
    lines.splice(after + 1, 0, `${key} = ${literal}${cr}`);
    return after + 1;
  }
  const end = valueEnd(lines, at);
  const last = lines[end.line]!;
  const cr = last.endsWith("\r") ? "\r" : "";
  const trailing = stripCr(last).slice(end.column);
  const comment = /^\s*#/.test(trailing) ? trailing : "";
  const spelled = lines[at]!.slice(0, lines[at]!.indexOf("=")).trimEnd();
  lines.splice(at, end.line - at + 1, `${spelled} = ${literal}${comment}${cr}`);
  return at;
}

/** The table's text (and its sub-tables'), as the file has it; null when there is none. */
export function serverTableText(text: string, name: string): string | null {
  const lines = text.split("\n");
  const spans = ownSpans(lines, serverTableName(name));
  if (spans.length === 0) return null;
  return spans.map((span) => lines.slice(span.start, span.end).map(stripCr).join("\n")).join("\n\n");
}

/**
 * Removes the table and its sub-tables (`[mcp_servers.<name>.env]`), each with the blank
 * line that separated it from what came before. A comment written directly above the
 * header stays: it is the person's, not ours.
 */
export function removeServerTable(text: string, name: string): string {
  let lines = text.split("\n");
  for (;;) {
    const span = ownSpans(lines, serverTableName(name))[0];
    if (!span) return lines.join("\n");
    lines = removeSpan(lines, span);
  }
}

interface Span {
  start: number;
  end: number;
}

function removeSpan(lines: string[], span: Span): string[] {
  const atEnd = span.end === lines.length;
  const out = [...lines.slice(0, span.start), ...lines.slice(span.end)];
  if (span.start > 0 && isBlank(out[span.start - 1]!)) out.splice(span.start - 1, 1);
  else if (span.start === 0 && out.length > 1 && isBlank(out[0]!)) out.splice(0, 1);
  // The table was the file's last line, without a line ending: so is the line now last.
  if (atEnd && out.length > 0) out[out.length - 1] = stripCr(out[out.length - 1]!);
  return out;
}

/** The table's header and own lines, from the first matching header on; a comment block sitting on the next header belongs to that header. */
function ownSpans(lines: string[], table: string): Span[] {
  const spans: Span[] = [];
  for (let i = 0; i < lines.length; i++) {
    const name = headerName(lines[i]!);
    if (name === null || (name !== table && !name.startsWith(`${table}.`))) continue;
    const span = tableSpan(lines, name, i);
    if (span) spans.push({ start: span.header, end: ownEnd(lines, span) });
  }
  return spans;
}

interface TableSpan {
  header: number;
  /** Lines after the header up to the next header (or the end). */
  end: number;
}

function tableSpan(lines: string[], table: string, from = 0): TableSpan | null {
  const header = lines.findIndex((line, i) => i >= from && headerName(line) === table);
  if (header < 0) return null;
  let end = header + 1;
  while (end < lines.length && headerName(lines[end]!) === null && !isArrayHeader(lines[end]!)) end++;
  return { header, end };
}

function ownEnd(lines: string[], span: TableSpan): number {
  let end = span.end;
  if (end < lines.length) while (end > span.header + 1 && isComment(lines[end - 1]!)) end--;
  while (end > span.header + 1 && isBlank(lines[end - 1]!)) end--;
  return end;
}

/** A `[table]` header's normalised name; null for any other line (`[[array]]` headers included). */
function headerName(line: string): string | null {
  const match = HEADER.exec(stripCr(line));
  if (!match || match[1] === "[[") return null;
  return match[2]!
    .split(".")
    .map((part) => part.trim().replace(/^"(.*)"$|^'(.*)'$/, "$1$2"))
    .join(".");
}

function isArrayHeader(line: string): boolean {
  return HEADER.exec(stripCr(line))?.[1] === "[[";
}

function findKeyLine(lines: string[], span: TableSpan, key: string): number {
  const pattern = new RegExp(`^\\s*(?:${key}|"${key}"|'${key}')\\s*=`);
  for (let i = span.header + 1; i < span.end; i++) if (pattern.test(lines[i]!)) return i;
  return -1;
}

/**
 * Where the value of the `key = …` line `start` ends: an array may span lines; a string
 * or any other value ends on its line. Strings and comments are skipped, so a bracket or
 * `#` inside them does not count.
 */
function valueEnd(lines: string[], start: number): { line: number; column: number } {
  let depth = 0;
  let quote: string | null = null;
  for (let line = start; line < lines.length; line++) {
    const text = stripCr(lines[line]!);
    let column = line === start ? text.indexOf("=") + 1 : 0;
    for (; column < text.length; column++) {
      const char = text[column]!;
      if (quote) {
        if (quote === '"' && char === "\\") column++;
        else if (char === quote) {
          quote = null;
          if (depth === 0) return { line, column: column + 1 };
        }
      } else if (char === '"' || char === "'") quote = char;
      else if (char === "#") break;
      else if (char === "[") depth++;
      else if (char === "]" && --depth === 0) return { line, column: column + 1 };
    }
    if (depth === 0) return { line, column: bareEnd(text) };
  }
  return { line: lines.length - 1, column: stripCr(lines[lines.length - 1]!).length };
}

/** A bare value (a number, a boolean) ends where its line's comment starts. */
function bareEnd(text: string): number {
  const hash = text.indexOf("#", text.indexOf("=") + 1);
  return hash < 0 ? text.length : text.slice(0, hash).trimEnd().length;
}

function tomlString(value: string): string {
  return JSON.stringify(value);
}

function tomlArray(values: string[]): string {
  return `[${values.map(tomlString).join(", ")}]`;
}

function lineEnding(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

function isComment(line: string): boolean {
  return line.trim().startsWith("#");
}
