/**
 * The read commands whose families the build packs into the main chunk (READ_FAMILIES in
 * scripts/pack-read-path.mjs, which must list the same families). Each of them keeps a
 * code cache of the main chunk of its own (bin.ts): a cache holds the functions that the
 * command which wrote it ran, so one written by `list` would leave a search compiling its
 * own code on every start.
 */
export const PACKED_READ_COMMANDS: readonly string[] = ["search", "show", "topics", "health", "validate"];
