/** Agent CLI versions: what `--version` prints, and comparisons against feature floors. */
export type Version = readonly [number, number, number];

/** The first `x.y.z` in a `--version` line (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`). */
export function parseVersion(output: string): Version | null {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(output);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/** True when `version` is at least `floor`; an unknown version counts as new enough. */
export function atLeast(version: string | null | undefined, floor: string): boolean {
  const have = version ? parseVersion(version) : null;
  const want = parseVersion(floor);
  if (!have || !want) return true;
  for (let i = 0; i < 3; i++) {
    if (have[i]! !== want[i]!) return have[i]! > want[i]!;
  }
  return true;
}

export function formatVersion(version: Version): string {
  return version.join(".");
}
