/** A stretch of text to hide, `[start, end)` in UTF-16 offsets, and the kind of secret it is. */
export interface Span {
  start: number;
  end: number;
  kind: string;
}

/** How many of each kind were hidden, in the order kinds first appear. */
export interface RedactionCount {
  kind: string;
  count: number;
}

export interface Redacted {
  text: string;
  redactions: RedactionCount[];
}

export function marker(kind: string): string {
  return `[redacted: ${kind}]`;
}

/**
 * Replaces every span by its marker. Overlapping spans (two detectors on one secret, or a
 * secret inside a private span) become one: their union, named by the span that starts first
 * (the wider one when both start together), so no part of either survives.
 */
export function applySpans(text: string, spans: Span[]): Redacted {
  if (spans.length === 0) return { text, redactions: [] };
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  const counts = new Map<string, number>();
  let cursor = 0;
  let index = 0;
  while (index < sorted.length) {
    const first = sorted[index]!;
    let end = first.end;
    index += 1;
    while (index < sorted.length && sorted[index]!.start < end) {
      end = Math.max(end, sorted[index]!.end);
      index += 1;
    }
    parts.push(text.slice(cursor, first.start), marker(first.kind));
    counts.set(first.kind, (counts.get(first.kind) ?? 0) + 1);
    cursor = end;
  }
  parts.push(text.slice(cursor));
  return { text: parts.join(""), redactions: Array.from(counts, ([kind, count]) => ({ kind, count })) };
}
