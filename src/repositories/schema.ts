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
];
