import type { RecordedRegistration } from "../repositories/model.js";
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

/**
 * The wiki an index belongs to, as the registry knew it when the index was last opened,
 * and which state database (ledger) that registry lived in. An index folder whose wiki
 * the current registry lacks is read back through this (the repositories' recovery).
 */
export type IndexRegistration = RecordedRegistration;

export const REGISTRATION_KEY = "registration";

/** Stores the registration unless the index already holds exactly this one (a read costs no write). */
export function recordRegistration(db: Db, registration: IndexRegistration): void {
  const wanted = JSON.stringify(registration);
  const stored = db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(REGISTRATION_KEY) as string | undefined;
  if (stored !== wanted) writeMeta(db, REGISTRATION_KEY, registration);
}

export function readRegistration(db: Db): IndexRegistration | null {
  const value = readMeta<Partial<IndexRegistration>>(db, REGISTRATION_KEY);
  if (!value || typeof value.repositoryId !== "string" || typeof value.rootPath !== "string" || typeof value.name !== "string") return null;
  return {
    repositoryId: value.repositoryId,
    name: value.name,
    description: typeof value.description === "string" ? value.description : "",
    rootPath: value.rootPath,
    registeredAt: typeof value.registeredAt === "number" ? value.registeredAt : 0,
    ledgerId: typeof value.ledgerId === "string" ? value.ledgerId : null,
  };
}
