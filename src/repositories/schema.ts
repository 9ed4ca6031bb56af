import type { Migration } from "../core/sqlite.js";

export const repositoryMigrations: Migration[] = [
  {
    version: 1,
    name: "repositories",
    up: (db) =>
      db.exec(`
        CREATE TABLE repositories (
          repository_id TEXT PRIMARY KEY,
          name TEXT NOT NULL COLLATE NOCASE UNIQUE,
          description TEXT NOT NULL DEFAULT '',
          root_path TEXT NOT NULL UNIQUE,
          registered_at INTEGER NOT NULL
        );
      `),
  },
  {
    version: 7,
    name: "ledger identity (recorded in each index, so a registry that was emptied or replaced can be told apart)",
    up: (db) =>
      db.exec(`
        CREATE TABLE ledger (
          ledger_id TEXT NOT NULL,
          created_at INTEGER NOT NULL
        );
        INSERT INTO ledger (ledger_id, created_at) VALUES (lower(hex(randomblob(16))), CAST(unixepoch('subsec') * 1000 AS INTEGER));
      `),
  },
];
