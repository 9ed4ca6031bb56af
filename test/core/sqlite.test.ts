import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, test } from "vitest";
import { StorageError } from "../../src/core/errors.js";
import { openDatabase, retryWhileBusy, storageFailure, storageProblem, unversionedOnDisk } from "../../src/core/sqlite.js";
import { writePythonLedger } from "../setup/python-ledger.js";
import { sandbox } from "../support/cli.js";

const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

describe("retryWhileBusy", () => {
  test("tries again after SQLITE_BUSY and returns the first success", () => {
    let calls = 0;
    const result = retryWhileBusy(() => {
      calls++;
      if (calls < 3) throw busy();
      return "done";
    }, 1_000);
    expect([result, calls]).toEqual(["done", 3]);
  });

  test("gives up with SQLite's own error once the timeout has passed", () => {
    const clock = { now: 0 };
    let calls = 0;
    const attempt = () => {
      calls++;
      clock.now += 400;
      throw busy();
    };
    expect(() => retryWhileBusy(attempt, 1_000, () => clock.now)).toThrow("database is locked");
    expect(calls).toBe(3);
  });

  test("never retries other failures", () => {
    let calls = 0;
    const attempt = () => {
      calls++;
      throw Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
    };
    expect(() => retryWhileBusy(attempt, 1_000)).toThrow("disk I/O error");
    expect(calls).toBe(1);
  });
});

describe("first use on a fresh machine", () => {
  test("processes creating the state database at the same moment all succeed", async () => {
    // Switching a new file to WAL can deadlock between processes; SQLite then answers
    // SQLITE_BUSY without waiting, which used to reach the user as "database is locked".
    for (let round = 0; round < 4; round++) {
      const box = sandbox();
      try {
        const results = await Promise.all(Array.from({ length: 8 }, () => box.runAsync(["list", "--json"])));
        for (const result of results) expect([result.code, result.stderr]).toEqual([0, ""]);
      } finally {
        box.cleanup();
      }
    }
  });
});

describe("a file of ours is never taken for a foreign one", () => {
  test("a first migration another process commits between the version read and the table read cannot make the file look foreign", () => {
    const dir = mkdtempSync(join(tmpdir(), "ca-foreign-"));
    const file = join(dir, "state.db");
    const first = { version: 1, name: "repositories", up: (db: Database.Database) => void db.exec("CREATE TABLE repositories (id INTEGER)") };
    const other = new Database(file);
    other.pragma("busy_timeout = 0");
    try {
      const db = openDatabase(file, {
        migrations: [first],
        onNewerSchema: "refuse",
        isForeign: (seen) => {
          // Another process's first migration, committed right at this seam if SQLite lets it.
          try {
            other.transaction(() => {
              first.up(other);
              other.pragma("user_version = 1");
            }).immediate();
          } catch {
            // SQLITE_BUSY: the version read and this look are one snapshot.
          }
          return seen.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'repositories'").pluck().get() !== 0;
        },
      });
      expect(db.pragma("user_version", { simple: true })).toBe(1);
      db.close();
    } finally {
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("storageProblem and storageFailure", () => {
  const failureOf = (attempt: () => unknown): unknown => {
    try {
      attempt();
    } catch (error) {
      return error;
    }
    throw new Error("expected a failure");
  };

  test("tell what is wrong with the file from SQLite's own errors, and nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), "ca-storage-"));
    try {
      const garbage = join(dir, "garbage.db");
      writeFileSync(garbage, Buffer.alloc(8192, 0x5a));
      const notADatabase = failureOf(() => openDatabase(garbage, { migrations: [], onNewerSchema: "refuse" }));
      expect(storageProblem(notADatabase)).toBe("damaged");
      const folder = join(dir, "folder.db");
      mkdirSync(folder);
      expect(storageProblem(failureOf(() => openDatabase(folder, { migrations: [], onNewerSchema: "refuse" })))).toBe("cannot_open");

      const db = openDatabase(join(dir, "fine.db"), { migrations: [], onNewerSchema: "refuse" });
      db.exec("CREATE TABLE t (a INTEGER PRIMARY KEY); INSERT INTO t VALUES (1); CREATE VIRTUAL TABLE f USING fts5(x)");
      // Errors about the statement, not the file, are no storage problem: they must never trigger a rebuild.
      expect(storageProblem(failureOf(() => db.exec("INSERT INTO t VALUES (1)")))).toBeNull();
      expect(storageProblem(failureOf(() => db.prepare("SELECT * FROM f WHERE f MATCH '\"unclosed'").all()))).toBeNull();
      expect(storageProblem(failureOf(() => db.exec("SELECT nonsense FROM")))).toBeNull();
      db.close();
      expect(storageProblem(new Error("database disk image is malformed"))).toBeNull();
      expect(storageProblem(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }))).toBe("full");
      expect(storageProblem(Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_SHORT_READ" }))).toBe("io");

      const line = storageFailure(notADatabase, garbage, "the test database", { damaged: "throw it away" });
      expect(line).toBeInstanceOf(StorageError);
      expect((line as StorageError).message).toBe(`the test database ${garbage} is damaged (file is not a database); throw it away`);
      expect((line as StorageError).code).toBe("unavailable");
      expect(storageFailure(new Error("no"), garbage, "the test database", { damaged: "x" })).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("migrations", () => {
  test("two migrations with one version are refused before the file is touched", () => {
    const dir = mkdtempSync(join(tmpdir(), "ca-sqlite-"));
    try {
      const file = join(dir, "state", "x.db");
      const up = () => undefined;
      expect(() => openDatabase(file, { migrations: [{ version: 1, name: "a", up }, { version: 2, name: "b", up }, { version: 2, name: "c", up }], onNewerSchema: "refuse" })).toThrow(
        'migrations "b" and "c" share version 2',
      );
      expect(existsSync(join(dir, "state"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the state database's domains number their migrations apart", async () => {
    const [{ repositoryMigrations }, { runMigrations }, { syncMigrations }] = await Promise.all([
      import("../../src/repositories/schema.js"),
      import("../../src/runs/schema.js"),
      import("../../src/sync/schema.js"),
    ]);
    const versions = [...repositoryMigrations, ...runMigrations, ...syncMigrations].map((m) => m.version);
    expect(new Set(versions).size).toBe(versions.length);
  });
});

describe("unversionedOnDisk", () => {
  test("says yes for a file with no schema version in its header (the Python ledger, an empty file) and no for a missing file or one of ours", () => {
    const dir = mkdtempSync(join(tmpdir(), "ca-unversioned-"));
    try {
      expect(unversionedOnDisk(join(dir, "missing.db"))).toBe(false);
      writeFileSync(join(dir, "empty.db"), "");
      expect(unversionedOnDisk(join(dir, "empty.db"))).toBe(true);
      writePythonLedger(join(dir, "python.db"), [], []).close();
      expect(unversionedOnDisk(join(dir, "python.db"))).toBe(true);
      const ours = openDatabase(join(dir, "ours.db"), { migrations: [{ version: 3, name: "t", up: (db) => db.exec("CREATE TABLE t (x)") }], onNewerSchema: "refuse" });
      ours.close();
      expect(unversionedOnDisk(join(dir, "ours.db"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
