import { isCollection, LineCounter, parseDocument, visit } from "yaml";
import type { Document } from "yaml";

export type YamlSyntaxError = { line: number; column: number; reason: string };

export type ParsedYaml = {
  doc: Document.Parsed;
  /** 1-based line (within the YAML text) of a node's start offset. */
  lineAt(offset: number): number;
  error: YamlSyntaxError | null;
};

/** Parses YAML 1.2 (core schema) keeping node positions, so problems can name a line. */
export function parseYamlSource(text: string): ParsedYaml {
  const counter = new LineCounter();
  // logLevel "error": the library's warnings (a collection used as a key) would reach the user's terminal as Node warnings; yamlValue reports them as problems instead.
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, logLevel: "error" });
  const lineAt = (offset: number) => Math.max(1, counter.linePos(offset).line);
  const first = doc.errors[0];
  let error: YamlSyntaxError | null = null;
  if (first) {
    const pos = counter.linePos(first.pos[0]);
    error = { line: Math.max(1, pos.line), column: Math.max(1, pos.col), reason: first.message };
  }
  return { doc, lineAt, error };
}

/** Plain JS view of a parsed document; alias bombs and unresolved aliases become errors. */
export function yamlValue(parsed: ParsedYaml): { value: unknown } | { error: string; line?: number } {
  const complexKey = collectionKeyLine(parsed);
  if (complexKey !== null) return { error: "a key is a mapping or a list; keys must be plain text", line: complexKey };
  try {
    return { value: parsed.doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

export function isPlainMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** The line of the first key that is itself a mapping or a list (`? [a, b]: 1`), or null. */
function collectionKeyLine(parsed: ParsedYaml): number | null {
  let line: number | null = null;
  visit(parsed.doc, {
    Pair(_, pair) {
      if (!isCollection(pair.key)) return undefined;
      line = parsed.lineAt(pair.key.range?.[0] ?? 0);
      return visit.BREAK;
    },
  });
  return line;
}
