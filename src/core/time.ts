/**
 * Every time the product prints as data: ISO-8601 in UTC, without a `.000` when the time is a
 * whole second (the ledger's times are milliseconds, the index's whole seconds), or null.
 */
export function isoTime(ms: number | null | undefined): string | null {
  if (ms === null || ms === undefined) return null;
  return new Date(ms).toISOString().replace(".000Z", "Z");
}
