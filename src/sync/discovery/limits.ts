const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * Bounds of one transcript read. Codex's first line carries the model instructions
 * (tens of kilobytes, in principle more), so a line may be long; anything longer
 * than `maxLineBytes` is skipped unparsed.
 */
export const READ_LIMITS = {
  maxLineBytes: 8 * MIB,
  /** The identity is near the start; past this, a new line is not started. */
  headBytes: 4 * MIB,
  chunkBytes: 64 * KIB,
  /** The first look at the end of a file; widened when no complete line there has a timestamp. */
  tailBytes: 16 * KIB,
  tailGrowth: 8,
  /** The widest look at the end: the longest line we accept, and then some. */
  tailLimitBytes: 8 * MIB + 16 * KIB,
  /** Timestamped lines looked at from the end: lines are not always appended in time order. */
  activityLines: 8,
  /** Decompressed bytes of a `.zst` kept for its tail: it cannot be read backwards. */
  compressedTailBytes: 1 * MIB,
  compressedChunkBytes: 256 * KIB,
} as const;

export const MAX_LINE_LABEL = "8 MiB";
