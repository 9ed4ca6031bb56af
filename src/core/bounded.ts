/**
 * A list cut to a limit that says how much was cut, so a reader (often an agent with a
 * bounded prompt) knows when it is looking at part of the picture rather than all of it.
 */
export interface Bounded<T> {
  /** How many items exist in full. */
  total: number;
  /** How many of them are not in `items`. */
  omitted: number;
  items: T[];
}

export function bounded<T>(items: readonly T[], total: number, limit = items.length): Bounded<T> {
  const kept = items.slice(0, Math.max(0, limit));
  return { total, omitted: Math.max(0, total - kept.length), items: kept };
}

/** The same list cut further; counts stay true to the full list. */
export function clip<T>(list: Bounded<T>, limit: number): Bounded<T> {
  return bounded(list.items, list.total, limit);
}

/** Shortens free text (a message, a title) that could otherwise dominate a bounded payload. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
