import type { Db } from "../core/sqlite.js";

/** The index's `meta` table holds small JSON documents; an unreadable one counts as absent. */
export function readMeta<T>(db: Db, key: string): T | null {
  const value = db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(key) as string | undefined;
  if (value === undefined) return null;
  try {
    return JSON.parse(value) as T;
  } catch {
    return null;
  }
}

export function writeMeta(db: Db, key: string, value: unknown): void {
  db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
    key,
    JSON.stringify(value),
  );
}
