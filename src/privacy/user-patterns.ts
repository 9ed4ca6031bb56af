import type { Span } from "./spans.js";

/** The kind a match of one of the user's own `privacy.redact` patterns is reported as. */
export const USER_PATTERN_KIND = "user-pattern";

/**
 * Why `source` cannot be one of the user's redaction patterns, or null when it can: it must
 * compile, and it must not match the empty string (such a pattern would "hide" nothing
 * everywhere and never advance).
 */
export function userPatternProblem(source: string): string | null {
  let regex: RegExp;
  try {
    regex = new RegExp(source, "u");
  } catch (error) {
    return `is not a valid regular expression (${error instanceof Error ? error.message.replace(/^Invalid regular expression: (\/.*\/[a-z]*: )?/s, "") : String(error)})`;
  }
  if (source.trim() === "") return "is empty";
  if (regex.test("")) return "matches the empty string";
  return null;
}

const compiled = new Map<string, RegExp>();

function compile(source: string): RegExp {
  let regex = compiled.get(source);
  if (!regex) {
    regex = new RegExp(source, "gu");
    compiled.set(source, regex);
  }
  return regex;
}

/** Every match of the user's patterns; an invalid pattern (config validation refuses them) matches nothing. */
export function userPatternSpans(text: string, sources: readonly string[]): Span[] {
  const spans: Span[] = [];
  for (const source of sources) {
    if (userPatternProblem(source) !== null) continue;
    const regex = compile(source);
    regex.lastIndex = 0;
    for (let match = regex.exec(text); match; match = regex.exec(text)) {
      if (match[0].length === 0) {
        regex.lastIndex += 1;
        continue;
      }
      spans.push({ start: match.index, end: match.index + match[0].length, kind: USER_PATTERN_KIND });
    }
  }
  return spans;
}
