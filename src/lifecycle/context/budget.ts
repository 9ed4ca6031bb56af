/**
 * Runtime context goes into the prompt as pretty JSON, so its size is measured the same
 * way. Callers offer versions of the context from richest to leanest; the first that fits
 * is used, so the prompt never grows past its budget however large the wiki or repository.
 */
export function serializedSize(value: unknown): number {
  return JSON.stringify(value, null, 2).length;
}

export function fitToBudget<T>(budgetChars: number, candidates: Iterable<T>): T {
  let leanest = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const size = serializedSize(candidate);
    if (size <= budgetChars) return candidate;
    leanest = Math.min(leanest, size);
  }
  throw new RangeError(`the context needs at least ${leanest} characters but the budget is ${budgetChars}`);
}

