import { detectorSpans } from "./detector.js";
import { ownSpans, PRIVATE_SPAN } from "./patterns.js";
import { applySpans, type Redacted, type Span } from "./spans.js";
import { userPatternSpans } from "./user-patterns.js";

export type { Redacted, RedactionCount } from "./spans.js";
export { marker } from "./spans.js";
export { USER_PATTERN_KIND, userPatternProblem } from "./user-patterns.js";

/**
 * What the user added to the built-in protection: `patterns` (`privacy.redact`, regular
 * expression sources) hide more text; `exclude` (`privacy.exclude`, absolute folders) names
 * where sessions are never read (see exclude.ts).
 */
export interface PrivacyRules {
  patterns?: readonly string[];
  exclude?: readonly string[];
}

/**
 * The one redactor every prompt's material passes through: each secret becomes
 * `[redacted: <kind>]` and the rest of the text stays, so the agent still learns what
 * happened. `redactions` counts the secrets per kind; the secrets themselves go nowhere.
 */
export async function redact(text: string, rules: PrivacyRules = {}): Promise<Redacted> {
  return applySpans(text, await secretSpans(text, rules));
}

/** Where a secret sits in a text: a 1-based line and column, and its kind; never the secret. */
export interface SecretFinding {
  line: number;
  column: number;
  kind: string;
}

/**
 * The same detectors as `redact`, reporting instead of hiding: the secret gate before a
 * product commit and `validate` name each finding's place and kind, in text order, one per
 * secret (overlapping detections of one secret count once).
 *
 * `<private>` spans are not reported: they mark what a conversation must not pass on to an
 * agent, and never reach one, so a page that holds the tags was written by a person who
 * chose to (our own pages show the syntax).
 */
export async function findSecrets(text: string, rules: PrivacyRules = {}): Promise<SecretFinding[]> {
  const spans = (await secretSpans(text, rules)).filter((span) => span.kind !== PRIVATE_SPAN).sort((a, b) => a.start - b.start || b.end - a.end);
  const findings: SecretFinding[] = [];
  let end = -1;
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  for (const span of spans) {
    if (span.start < end) {
      end = Math.max(end, span.end);
      continue;
    }
    end = span.end;
    for (; scanned < span.start; scanned += 1) {
      if (text.charCodeAt(scanned) === 10) {
        line += 1;
        lineStart = scanned + 1;
      }
    }
    findings.push({ line, column: span.start - lineStart + 1, kind: span.kind });
  }
  return findings;
}

async function secretSpans(text: string, rules: PrivacyRules): Promise<Span[]> {
  return [...ownSpans(text), ...userPatternSpans(text, rules.patterns ?? []), ...(await detectorSpans(text))];
}
