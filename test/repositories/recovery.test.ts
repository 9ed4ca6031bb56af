import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { openDatabase, type Db } from "../../src/core/sqlite.js";
import type { RecordedRegistration } from "../../src/repositories/model.js";
import { recoverRegistrations, type RecordedWikis } from "../../src/repositories/recovery.js";
import { repositoryMigrations } from "../../src/repositories/schema.js";
import { RepositoryStore } from "../../src/repositories/store.js";

/** The registry is a real SQLite file; the wikis' derived state is a fake port. */
let dir: string;
let db: Db;
let store: RepositoryStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ca-recovery-"));
  db = openDatabase(join(dir, "state.db"), { migrations: repositoryMigrations, onNewerSchema: "refuse" });
  store = new RepositoryStore(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function recorded(id: string, name: string, ledgerId: string | null, extra: Partial<RecordedRegistration> = {}): RecordedRegistration {
  return { repositoryId: id, name, description: "", rootPath: `/work/${name}`, registeredAt: 1_700_000_000_000, ledgerId, ...extra };
}

/** Folders of derived state, each recording a registration (or nothing); removals are kept. */
function folders(entries: Record<string, RecordedRegistration | null>): RecordedWikis & { removed: string[] } {
  const removed: string[] = [];
  return {
    removed,
    ids: () => Object.keys(entries).filter((id) => !removed.includes(id)),
    registration: (id) => entries[id] ?? null,
    remove: (id) => void removed.push(id),
  };
}

function register(id: string, name: string): void {
  store.registerRepository({ repositoryId: id, rootPath: `/work/${name}`, name, explicit: false, now: 1 });
}

describe("recoverRegistrations", () => {
  test("a state database has an id of its own, made when it is created", () => {
    expect(store.ledgerId()).toMatch(/^[0-9a-f]{32}$/);
    const other = openDatabase(join(dir, "other.db"), { migrations: repositoryMigrations, onNewerSchema: "refuse" });
    try {
      expect(new RepositoryStore(other).ledgerId()).not.toBe(store.ledgerId());
    } finally {
      other.close();
    }
  });

  test("wikis recorded under another state database are registered again, as recorded", () => {
    register("repo_b", "beta");
    const wikis = folders({
      repo_a: recorded("repo_a", "alpha", "gone-ledger", { description: "the alpha wiki", registeredAt: 1_650_000_000_000 }),
      repo_b: recorded("repo_b", "beta", "gone-ledger"),
      repo_c: recorded("repo_c", "gamma", null),
    });
    const recovery = recoverRegistrations({ store, recorded: wikis });
    expect(recovery.restored.map((r) => r.repository.name)).toEqual(["alpha", "gamma"]);
    expect(recovery.unknown).toEqual([]);
    expect(store.findById("repo_a")).toEqual({
      repositoryId: "repo_a",
      name: "alpha",
      description: "the alpha wiki",
      rootPath: "/work/alpha",
      registeredAt: 1_650_000_000_000,
    });
    expect(wikis.removed).toEqual([]);
    // Nothing is missing any more: a second pass does nothing.
    expect(recoverRegistrations({ store, recorded: wikis })).toEqual({ restored: [], unknown: [] });
  });

  test("a name taken meanwhile by another checkout gets the next free suffix", () => {
    register("repo_other", "alpha");
    const recovery = recoverRegistrations({ store, recorded: folders({ repo_a: recorded("repo_a", "alpha", "gone-ledger", { rootPath: "/elsewhere/alpha" }) }) });
    expect(recovery.restored.map((r) => [r.repository.name, r.renamedFrom])).toEqual([["alpha-2", "alpha"]]);
  });

  test("a leftover of a wiki forgotten in this state database is deleted, not registered", () => {
    const wikis = folders({ repo_a: recorded("repo_a", "alpha", store.ledgerId()) });
    const recovery = recoverRegistrations({ store, recorded: wikis });
    expect(recovery).toEqual({ restored: [], unknown: [] });
    expect(wikis.removed).toEqual(["repo_a"]);
    expect(store.findById("repo_a")).toBeUndefined();
  });

  test("a leftover whose wiki is registered again while it is looked at is kept", () => {
    const wikis = folders({ repo_a: recorded("repo_a", "alpha", store.ledgerId()) });
    const racing: RecordedWikis = {
      ...wikis,
      registration: (id) => {
        register(id, "alpha");
        return wikis.registration(id);
      },
    };
    expect(recoverRegistrations({ store, recorded: racing })).toEqual({ restored: [], unknown: [] });
    expect(wikis.removed).toEqual([]);
  });

  test("a folder that records nothing, or another wiki's id, is reported and left alone", () => {
    const wikis = folders({ repo_a: null, repo_b: recorded("repo_elsewhere", "beta", "gone-ledger") });
    const recovery = recoverRegistrations({ store, recorded: wikis });
    expect(recovery).toEqual({ restored: [], unknown: ["repo_a", "repo_b"] });
    expect(wikis.removed).toEqual([]);
    expect(store.listRepositories()).toEqual([]);
  });

  test("registered wikis are never read back: with nothing missing, no folder's record is opened", () => {
    register("repo_a", "alpha");
    const wikis = folders({ repo_a: recorded("repo_a", "alpha", "gone-ledger") });
    let reads = 0;
    const counted: RecordedWikis = { ...wikis, registration: (id) => (reads++, wikis.registration(id)) };
    expect(recoverRegistrations({ store, recorded: counted })).toEqual({ restored: [], unknown: [] });
    expect(reads).toBe(0);
  });
});
