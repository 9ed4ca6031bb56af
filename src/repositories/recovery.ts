import type { RecordedRegistration } from "./model.js";
import type { Registration, RepositoryStore } from "./store.js";

/** The wikis the state root still holds derived state for (their index folders under repos/). */
export interface RecordedWikis {
  /** Repository ids with a folder of derived state. */
  ids(): string[];
  /** What that state records about the wiki's registration; null when it records nothing readable. */
  registration(repositoryId: string): RecordedRegistration | null;
  /** Deletes a repository's derived state. */
  remove(repositoryId: string): void;
}

export interface RecoveryDeps {
  store: RepositoryStore;
  recorded: RecordedWikis;
}

/** What a check of the registry against the state root found and did. */
export interface Recovery {
  /** Wikis registered again from what their index recorded. */
  restored: Registration[];
  /** Folders whose index does not say which wiki it belongs to (written before indexes recorded it, or unreadable). */
  unknown: string[];
}

/**
 * Compares the registry with the wikis the state root holds derived state for. A folder
 * the registry does not list is one of three things, told apart by the state database id
 * its index recorded (a new or emptied database gets a new id):
 *  - recorded under another state database: the registry was emptied, truncated or
 *    replaced since, so the wiki is registered again as its index recorded it;
 *  - recorded under this one: the wiki was forgotten here, and a read that raced the
 *    `forget` made its index again; that leftover is deleted, as `forget` meant to;
 *  - recording nothing: reported (doctor), never guessed at.
 * The folders are listed before the registry is read: a wiki's row is committed before its
 * index folder is made, so a folder seen first is never mistaken for one without a row.
 */
export function recoverRegistrations(deps: RecoveryDeps): Recovery {
  const folders = deps.recorded.ids();
  if (folders.length === 0) return { restored: [], unknown: [] };
  const registered = deps.store.registeredIds();
  const orphans = folders.filter((id) => !registered.has(id));
  if (orphans.length === 0) return { restored: [], unknown: [] };
  const ledgerId = deps.store.ledgerId();
  const lost: RecordedRegistration[] = [];
  const unknown: string[] = [];
  for (const id of orphans) {
    const recorded = deps.recorded.registration(id);
    if (recorded === null || recorded.repositoryId !== id) unknown.push(id);
    else if (recorded.ledgerId === ledgerId) {
      if (!deps.store.findById(id)) deps.recorded.remove(id);
    } else lost.push(recorded);
  }
  // By name, so the notice reads in order and a clash's suffix does not depend on the folder listing.
  lost.sort((a, b) => a.name.localeCompare(b.name) || a.rootPath.localeCompare(b.rootPath));
  const restored = deps.store.restoreRegistrations(
    lost.map((recorded) => ({
      repositoryId: recorded.repositoryId,
      rootPath: recorded.rootPath,
      name: recorded.name,
      explicit: false,
      description: recorded.description,
      now: recorded.registeredAt,
    })),
  );
  return { restored, unknown };
}
