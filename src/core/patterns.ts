/**
 * A regular expression made on first use. One with Unicode property classes (`\p{L}` and
 * the like) costs 0.3–0.5 ms to make, and a module-level one is made at start-up by every
 * command whose modules hold it, used or not. Each caller gets the same object, so a
 * global pattern's `lastIndex` is shared as it would be for a module-level constant.
 */
export function patternOnFirstUse(make: () => RegExp): () => RegExp {
  let pattern: RegExp | undefined;
  return () => (pattern ??= make());
}
