/**
 * A section's rowid is `page id * SECTION_SLOTS + ordinal`, so search groups hits by
 * page from the rowid alone. Shared by the writer and the read views.
 */
export const SECTION_SLOTS = 4096;

/**
 * Pages larger than this are indexed, shown and excerpted from their first 2 MB (bytes,
 * cut back to a whole UTF-8 character); nothing past it is ever read but to hash it.
 */
export const MAX_INDEXED_BYTES = 2 * 1024 * 1024;
