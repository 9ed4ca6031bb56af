/**
 * A section's rowid is `page id * SECTION_SLOTS + ordinal`, so search groups hits by
 * page from the rowid alone. Shared by the writer and the read views.
 */
export const SECTION_SLOTS = 4096;

/** Pages larger than this are indexed (and shown) from their first 2 MB. */
export const MAX_INDEXED_CHARS = 2 * 1024 * 1024;
